// The IR verifier: structural and type invariants of a Function.
#pragma once

#include "cutlet/ir/builder.h"
#include "cutlet/ir/function.h"

namespace cutlet::ir {

/// Checks `f`: every operand is defined before use and visible in its scope (region
/// arguments and values of enclosing regions only), operand counts and types follow the
/// op table, region ops have the right regions, arguments and terminators, and every
/// value is defined once. Throws IRError naming the instruction, the problem and the
/// user's source location when known.
void verify(const Function& f);

}  // namespace cutlet::ir
