// Internal: refusing kernels whose shared memory no block of the target can have, before
// nvJitLink would fail on them, with the buffers to shrink named.
#pragma once

#include <llvm/IR/Module.h>

#include "cutlet/backend/target.h"
#include "cutlet/ir/function.h"

namespace cutlet::backend {

/// The static shared memory (shared_array buffers) lowered module `m` declares, in bytes.
std::int64_t static_shared_bytes(const llvm::Module& m);

/// Throws CompileError when kernel `fn` (as lowered into `m`, its arena placed by
/// allocate-shared) declares more than 48 KiB of static shared memory, or needs more shared
/// memory per block, static and arena together, than `target` allows. The message lists the
/// buffers live at the arena's peak with their ops' source lines and bytes, and the tile
/// sizes or stages to lower.
void check_shared_memory(const ir::Function& fn, const llvm::Module& m, const Target& target);

}  // namespace cutlet::backend
