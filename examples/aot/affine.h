// The struct parameter of the exported kernel `affine`: export_kernels.cpp defines the kernel
// over it, and the generated aot_kernels.h includes this header for its launch function.
#pragma once

namespace aot_example {

/// y = y * scale + shift, elementwise.
struct Affine {
  float scale;
  float shift;
};

}  // namespace aot_example
