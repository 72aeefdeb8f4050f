// The thread's position in the launch: thread, block and grid indices.
#pragma once

#include "cutlet/language/value.h"

namespace cutlet {

/// Three traced i32 coordinates.
struct Index3 {
  i32 x, y, z;
};

namespace detail {
inline Index3 special3(ir::SpecialReg first) {
  auto& b = builder("reading a thread index");
  auto reg = [&](int k) { return i32::wrap(b.special(static_cast<ir::SpecialReg>(static_cast<int>(first) + k))); };
  return Index3{reg(0), reg(1), reg(2)};
}
}  // namespace detail

/// This thread's index within its block (CUDA threadIdx), each 0 <= . < block_dim().
inline Index3 thread_idx() { return detail::special3(ir::SpecialReg::ThreadIdxX); }
/// The block's dimensions (CUDA blockDim).
inline Index3 block_dim() { return detail::special3(ir::SpecialReg::BlockDimX); }
/// This block's index within the grid (CUDA blockIdx).
inline Index3 block_idx() { return detail::special3(ir::SpecialReg::BlockIdxX); }
/// The grid's dimensions in blocks (CUDA gridDim).
inline Index3 grid_dim() { return detail::special3(ir::SpecialReg::GridDimX); }

}  // namespace cutlet
