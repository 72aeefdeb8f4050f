// Internal: orders a tile kernel's straight-line code (outside loops) for registers, before
// LLVM optimizes it: its tile vectors split into the thread's scalars (LLVM's scalarizer) and
// each pure instruction moved to just before its first use in its block. An elementwise chain
// on a tile (an epilogue's bias + GELU + cast) then runs element by element, not op by op over
// every register, so only the chain's inputs and outputs are live, not every intermediate.
#pragma once

#include <llvm/IR/Function.h>

namespace cutlet::backend {

void order_for_registers(llvm::Function& f);

}  // namespace cutlet::backend
