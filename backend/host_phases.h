// Internal: a host kernel's block run as loops over its threads, split where the threads wait
// for each other (at barriers and warp operations) into phases.
//
// A phase runs one stretch of the kernel for every thread of the block in turn, a plain loop
// that LLVM optimizes and vectorizes, instead of switching fibers at every wait. Values one
// phase makes and a later one reads are kept per thread in the block's scratch memory; so are
// local variables that live across phases. A barrier ends a phase. A warp operation is a phase
// of its own that reads its lanes' operands from the scratch memory. An if or loop that holds
// a barrier or warp operation is run once for the block, its condition taken per warp: the
// warps whose condition holds run its phases, and every lane of a warp must agree (every
// warp, where it holds a barrier), as on a GPU, or the block stops with an error naming it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "lowering.h"

namespace cutlet::backend {

class DebugInfo;

/// Whether kernel `fn` can run in phases: each warp operation is over the whole warp (a
/// constant full mask; others need its threads as fibers, host_block.h) and it has no
/// grid_sync.
bool runs_in_phases(const ir::Function& fn);

/// The entry point of a kernel lowered in phases:
///   i32 cutlet_host_phases(void** args, const u32* shape, u32 bx, u32 by, u32 bz,
///                          void* shared, void* scratch)
/// runs block (bx, by, bz): args[i] points to parameter i's value, shape holds blockDim x y z
/// then gridDim x y z, shared is the block's shared memory and scratch
/// phases_exchange_bytes(module) bytes for the block then phases_scratch_per_thread(module)
/// bytes per thread of the block, 64-byte aligned. Returns
/// 0, or k + 1 when the block stopped with the k-th of phases_errors(module).
inline constexpr const char* kPhasesEntry = "cutlet_host_phases";
/// What the entry point returns when a thread's assert_ failed (cutlet_host_phases_assert_fail
/// recorded which).
inline constexpr std::uint32_t kPhasesAssertFailed = 0xffffffffu;

/// Lowers the body of kernel c.fn, whose function c.kernel is the entry point above with its
/// parameters loaded into c.values, into phases; ends it with `ret 0`.
void lower_phases(LoweringContext& c, DebugInfo* debug);

/// The scratch bytes per thread a kernel lowered in phases needs.
std::size_t phases_scratch_per_thread(const llvm::Module& module);
/// The exchange memory (bytes per block, host_tile_exchange.h) a kernel lowered in phases
/// needs before its threads' scratch memory.
std::size_t phases_exchange_bytes(const llvm::Module& module);
/// The errors a kernel lowered in phases may stop with, by their code less 1.
std::vector<std::string> phases_errors(const llvm::Module& module);

}  // namespace cutlet::backend
