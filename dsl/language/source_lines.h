// Internal: finding the user's source line that called into cutlet, from the call stack.
#pragma once

#include "cutlet/ir/function.h"

namespace cutlet::detail {

/// The innermost frame of the calling thread's stack that is not cutlet's own code nor the
/// C++ standard library: the line of the user's kernel that is being traced. Unknown when
/// the program has no debug information (-g). Costs a stack walk: used only for line info.
ir::Location caller_location();

}  // namespace cutlet::detail
