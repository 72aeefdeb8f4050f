// A TileProgram traced into a cutlet tile kernel, and its run on the GPU.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include <cutlet/cutlet.h>

#include "fuzz/tile_program.h"

namespace cutlet::fuzz {

/// The tile kernel lambda of a program (parameters as tile_program.h describes).
struct TileBody {
  std::shared_ptr<const TileProgram> program;

  void operator()(Tensor<float, 2> out, Tensor<float, 1> out_row, Tensor<float, 2> x, Tensor<float, 2> y,
                  Tensor<half, 2> bh, Tensor<bfloat16, 2> bb) const;
};

using TileFuzzKernel = Kernel<TileBody>;

/// The tile kernel of `program` (4 warps, fma contraction off), named tile_kernel_name(p).
TileFuzzKernel make_tile_fuzz_kernel(const TileProgram& program);

/// Launches `p` on `stream` with random non-zero data from `data_seed`, outputs (and 16
/// elements past their ends) poisoned first, and compares with the host reference: exactly
/// where every operation is exact, within the reference's error bound elsewhere, the
/// elements past the ends still poisoned. Empty when all match; else what differed.
std::string run_tile_on_gpu(const TileProgram& p, const Stream& stream, std::uint64_t data_seed);

}  // namespace cutlet::fuzz
