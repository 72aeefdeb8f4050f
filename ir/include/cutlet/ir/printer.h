// Deterministic text form of a Function.
#pragma once

#include <string>

#include "cutlet/ir/function.h"

namespace cutlet::ir {

/// Prints `f` as text. Values are renumbered in order of appearance (%0, %1, ...), so the
/// text depends only on the function's structure; the same function always prints the
/// same. With `with_locations`, each line ends with the user's file:line when known.
std::string print(const Function& f, bool with_locations = false);

}  // namespace cutlet::ir
