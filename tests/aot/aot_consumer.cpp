// A program that launches kernels compiled ahead of time (export_test_kernels.cpp) through the
// generated aot_test_kernels.h, linked with cutlet::runtime alone. With a GPU it runs both and
// checks their results, printing "cutlet aot consumer: ok"; without one it prints "cutlet aot
// consumer: skipped: needs a GPU" and exits 0.
#include <cstdio>
#include <string>
#include <vector>

#include "aot_test_kernels.h"

namespace {

int fail(const std::string& what) {
  std::printf("cutlet aot consumer: FAILED: %s\n", what.c_str());
  return 1;
}

}  // namespace

int main() {
  if (!cutlet::driver_available()) {
    std::printf("cutlet aot consumer: skipped: needs a GPU (no CUDA driver)\n");
    return 0;
  }
  try {
    cutlet::Device device(0);
    cutlet::Stream s(device);
    const int n = 1000;
    std::vector<float> hx(n), hy(n, 1.0f);
    for (int i = 0; i < n; ++i) hx[i] = static_cast<float>(i);
    cutlet::Buffer<float> x(s, hx), y(s, hy);
    aot_test_kernels::saxpy_f32(s, {.grid = cutlet::ceil_div(n, 256), .block = 256}, 2.0f, x, y, n);
    std::vector<float> r = y.to_host(s);
    for (int i = 0; i < n; ++i)
      if (r[i] != 2.0f * hx[i] + 1.0f) return fail("saxpy_f32: y[" + std::to_string(i) + "] = " + std::to_string(r[i]));

    // Blocks of 256 reverse their slice of v, scaled; the last block's slice is partial, and the
    // masked-off elements past the end read as zeros.
    const int m = 500;
    std::vector<float> hv(m);
    for (int i = 0; i < m; ++i) hv[i] = static_cast<float>(i);
    cutlet::Buffer<float> v(s, hv), w(m, device);
    aot_test_kernels::reverse_scaled(s, {.grid = cutlet::ceil_div(m, 256)}, cutlet::tensor(w, {m}),
                                     cutlet::tensor(v, {m}));
    r = w.to_host(s);
    for (int i = 0; i < m; ++i) {
      const int j = i / 256 * 256 + 255 - i % 256;
      if (r[i] != (j < m ? 3.0f * hv[j] : 0.0f))
        return fail("reverse_scaled: w[" + std::to_string(i) + "] = " + std::to_string(r[i]));
    }
    const cutlet::aot::Image& image = aot_test_kernels::reverse_scaled_kernel().image(device);
    std::printf("cutlet aot consumer: ok (ran on %s, sm_%d, from the %s for sm_%d; reverse_scaled has %d bytes of "
                "its own shared memory)\n",
                device.name().c_str(), device.compute_capability().sm(),
                image.kind == cutlet::aot::ImageKind::cubin ? "cubin" : "PTX", image.sm, image.dynamic_shared_bytes);
  } catch (const cutlet::Error& e) {
    return fail(e.what());
  }
  return 0;
}
