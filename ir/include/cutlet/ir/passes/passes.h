// The IR passes. Each is a function Function -> Function, defined in ir/passes/<name>.cpp.
#pragma once

#include "cutlet/ir/function.h"

namespace cutlet::ir {

/// Folds transposes into the dots that read them: a tile.dot whose a or b is a 2-D
/// tile.permute {1, 0} reads the permute's operand instead, marked transposed (DotTransposed),
/// so the permute's trip through shared memory goes (DCE removes the unused permute).
Function fold_dot_transposes(Function f);

/// Dead-code elimination: drops pure ops, loads and unused allocations whose results are
/// never used, to a fixed point. Ops with effects (stores, atomics, barriers, warp
/// collectives, region ops) are kept.
Function dead_code_elimination(Function f);

}  // namespace cutlet::ir
