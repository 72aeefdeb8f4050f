// The IR passes. Each is a function Function -> Function, defined in ir/passes/<name>.cpp.
#pragma once

#include "cutlet/ir/function.h"

namespace cutlet::ir {

/// Folds transposes into the dots that read them: a tile.dot whose a or b is a 2-D
/// tile.permute {1, 0} reads the permute's operand instead, marked transposed (DotTransposed),
/// so the permute's trip through shared memory goes (DCE removes the unused permute).
Function fold_dot_transposes(Function f);

/// FP8 dots off FP8 tensor cores (tile kernels only): a tile.dot of FP8 operands that does not
/// run on wgmma (dot_uses_wgmma: an sm_90a target, both operands K-major, K a multiple of 32)
/// reads its operands cast to f16 instead, which is exact, and runs as an f16 dot (mma.sync,
/// or wgmma with the transposes FP8 has not). So one kernel source builds for every target.
Function upcast_fp8_dots(Function f);

/// The warps of a tile kernel traced for the host (Function::host_target); others are left
/// as they are. On the host a block's threads are iterations of loops, and what a tile
/// kernel computes does not depend on how many there are: fewer threads each holding more
/// elements run faster (longer vectors, fewer iterations). So the kernel keeps the most warps
/// (a power of two, at most its own, at least one) that still give each thread at least
/// kHostElementsPerThread elements of its largest tile. Its blocks on the CPU have that many
/// threads whatever the launch asked (HostKernel::run). A kernel with per-thread code that
/// sees its threads (thread indices, the block's shape, warp operations, scalar atomics,
/// printing, device functions) keeps its warps.
inline constexpr int kHostElementsPerThread = 16;
Function choose_host_warps(Function f);

/// Layout assignment (tile kernels only): gives every tile value its layout (layout.h) in its
/// type and inserts a tile.convert_layout wherever a value must move to the layout its
/// consumer takes. Sources (arange, splat) are made in the layout their uses want (the backward
/// wishes of layout_wishes.h); elementwise ops work in the layout their result's uses want,
/// else their first tile operand's; loads, stores and atomics in their offsets' layout; a
/// tensor-core dot's accumulator and result in its mma layout (wgmma's, when the function may
/// use wgmma and the dot qualifies: tile_dot.h); reductions in the slice of
/// their operand's blocked layout; permutes and reshapes in the default layout; carried
/// values in their initial value's. Idempotent on an assigned function.
Function assign_layouts(Function f);

/// Rematerialization of conversions (tile kernels only): where a tile.convert_layout's
/// operand is index arithmetic (aranges and splats, their broadcasts and expand_dims, adds,
/// subtracts, multiplies, ands, ors, compares and casts of those), its uses read that
/// arithmetic made again in the target layout, placed before them; the conversion is left
/// for DCE. Other conversions stay (they go through shared memory).
Function rematerialize_conversions(Function f);

/// Software pipelining of tile loops (tile kernels only), after layout assignment. For a
/// `for` with a constant positive step, the tile loads at the top level of its body whose
/// operands depend only on the induction variable and values from before the loop:
///  - a load that is the a or b of one tensor-core dot (its only use), read in aligned pieces
///    of 4 to 16 bytes and padded with zeros, becomes tile.async_copy into a ring of
///    pipeline_stages(f) stage buffers (tile.local_alloc, a shared layout of padded rows the
///    dot reads as they are): the first stages - 1 iterations' copies before the loop, each
///    iteration waiting for its own (tile.async_wait, barrier), reading its stage through a
///    tile.local_index view and refilling the stage the previous one read with the copies
///    of iteration i + stages - 1, one tile.async_commit group per iteration;
///  - other loads are issued one iteration ahead into registers (the first before the loop,
///    when it runs), carried by the loop.
/// With two stages the refill is issued right after the wait (else the copies would be waited
/// for at once), with more after the body. The loop carries its stage index and its
/// prefetched tiles as extra values. Operands of the body's tensor-core dots that come from
/// before the loop are written to shared memory (tile.local_store) once, before the first loop
/// of the region that reads them, and read there. Buffers are released after the last loop
/// using them (tile.local_dealloc).
/// A dot on wgmma reads its stages whole, in the swizzled layout of
/// dot_operand_shared_layout; its MMAs are left in flight while the previous stage is refilled
/// (right after the last such dot of the body is issued), and a tile.dot_wait before the
/// first use of its result finishes it. A dot of two copies on mma.sync is pipelined k-step
/// by k-step, its fragments read ahead (tile.local_load into dot-operand layouts).
Function pipeline_loops(Function f);

/// The stages of a function's pipelined loops: KernelOptions::tile_stages, or the default.
inline constexpr int kDefaultPipelineStages = 3;
int pipeline_stages(const Function& f);

/// Sinking past loops: a pure instruction (reading no tile in shared memory) whose first use
/// in its region comes after a `for` or `while` of that region moves to just before that use,
/// so that its value is not held through the loop; its operands follow it when they have no
/// earlier use either. Nothing moves into or out of a region, and nothing moves earlier.
Function sink_past_loops(Function f);

/// Shared-memory allocation, last: places every buffer the function's ops need
/// (shared_requests in shared_memory.h: layout conversions, permutes, cross-warp reductions
/// and scans, dot operands staged from registers, the stage rings and staged operands of
/// pipelined loops, a kernel's shared_arrays) in one arena, by liveness, as Triton's
/// allocation analysis does. A kernel's shared_arrays go to the bottom, live throughout; in
/// program order, a tile.local_alloc's buffer lives until its tile.local_dealloc and an op's
/// scratch while it runs. Each buffer goes at the lowest aligned offset where it overlaps no
/// live one, so buffers whose lifetimes do not overlap share bytes. Each op's buffers are set
/// in Instruction::shared, the arena's size and the buffers live at its peak in
/// Function::set_shared_plan. Reuse is safe: every op writing a buffer crosses a block
/// barrier first (after the last reads of the bytes' previous user), and a pipelined loop
/// waits for its last copies before its rings are released.
Function allocate_shared(Function f);

/// Dead-code elimination: drops pure ops, loads and unused allocations whose results are
/// never used, to a fixed point. Ops with effects (stores, atomics, barriers, warp
/// collectives, region ops) are kept.
Function dead_code_elimination(Function f);

}  // namespace cutlet::ir
