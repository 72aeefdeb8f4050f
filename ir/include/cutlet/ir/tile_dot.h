// The shape rules of tile.dot: its extents, its transposed operands, and when it runs on
// tensor cores (what the layout pass and the backend both decide by).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "cutlet/ir/function.h"
#include "cutlet/ir/layout.h"

namespace cutlet::ir {

/// The extents of tile.dot `dot`, [M, K] @ [K, N], and which operands it reads transposed
/// (a given as [K, M], b as [N, K]; see DotTransposed).
struct DotShape {
  std::int64_t m, n, k;
  bool a_transposed, b_transposed;
  bool transposed(int operand) const { return operand == 0 ? a_transposed : b_transposed; }
};
DotShape dot_shape(const Function& fn, const Instruction& dot);

/// Whether tile.dot `dot` runs on tensor cores (mma.sync) on `warps` warps: 16-bit operands,
/// or f32 ones with tf32 allowed; M a multiple of 16 and N of 8 per warp (mma_layout); K a
/// multiple of 16 (8 for tf32). FP8 dots run on tensor cores only on wgmma (dot_uses_wgmma;
/// upcast-fp8-dots makes the others f16 dots). Other dots are computed with FMAs.
bool dot_uses_mma(const Function& fn, const Instruction& dot, int warps);

/// Whether tile.dot `dot` runs on Hopper's warpgroup MMA on `warps` warps: the function may
/// use it (Function::tile_wgmma, an sm_90a target), f16 or bf16 operands, whole warpgroups
/// with 16 rows of M per warp (wgmma_layout), N a multiple of 8 up to 256 or a multiple of
/// 256, K a multiple of 16, and an operand whose rows run along M or N at least 16 wide; or
/// FP8 operands (either format on either side) held K-major (a as [M, K], b transposed as
/// [N, K]) with K a multiple of 32. Such dots read a and b from swizzled shared memory
/// (dot_operand_shared_layout).
bool dot_uses_wgmma(const Function& fn, const Instruction& dot, int warps);

/// The accumulator layout of tensor-core dot `dot`: wgmma's when dot_uses_wgmma, else
/// mma.sync's (mma_layout, `whole_rows` as there); nullopt for an FMA dot.
std::optional<Layout> dot_acc_layout(const Function& fn, const Instruction& dot, int warps, bool whole_rows);

/// The shared layout operand k (0: a, 1: b) of tensor-core dot `dot` is read from, for a tile
/// of `shape` (the operand as the dot is given it, [rows, cols]): for wgmma the swizzled
/// layout of its rows (the widest of 128, 64 and 32 bytes that the rows are a multiple of),
/// else rows padded by dot_operand_stride.
Layout dot_operand_shared_layout(const Function& fn, const Instruction& dot, int k, const std::vector<std::int64_t>& shape);

/// A ring of `stages` of dot operand tiles in shared layout `stage` (as made by
/// dot_operand_shared_layout): stages of whole 128-byte lines, 1024 bytes for swizzled ones
/// (the hardware's swizzle repeats every 1024 bytes at most).
Layout dot_operand_ring_layout(const Layout& stage, int stages, int elem_bytes);

/// Whether value v (a wgmma dot's result) is the source of a tile.dot_wait: the dot then
/// leaves its MMAs in flight for the wait to finish.
bool feeds_dot_wait(const Function& fn, ValueId v);

/// Whether tensor-core dot `dot` (laid out: its result in an mma layout) reads its a
/// fragments straight from a's registers: a 16-bit a (not FP8 or tf32), not transposed, in
/// registers (not in shared memory, not fragments already), held as mma accumulators are
/// ([1, 2] per thread, 8 x 4 lanes, the warps split M alone, as many as the result's), or,
/// for a dot on wgmma, in the wgmma layout of the result's rows and warps. Otherwise a is
/// read from shared memory (staged there when it is in registers).
bool dot_a_from_registers(const Function& fn, const Instruction& dot);

/// The row stride, in elements, of a tensor-core dot operand held in shared memory as rows
/// of `cols` elements of `elem` (`along_k`: its rows run along K, as a [M, K] a or a
/// transposed b [N, K]; otherwise along M or N): rows are padded so that the fragment reads
/// of a warp hit distinct banks.
std::int64_t dot_operand_stride(bool along_k, std::int64_t cols, Type elem);

}  // namespace cutlet::ir
