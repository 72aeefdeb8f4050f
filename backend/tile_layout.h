// Internal: how a tile's elements are spread over a block's threads and their registers.
//
// A blocked layout gives each thread `spt[d]` consecutive elements along dimension d, lays
// `tpw[d]` threads of a warp and `wpc[d]` warps of the block side by side along d, and
// repeats that pattern until the tile's extent is covered; where the pattern is larger than
// the extent, threads hold copies (coordinates wrap). A slice layout is the layout of a
// reduction's result: its parent's layout with one dimension removed, each value held by
// every thread that held an element of its row. A thread's elements are an LLVM vector of
// registers, numbered row-major over the per-dimension register indices.
#pragma once

#include <cstdint>
#include <vector>

#include <llvm/IR/IRBuilder.h>

namespace cutlet::backend {

struct TileLayout {
  std::vector<std::int64_t> shape;  ///< for a slice layout, the parent's with 1 along the removed dimension
  std::vector<int> spt, tpw, wpc;   ///< per dimension: size per thread, threads per warp, warps
  std::vector<int> order;           ///< dimensions, fastest varying first
  int slice_dim = -1;               ///< >= 0: this is the slice without that dimension

  bool operator==(const TileLayout&) const = default;
  int rank() const { return static_cast<int>(shape.size()); }
  bool is_slice() const { return slice_dim >= 0; }
  /// The elements one thread's layout pattern covers along d.
  std::int64_t cover(int d) const { return std::int64_t{spt[d]} * tpw[d] * wpc[d]; }
  /// Registers along dimension d (1 for a slice's removed dimension).
  int regs_along(int d) const;
  /// Registers per thread.
  int num_regs() const;
  /// The per-dimension register indices of register r (0 along a slice's removed dimension).
  std::vector<int> reg_indices(int r) const;
  /// The register of per-dimension indices `j` (the removed dimension's index is ignored).
  int reg_of(const std::vector<int>& j) const;
  /// The coordinate offset of register index j along d, before adding the thread's part.
  std::int64_t reg_offset(int d, int j) const { return (j / spt[d]) * cover(d) + j % spt[d]; }
  /// Where dimension d's part of a lane (or warp) number starts: the product of the lanes
  /// (warps) of the dimensions before it in `order`.
  int lane_stride(int d) const;
  int warp_stride(int d) const;
  /// The tile shape this layout is for (the parent's shape less the removed dimension).
  std::vector<std::int64_t> tile_shape() const;
};

/// The layout cutlet gives a tile of `shape` in a block of `warps` warps: 4 consecutive
/// elements per thread along the last dimension (16-byte accesses for 4-byte elements),
/// lanes along the last dimensions, warps along the first ones.
/// `vec` (a power of two) sets the elements per thread along the last dimension instead.
TileLayout default_layout(const std::vector<std::int64_t>& shape, int warps, int vec = 4);

/// `parent` with dimension `dim` removed (the layout of a reduction along `dim`); its shape
/// keeps the parent's other extents and has 1 along `dim`.
TileLayout slice_layout(const TileLayout& parent, int dim);

/// The thread's position along each dimension of a layout's pattern (warp * tpw + lane), as
/// i32 values computed from %tid.x.
std::vector<llvm::Value*> thread_coords(llvm::IRBuilder<>& b, const TileLayout& l);

/// The coordinates of register r of a thread at `coords` (from thread_coords), as i32 values,
/// one per dimension of the tile (a slice's removed dimension is left out).
std::vector<llvm::Value*> element_coords(llvm::IRBuilder<>& b, const TileLayout& l, const std::vector<llvm::Value*>& coords,
                                         int r);

}  // namespace cutlet::backend
