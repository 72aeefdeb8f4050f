// Differential runs: the same kernels launched on the CPU device and on GPU 0, with the same
// random inputs, give the same results (bit for bit where the arithmetic is exact or
// correctly rounded, within the dot's summation-order tolerance for tile dots).
#include <gtest/gtest.h>

#include <cutlet/algorithms.h>
#include <cutlet/cutlet.h>

#include <cmath>
#include <random>
#include <vector>

#include "gpu_test_support.h"
#include "kernel_test_support.h"
#include "runtime/bias_gelu_gemm_kernel.h"

using namespace cutlet;

namespace {

/// n random floats in [-2, 2).
std::vector<float> random_floats(std::size_t n, unsigned seed) { return test::random_vector<float>(n, seed, -2.0f, 2.0f); }

/// Runs `body(stream)` on the CPU device and on GPU 0 and returns both results.
template <class Body>
auto on_both(Body body) {
  Stream cpu(Device::cpu()), gpu(Device(0));
  return std::make_pair(body(cpu), body(gpu));
}

TEST(CpuGpuDifferential, ElementwiseMathAndConversionsAgreeBitForBit) {
  CUTLET_REQUIRE_CUDA("a GPU to compare the CPU device with");
  auto k = kernel([](Ptr<float> out, Ptr<bfloat16> out16, Ptr<float> x, i32 n) {
    i32 i = block_idx().x * block_dim().x + thread_idx().x;
    if_(i < n, [&] {
      f32 v = x[i];
      out[i] = v * 0.5f + sqrt(abs(v)) - floor(v * 3.0f);
      out16[i] = cast<bfloat16>(v * 1e-38f);  // subnormal f32s rounded to bf16
    });
  }, {.name = "differential_elementwise", .fma_contraction = false});
  const int n = 100003;
  const auto hx = random_floats(n, 11);
  auto [c, g] = on_both([&](Stream& s) {
    Buffer<float> x(s, hx), out(n, s.device());
    Buffer<bfloat16> out16(n, s.device());
    k.launch(s, {.grid = ceil_div(n, 256), .block = 256}, out, out16, x, n);
    return std::make_pair(out.to_host(s), out16.to_host(s));
  });
  for (int i = 0; i < n; ++i) {
    ASSERT_EQ(std::bit_cast<std::uint32_t>(c.first[i]), std::bit_cast<std::uint32_t>(g.first[i])) << i;
    ASSERT_EQ(c.second[i].bits, g.second[i].bits) << i;
  }
}

TEST(CpuGpuDifferential, AGeluGemmTileKernelAgrees) {
  CUTLET_REQUIRE_CUDA("a GPU to compare the CPU device with");
  static constexpr int BM = 64, BN = 64, BK = 32;
  auto gemm = test::bias_gelu_gemm_kernel<BM, BN, BK, float>("differential_gelu_gemm");
  const int M = 150, N = 131, K = 96;
  const auto fa = random_floats(std::size_t(M) * K, 12), fb = random_floats(std::size_t(K) * N, 13), fbias = random_floats(N, 14);
  const std::vector<bfloat16> ha(fa.begin(), fa.end()), hb(fb.begin(), fb.end());
  auto [c, g] = on_both([&](Stream& s) {
    Buffer<bfloat16> a(s, ha), b(s, hb);
    Buffer<float> bias(s, fbias), out(s, std::vector<float>(std::size_t(M) * N, -7.0f));
    gemm.launch(s, {.grid = {ceil_div(M, BM), ceil_div(N, BN)}}, tensor(out, {M, N}), tensor(a, {M, K}), tensor(b, {K, N}),
                tensor(bias, {N}));
    return out.to_host(s);
  });
  for (std::size_t i = 0; i < c.size(); ++i) ASSERT_NEAR(c[i], g[i], 1e-4f * (1.0f + std::fabs(g[i]))) << i;
}

TEST(CpuGpuDifferential, AScanWithALookBackAgrees) {
  CUTLET_REQUIRE_CUDA("a GPU to compare the CPU device with");
  const int n = 1000003;
  std::vector<int> h(n);
  std::mt19937 rng(15);
  for (int& v : h) v = static_cast<int>(rng() % 201) - 100;
  auto [c, g] = on_both([&](Stream& s) {
    Buffer<int> in(s, h), out(n, s.device());
    algorithms::inclusive_scan(s, in, out, algorithms::plus{});
    return out.to_host(s);
  });
  EXPECT_EQ(c, g);
}

TEST(CpuGpuDifferential, BuffersTheOtherSideCannotReadAreRefusedAtLaunch) {
  CUTLET_REQUIRE_CUDA("a GPU beside the CPU device");
  auto k = kernel([](Ptr<int> y) { y[thread_idx().x] = 3; }, {.name = "reads_one_side"});
  Stream gpu(Device(0)), cpu(Device::cpu());
  Buffer<int> on_cpu(32, cpu), on_gpu(32, gpu);
  EXPECT_NE(test::message_of([&] { k.launch(gpu, {.grid = 1, .block = 32}, on_cpu); }).find("Buffer of the CPU device"),
            std::string::npos);
  EXPECT_NE(test::message_of([&] { k.launch(cpu, {.grid = 1, .block = 32}, on_gpu); }).find("which the CPU cannot read"),
            std::string::npos);
  // Managed memory is the GPU's and the host's: the CPU device's kernels use it in place.
  Buffer<int> managed(32, std::make_shared<ManagedMemoryResource>(Device(0)));
  k.launch(cpu, {.grid = 1, .block = 32}, managed);
  cpu.synchronize();
  EXPECT_EQ(managed.to_host(gpu), std::vector<int>(32, 3));
}

}  // namespace
