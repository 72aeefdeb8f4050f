// The IR passes. Each is a function Function -> Function, defined in ir/passes/<name>.cpp.
#pragma once

#include "cutlet/ir/function.h"

namespace cutlet::ir {

/// Dead-code elimination: drops pure ops, loads and unused allocations whose results are
/// never used, to a fixed point. Ops with effects (stores, atomics, barriers, warp
/// collectives, region ops) are kept.
Function dead_code_elimination(Function f);

}  // namespace cutlet::ir
