// Internal: helpers shared by the tile-op lowering files (lower_tile*.cpp).
#pragma once

#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include <llvm/IR/GlobalVariable.h>

#include "lowering.h"
#include "cutlet/ir/tile_dot.h"

namespace cutlet::backend {

using ir::DotShape;
using ir::dot_shape;
using ir::dot_uses_mma;

/// The layout of tile value v (set when v was lowered).
const TileLayout& layout_of(LoweringContext& c, ir::ValueId v);
/// The registers of a thread's tile vector, and a vector from registers.
std::vector<llvm::Value*> unpack(LoweringContext& c, llvm::Value* v);
llvm::Value* pack(LoweringContext& c, llvm::Type* elem, const std::vector<llvm::Value*>& regs);
/// The next shared-memory buffer of the op being lowered, of `count` elements (see
/// take_shared): live while the op runs, reused by later ops (which cross a barrier before
/// writing).
llvm::Value* shared_buffer(LoweringContext& c, llvm::Type* elem, std::int64_t count);
/// The 32-bit shared-window address of shared-memory pointer `p`, for inline PTX.
llvm::Value* shared_address(LoweringContext& c, llvm::Value* p);
/// bar.sync 0.
void barrier(LoweringContext& c);
/// The row-major linear index of `coords` in `shape` (i32).
llvm::Value* linear(LoweringContext& c, const std::vector<llvm::Value*>& coords, const std::vector<std::int64_t>& shape);
/// The one way tiles move through shared memory: registers `v` of layout `from` are written
/// at their row-major positions (in from's tile shape) to the op's next shared buffer, and
/// each register of layout `to` reads the position `source_of` gives for its coordinates; a
/// barrier before the writes and one before the reads.
llvm::Value* through_shared(LoweringContext& c, llvm::Value* v, const TileLayout& from, const TileLayout& to,
                            const std::function<llvm::Value*(const std::vector<llvm::Value*>&)>& source_of);
/// Emits `write` for register r of a tile in layout `l` (the thread at `coords`) only in the
/// thread that holds the element's first copy (holds_first_copy): writes of the same shared
/// address by copies race, even with equal values.
void write_first_copy(LoweringContext& c, const TileLayout& l, const std::vector<llvm::Value*>& coords, int r,
                      const std::function<void()>& write);
/// Registers `v` of layout `from` moved to layout `to` (same tile shape) through shared memory.
llvm::Value* relayout(LoweringContext& c, llvm::Value* v, const TileLayout& from, const TileLayout& to);

/// A shared-memory buffer (the next of the op being lowered) for operand k (0: a, 1: b)
/// of tensor-core dot `dot`, laid out as the dot's fragment reads want it.
LoweringContext::SharedTile dot_operand_buffer(LoweringContext& c, const ir::Instruction& dot, int k);
/// The registers of a tile in dot-operand layout `l` (layout.h) of `elem`s, read from shared
/// memory at `base` (the tile as rows of `stride` elements): its mma fragments, k-step by
/// k-step, with ldmatrix for 16-bit types and word by word for tf32.
std::vector<llvm::Value*> load_dot_fragments(LoweringContext& c, const ir::Layout& l, ir::Type elem, llvm::Value* base,
                                              std::int64_t stride);
/// Writes the registers of tile value v (2-D) to `buf` as rows of `stride` elements.
void store_tile(LoweringContext& c, ir::ValueId v, llvm::Value* buf, llvm::Type* elem, std::int64_t stride);
/// Writes the registers of tile value v (2-D) to `buf`, a tile in shared layout `shared`
/// (padded rows or swizzled).
void store_tile(LoweringContext& c, ir::ValueId v, llvm::Value* buf, const ir::Layout& shared);
/// The byte offset (i32) of element `coords` (i32, row and column) in a 2-D tile of
/// `elem_bytes`-byte elements in shared layout `l`: rows of strides[0] elements, or the
/// swizzled blocks of ir::swizzled_offset (the buffer aligned to 1024 bytes).
llvm::Value* shared_tile_offset(LoweringContext& c, const ir::Layout& l, const std::vector<llvm::Value*>& coords, int elem_bytes);
/// fence.proxy.async.shared::cta: this thread's shared-memory writes so far are seen by the
/// asynchronous proxy (wgmma's and TMA's reads) once a barrier orders them.
void fence_proxy_async(LoweringContext& c);
/// Tensor-core dot `inst` on wgmma (its result in a wgmma layout; lower_tile_wgmma.cpp).
llvm::Value* lower_dot_wgmma(LoweringContext& c, const ir::Instruction& inst);
/// tile.dot_wait: wgmma.wait_group, the accumulator's registers passed through it.
llvm::Value* lower_dot_wait(LoweringContext& c, const ir::Instruction& inst);

/// Tile x in a blocked layout: its own, or (for a slice) the default one for its shape.
llvm::Value* blocked(LoweringContext& c, ir::ValueId x, TileLayout* out);
/// a combined with b by builtin reduction `kind` over elements of type t (scalars or vectors).
llvm::Value* reduce_combine(LoweringContext& c, ir::ReduceKind kind, ir::Type t, llvm::Value* a, llvm::Value* b);
/// A tuple of values (one per tile a reduction or scan combines), and a combine of two.
using Tuple = std::vector<llvm::Value*>;
using Combine = std::function<Tuple(const Tuple& left, const Tuple& right)>;
/// The combine region of tile.reduce_with or tile.scan `inst`, inlined at each call.
Combine region_combine(LoweringContext& c, const ir::Instruction& inst);
/// How many lanes, and how many warps, hold distinct elements along k of a tile in layout
/// l: what a reduction along k combines across threads (1 and 1: within each thread).
std::pair<std::int64_t, std::int64_t> reduce_lanes_and_warps(const TileLayout& l, int k);
/// Lowers region `r` inline with `args` as its arguments; returns its yielded values.
std::vector<llvm::Value*> inline_region(LoweringContext& c, const ir::Region& r, const std::vector<llvm::Value*>& args);

}  // namespace cutlet::backend
