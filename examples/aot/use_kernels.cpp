// Launches the kernels export_kernels.cpp compiled ahead of time: it includes the generated
// aot_kernels.h and links the generated library, which needs cutlet::runtime alone (no LLVM, no
// nvJitLink, no kernel language), and checks every result against the CPU. Without a GPU it
// says that it needs one and exits 0.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "aot_kernels.h"

namespace {

int failures = 0;

void check(bool ok, const std::string& what) {
  std::printf("%s: %s\n", ok ? "ok" : "FAILED", what.c_str());
  if (!ok) ++failures;
}

void run_saxpy(const cutlet::Stream& s) {
  const int n = 100000;
  std::vector<float> hx(n), hy(n, 1.0f);
  std::vector<double> dx(n), dy(n, 1.0);
  for (int i = 0; i < n; ++i) hx[i] = static_cast<float>(i % 1000), dx[i] = i % 1000;
  cutlet::Buffer<float> x(s, hx), y(s, hy);
  cutlet::Buffer<double> x64(s, dx), y64(s, dy);
  aot_kernels::saxpy_f32(s, {.grid = cutlet::ceil_div(n, 256), .block = 256}, 2.0f, x, y, n);
  aot_kernels::saxpy_f64(s, {.grid = cutlet::ceil_div(n, 256), .block = 256}, 2.0, x64, y64, n);
  const std::vector<float> ry = y.to_host(s);
  const std::vector<double> ry64 = y64.to_host(s);
  bool ok = true;
  for (int i = 0; i < n; ++i) ok = ok && ry[i] == 2.0f * hx[i] + 1.0f && ry64[i] == 2.0 * dx[i] + 1.0;  // exact
  check(ok, "saxpy_f32 and saxpy_f64 (per-thread kernels, " + std::to_string(n) + " elements)");
}

void run_affine(const cutlet::Stream& s) {
  const int n = 5000;
  std::vector<float> h(n);
  for (int i = 0; i < n; ++i) h[i] = static_cast<float>(i);
  cutlet::Buffer<float> y(s, h);
  aot_kernels::affine(s, {.grid = cutlet::ceil_div(n, 128), .block = 128}, aot_example::Affine{0.5f, 3.0f}, y, n);
  const std::vector<float> r = y.to_host(s);
  bool ok = true;
  for (int i = 0; i < n; ++i) ok = ok && r[i] == h[i] * 0.5f + 3.0f;
  check(ok, "affine (a struct passed by value)");
}

/// The largest error of out against softmax(in) by rows of `cols`.
double softmax_error(const std::vector<float>& in, const std::vector<float>& out, int rows, int cols) {
  double worst = 0;
  for (int i = 0; i < rows; ++i) {
    const float* x = &in[std::size_t(i) * cols];
    double m = -INFINITY, sum = 0;
    for (int j = 0; j < cols; ++j) m = std::max<double>(m, x[j]);
    for (int j = 0; j < cols; ++j) sum += std::exp(x[j] - m);
    for (int j = 0; j < cols; ++j)
      worst = std::max(worst, std::fabs(out[std::size_t(i) * cols + j] - std::exp(x[j] - m) / sum));
  }
  return worst;
}

void run_softmax(const cutlet::Stream& s) {
  for (const int cols : {1000, 1024}) {
    const int rows = 320;
    std::vector<float> h(std::size_t(rows) * cols);
    for (std::size_t i = 0; i < h.size(); ++i) h[i] = static_cast<float>((i * 7919) % 1000) / 100.0f - 5.0f;
    cutlet::Buffer<float> in(s, h), out(h.size(), s.device());
    const auto tin = cutlet::tensor(in, {rows, cols});
    const auto tout = cutlet::tensor(out, {rows, cols});
    if (cols % 16 == 0) {
      aot_kernels::softmax_1024_aligned(s, {.grid = rows}, tout, tin);
    } else {
      aot_kernels::softmax_1024(s, {.grid = rows}, tout, tin);
      // The aligned specialization assumes extents divisible by 16: this tensor is refused.
      bool refused = false;
      try {
        aot_kernels::softmax_1024_aligned(s, {.grid = rows}, tout, tin);
      } catch (const cutlet::Error& e) {
        refused = std::string(e.what()).find("shape[1] % 16 == 0") != std::string::npos;
      }
      check(refused, "softmax_1024_aligned refuses a " + std::to_string(cols) + "-column tensor");
    }
    const double worst = softmax_error(h, out.to_host(s), rows, cols);
    check(worst < 1e-6, std::string(cols % 16 == 0 ? "softmax_1024_aligned" : "softmax_1024") + " (a tile kernel, " +
                            std::to_string(rows) + " x " + std::to_string(cols) + "): largest error " +
                            std::to_string(worst));
  }
}

void run_matmul(const cutlet::Stream& s) {
  const int M = 512, N = 384, K = 640;  // multiples of 16: the tensors have every fact
  std::vector<cutlet::bfloat16> ha(std::size_t(M) * K), hb(std::size_t(K) * N);
  for (std::size_t i = 0; i < ha.size(); ++i) ha[i] = cutlet::bfloat16(static_cast<float>(int(i * 31 % 5) - 2));
  for (std::size_t i = 0; i < hb.size(); ++i) hb[i] = cutlet::bfloat16(static_cast<float>(int(i * 17 % 5) - 2));
  cutlet::Buffer<cutlet::bfloat16> a(s, ha), b(s, hb);
  cutlet::Buffer<float> c(std::size_t(M) * N, s.device());
  aot_kernels::matmul_bf16(s, {.grid = {cutlet::ceil_div(M, 128), cutlet::ceil_div(N, 128)}},
                           cutlet::tensor(c, {M, N}), cutlet::tensor(a, {M, K}), cutlet::tensor(b, {K, N}));
  const std::vector<float> r = c.to_host(s);
  bool ok = true;
  for (int i = 0; i < M && ok; ++i)
    for (int j = 0; j < N && ok; ++j) {
      float want = 0;  // small integers: exact in bf16 and in the f32 sums
      for (int k = 0; k < K; ++k) want += float(ha[std::size_t(i) * K + k]) * float(hb[std::size_t(k) * N + j]);
      ok = r[std::size_t(i) * N + j] == want;
    }
  const int shared = aot_kernels::matmul_bf16_kernel().image(s.device()).dynamic_shared_bytes;
  check(ok, "matmul_bf16 (tensor cores, " + std::to_string(shared) + " bytes of its own dynamic shared memory" +
                (shared > 48 * 1024 ? ", opted in past 48 KiB" : "") + ")");
}

}  // namespace

int main() {
  if (!cutlet::driver_available()) {
    std::printf("use_kernels: needs a GPU (no CUDA driver found); the kernels are compiled into this program "
                "already\n");
    return 0;
  }
  cutlet::Device device(0);
  cutlet::Stream s(device);
  const cutlet::aot::Image& image = aot_kernels::saxpy_f32_kernel().image(device);
  std::printf("use_kernels: %s (sm_%d) runs the %s for sm_%d\n", device.name().c_str(), device.compute_capability().sm(),
              image.kind == cutlet::aot::ImageKind::cubin ? "cubin" : "PTX", image.sm);
  try {
    run_saxpy(s);
    run_affine(s);
    run_softmax(s);
    run_matmul(s);
  } catch (const cutlet::Error& e) {
    std::printf("FAILED: %s\n", e.what());
    return 1;
  }
  if (failures) {
    std::printf("FAILED: %d checks\n", failures);
    return 1;
  }
  std::printf("OK\n");
  return 0;
}
