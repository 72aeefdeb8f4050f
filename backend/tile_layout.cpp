// Tile layouts: register numbering, the default layout, and thread/element coordinates.
#include "tile_layout.h"

#include <algorithm>

#include <llvm/IR/IntrinsicsNVPTX.h>

namespace cutlet::backend {

int TileLayout::regs_along(int d) const {
  if (d == slice_dim) return 1;
  const std::int64_t reps = std::max<std::int64_t>(1, shape[d] / cover(d));
  return static_cast<int>(reps * spt[d]);
}

int TileLayout::num_regs() const {
  int n = 1;
  for (int d = 0; d < rank(); ++d) n *= regs_along(d);
  return n;
}

std::vector<int> TileLayout::reg_indices(int r) const {
  std::vector<int> j(rank(), 0);
  for (int d = rank() - 1; d >= 0; --d) {
    j[d] = r % regs_along(d);
    r /= regs_along(d);
  }
  return j;
}

int TileLayout::reg_of(const std::vector<int>& j) const {
  int r = 0;
  for (int d = 0; d < rank(); ++d) r = r * regs_along(d) + (d == slice_dim ? 0 : j[d]);
  return r;
}

int TileLayout::lane_stride(int d) const {
  int stride = 1;
  for (int o : order) {
    if (o == d) break;
    stride *= tpw[o];
  }
  return stride;
}

int TileLayout::warp_stride(int d) const {
  int stride = 1;
  for (int o : order) {
    if (o == d) break;
    stride *= wpc[o];
  }
  return stride;
}

std::vector<std::int64_t> TileLayout::tile_shape() const {
  std::vector<std::int64_t> s;
  for (int d = 0; d < rank(); ++d)
    if (d != slice_dim) s.push_back(shape[d]);
  return s;
}

TileLayout default_layout(const std::vector<std::int64_t>& shape, int warps, int vec) {
  TileLayout l;
  const int n = static_cast<int>(shape.size());
  l.shape = shape;
  l.spt.assign(n, 1);
  l.tpw.assign(n, 1);
  l.wpc.assign(n, 1);
  for (int d = n - 1; d >= 0; --d) l.order.push_back(d);
  l.spt[n - 1] = static_cast<int>(std::min<std::int64_t>(vec, shape[n - 1]));
  // Lanes fill the fastest dimensions first; what is left repeats along the fastest.
  int lanes = 32;
  for (int d : l.order) {
    const std::int64_t room = std::max<std::int64_t>(1, shape[d] / l.spt[d]);
    l.tpw[d] = static_cast<int>(std::min<std::int64_t>(lanes, room));
    lanes /= l.tpw[d];
  }
  l.tpw[l.order[0]] *= lanes;
  // Warps fill the slowest dimensions first (so row reductions stay inside a warp).
  int left = warps;
  for (int d = 0; d < n; ++d) {
    const std::int64_t room = std::max<std::int64_t>(1, shape[d] / (std::int64_t{l.spt[d]} * l.tpw[d]));
    l.wpc[d] = static_cast<int>(std::min<std::int64_t>(left, room));
    left /= l.wpc[d];
  }
  l.wpc[l.order[0]] *= left;
  return l;
}

TileLayout slice_layout(const TileLayout& parent, int dim) {
  TileLayout l = parent;
  l.slice_dim = dim;
  // The removed extent does not place the slice's elements: slices of parents that differ
  // only there are one layout (a row max of [128, 64] scores scales a [128, 128] accumulator).
  l.shape[static_cast<std::size_t>(dim)] = 1;
  return l;
}

std::vector<llvm::Value*> thread_coords(llvm::IRBuilder<>& b, const TileLayout& l) {
  llvm::Value* tid = b.CreateIntrinsic(llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x, {}, {});
  llvm::Value* lane = b.CreateAnd(tid, 31);
  llvm::Value* warp = b.CreateLShr(tid, 5);
  std::vector<llvm::Value*> coords(l.rank());
  for (int d : l.order) {
    llvm::Value* ld = b.CreateAnd(b.CreateLShr(lane, __builtin_ctz(l.lane_stride(d))), l.tpw[d] - 1);
    llvm::Value* wd = b.CreateAnd(b.CreateLShr(warp, __builtin_ctz(l.warp_stride(d))), l.wpc[d] - 1);
    coords[d] = b.CreateAdd(b.CreateMul(wd, b.getInt32(l.tpw[d])), ld);
  }
  return coords;
}

std::vector<llvm::Value*> element_coords(llvm::IRBuilder<>& b, const TileLayout& l, const std::vector<llvm::Value*>& coords,
                                         int r) {
  const std::vector<int> j = l.reg_indices(r);
  std::vector<llvm::Value*> out;
  for (int d = 0; d < l.rank(); ++d) {
    if (d == l.slice_dim) continue;
    llvm::Value* c = b.CreateAdd(b.CreateMul(coords[d], b.getInt32(l.spt[d])),
                                 b.getInt32(static_cast<std::uint32_t>(l.reg_offset(d, j[d]))));
    out.push_back(b.CreateAnd(c, static_cast<std::uint64_t>(l.shape[d] - 1)));
  }
  return out;
}

}  // namespace cutlet::backend
