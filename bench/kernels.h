// The cutlet kernels the benchmarks run: saxpy, and saxpy plus a frozen host constant.
#pragma once

#include <cutlet/cutlet.h>

namespace cutlet::bench {

/// y[i] = a*x[i] + y[i] for i < n, one element per thread: the same program as the
/// `saxpy` kernel of baseline_kernels.cu.
inline auto make_saxpy() {
  return kernel(
      [](f32 a, Ptr<float> x, Ptr<float> y, i32 n) {
        i32 i = block_idx().x * block_dim().x + thread_idx().x;
        if_(i < n, [&] { y[i] = a * x[i] + y[i]; });
      },
      {.name = "saxpy"});
}
/// The type of make_saxpy()'s kernel, for holding one in a struct.
using SaxpyKernel = decltype(make_saxpy());

/// y[i] = a*x[i] + y[i] + k for i < n. The host int `k` is frozen into the kernel as a
/// constant when it is traced, so every k gives different IR and PTX: a kernel that no
/// cache (cutlet's, nvJitLink's, the driver's) has seen. Keep |k| below 2^24 so that
/// distinct k stay distinct floats.
inline auto make_offset_saxpy(int k) {
  return kernel(
      [k](f32 a, Ptr<float> x, Ptr<float> y, i32 n) {
        i32 i = block_idx().x * block_dim().x + thread_idx().x;
        if_(i < n, [&] { y[i] = a * x[i] + y[i] + static_cast<float>(k); });
      },
      {.name = "saxpy_offset"});
}
/// The type of make_offset_saxpy()'s kernels (one type for every k).
using OffsetSaxpyKernel = decltype(make_offset_saxpy(0));

}  // namespace cutlet::bench
