// Tile layouts on the machine: thread and element coordinates.
#include "tile_layout.h"

#include "lowering.h"

namespace cutlet::backend {

std::vector<llvm::Value*> thread_coords(LoweringContext& c, const TileLayout& l) {
  auto& b = c.b;
  llvm::Value* tid = special_register(c, ir::SpecialReg::ThreadIdxX);
  llvm::Value* lane = b.CreateAnd(tid, 31);
  llvm::Value* warp = b.CreateLShr(tid, 5);
  std::vector<llvm::Value*> coords(l.rank());
  for (int d : l.order) {
    llvm::Value* ld = b.CreateAnd(b.CreateLShr(lane, __builtin_ctz(l.lane_stride(d))), l.tpw[d] - 1);
    llvm::Value* wd = b.CreateAnd(b.CreateLShr(warp, __builtin_ctz(l.warp_stride(d))), l.wpc[d] - 1);
    coords[d] = b.CreateAdd(b.CreateMul(wd, b.getInt32(l.tpw[d] * l.lane_reps_along(d))), ld);
  }
  return coords;
}

namespace {

/// Register r's coordinate along d before wrapping at the tile's extent.
llvm::Value* unwrapped_coord(llvm::IRBuilder<>& b, const TileLayout& l, llvm::Value* coord, int d, std::int64_t offset) {
  return b.CreateAdd(b.CreateMul(coord, b.getInt32(l.spt[d])), b.getInt32(static_cast<std::uint32_t>(offset)));
}

/// The largest thread coordinate along d that thread_coords gives.
std::int64_t max_thread_coord(const TileLayout& l, int d) {
  return std::int64_t{l.wpc[d] - 1} * l.tpw[d] * l.lane_reps_along(d) + l.tpw[d] - 1;
}

}  // namespace

std::vector<llvm::Value*> element_coords(llvm::IRBuilder<>& b, const TileLayout& l, const std::vector<llvm::Value*>& coords,
                                         int r) {
  const std::vector<int> j = l.reg_indices(r);
  std::vector<llvm::Value*> out;
  for (int d = 0; d < l.rank(); ++d) {
    if (d == l.slice_dim) continue;
    llvm::Value* c = unwrapped_coord(b, l, coords[d], d, l.reg_offset(d, j[d]));
    out.push_back(b.CreateAnd(c, static_cast<std::uint64_t>(l.shape[d] - 1)));
  }
  return out;
}

llvm::Value* holds_first_copy(llvm::IRBuilder<>& b, const TileLayout& l, const std::vector<llvm::Value*>& coords, int r) {
  const std::vector<int> j = l.reg_indices(r);
  llvm::Value* first = nullptr;
  auto both = [&](llvm::Value* p) { first = first ? b.CreateAnd(first, p) : p; };
  for (int d = 0; d < l.rank(); ++d) {
    const std::int64_t max_coord = max_thread_coord(l, d);
    if (d == l.slice_dim) {
      // Every thread along the removed dimension holds the same elements: the first one stores.
      if (max_coord > 0) both(b.CreateICmpEQ(coords[d], b.getInt32(0)));
      continue;
    }
    // Coordinates wrap at the tile's extent; the unwrapped one below it is the first copy.
    // Where even the largest thread coordinate stays below the extent, nothing wraps: no copies.
    const std::int64_t offset = l.reg_offset(d, j[d]);
    if (max_coord * l.spt[d] + offset < l.shape[d]) continue;
    llvm::Value* c = unwrapped_coord(b, l, coords[d], d, offset);
    both(b.CreateICmpULT(c, b.getInt32(static_cast<std::uint32_t>(l.shape[d]))));
  }
  return first;
}

}  // namespace cutlet::backend
