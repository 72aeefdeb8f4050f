// The CPU device (Device::cpu()): streams, events, buffers and memory resources in host
// memory, and kernels launched on it with the same calls as on a GPU (per-thread kernels
// with shared memory, barriers and shuffles; tile kernels with dots and epilogues), against
// C++ references on random data with the outputs poisoned first.
#include <gtest/gtest.h>

#include <cutlet/cutlet.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <random>
#include <thread>
#include <vector>

#include "kernel_test_support.h"
#include "runtime/bias_gelu_gemm_kernel.h"

using namespace cutlet;

namespace {

/// n random floats in [lo, hi).
std::vector<float> random_floats(std::size_t n, unsigned seed, float lo = -1.0f, float hi = 1.0f) {
  return test::random_vector<float>(n, seed, lo, hi);
}

TEST(CpuDevice, DescribesItselfAndNeedsNoDriver) {
  const Device cpu = Device::cpu();
  EXPECT_TRUE(cpu.is_cpu());
  EXPECT_EQ(cpu.ordinal(), Device::kCpuOrdinal);
  EXPECT_NE(cpu.name().find("CPU"), std::string::npos);
  EXPECT_GE(cpu.sm_count(), 1);
  EXPECT_EQ(cpu.limits().max_threads_per_block, 1024);
  EXPECT_EQ(cpu.limits().warp_size, 32);
  EXPECT_GT(cpu.total_memory(), 0u);
  EXPECT_EQ(cpu.generation(), 0u);
  EXPECT_FALSE(cpu.poisoned());
  cpu.synchronize();
  EXPECT_THROW(cpu.attribute(1), Error);
}

TEST(CpuDevice, BuffersCopyFillAndFreeInHostMemory) {
  Stream s(Device::cpu());
  EXPECT_TRUE(s.owning());
  EXPECT_TRUE(s.query());
  const auto h = random_floats(1000, 1);
  Buffer<float> a(s, h);
  EXPECT_TRUE(a.device().is_cpu());
  EXPECT_EQ(a.data() % 256, 0u);
  EXPECT_EQ(a.to_host(s), h);
  Buffer<float> b(1000, s);  // stream-ordered, from the CPU device's default pool
  b.copy_from(s, a);
  EXPECT_EQ(b.to_host(s), h);
  EXPECT_EQ(b.host_span()[17], h[17]);
  b.fill_bytes(s, 0);
  EXPECT_EQ(b.to_host(s), std::vector<float>(1000, 0.0f));
  auto pool = std::make_shared<PoolMemoryResource>(Device::cpu());
  {
    Buffer<float> c(256, s, pool);
    EXPECT_EQ(pool->usage().used, 1024u);
  }
  EXPECT_EQ(pool->usage().used, 0u);
  EXPECT_EQ(pool->usage().used_high, 1024u);
  a.free();
  EXPECT_THROW(a.to_host(s), Error);
}

TEST(CpuDevice, StreamsRunTheirWorkInOrderOnThreadsOfTheirOwn) {
  Stream s(Device::cpu());
  std::atomic<bool> release{false};
  std::vector<int> order;
  s.launch_host_function([&] {
    while (!release.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    order.push_back(1);
  });
  Buffer<int> b(s, std::vector<int>(1000, 7));
  b.fill_bytes(s, 0);  // queued behind the blocked host function
  s.launch_host_function([&] { order.push_back(2); });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_FALSE(s.query());
  release = true;
  EXPECT_EQ(b.to_host(s), std::vector<int>(1000, 0));
  EXPECT_EQ(order, (std::vector<int>{1, 2}));
  EXPECT_TRUE(s.query());
}

TEST(CpuDevice, EventsCompleteWhenTheirStreamReachesThemAndTime) {
  Stream s(Device::cpu()), other(Device::cpu());
  Event start(Device::cpu()), stop(Device::cpu());
  std::atomic<bool> release{false};
  s.launch_host_function([&] {
    while (!release.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  });
  start.record(s);
  Buffer<float> b(s, std::vector<float>(1 << 20, 1.0f));
  stop.record(s);
  EXPECT_FALSE(stop.query());
  // `other` waits for `stop`: its copy runs after s's fill of b.
  Buffer<float> c(1 << 20, other);
  other.wait(stop);
  c.copy_from(other, b);
  release = true;
  stop.synchronize();
  EXPECT_TRUE(stop.query());
  EXPECT_GE(Event::elapsed_ms(start, stop), 0.0f);
  EXPECT_EQ(c.to_host(other), std::vector<float>(1 << 20, 1.0f));
  Event untimed(Device::cpu(), false);
  untimed.record(s);
  EXPECT_THROW(Event::elapsed_ms(start, untimed), Error);
}

TEST(CpuDevice, SaxpyLaunchesWithTheSameCall) {
  auto saxpy = kernel([](f32 a, Ptr<float> x, Ptr<float> y, i32 n) {
    i32 i = block_idx().x * block_dim().x + thread_idx().x;
    if_(i < n, [&] { y[i] = a * x[i] + y[i]; });
  }, {.name = "cpu_saxpy"});
  Stream s(Device::cpu());
  const int n = 100003;
  const auto hx = random_floats(n, 2), hy = random_floats(n, 3);
  Buffer<float> x(s, hx), y(s, hy);
  saxpy.launch(s, {.grid = ceil_div(n, 256), .block = 256}, 2.5f, x, y, n);
  const auto out = y.to_host(s);
  for (int i = 0; i < n; ++i) ASSERT_NEAR(out[i], 2.5f * hx[i] + hy[i], 1e-5f) << i;
  ASSERT_TRUE(saxpy.last_specialization());
  EXPECT_TRUE(saxpy.last_specialization()->function.device().is_cpu());
}

TEST(CpuDevice, ABlockReductionWithSharedMemoryBarriersAndShufflesIsExact) {
  auto block_sum = kernel([](Ptr<int> out, Ptr<int> in, i32 n) {
    auto partial = shared_array<int>(32);
    i32 i = block_idx().x * block_dim().x + thread_idx().x;
    Var<int> v = select(i < n, in[min(i, n - 1)], 0);
    for (int o = 16; o > 0; o /= 2) v = v + shfl_down_sync(0xffffffffu, v, o);
    if_(thread_idx().x % 32 == 0, [&] { partial[thread_idx().x / 32] = v; });
    syncthreads();
    if_(thread_idx().x < 32, [&] {
      Var<int> w = select(thread_idx().x < block_dim().x / 32, partial[thread_idx().x], 0);
      for (int o = 16; o > 0; o /= 2) w = w + shfl_down_sync(0xffffffffu, w, o);
      if_(thread_idx().x == 0, [&] { out[block_idx().x] = w; });
    });
  }, {.name = "cpu_block_sum"});
  Stream s(Device::cpu());
  const int n = 50001, blocks = ceil_div(n, 512);
  std::vector<int> h(n);
  std::mt19937 rng(4);
  for (int& v : h) v = static_cast<int>(rng() % 2001) - 1000;
  Buffer<int> in(s, h);
  Buffer<int> out(s, std::vector<int>(blocks, -7));
  block_sum.launch(s, {.grid = blocks, .block = 512}, out, in, n);
  const auto got = out.to_host(s);
  for (int b = 0; b < blocks; ++b) {
    int want = 0;
    for (int i = b * 512; i < std::min(n, (b + 1) * 512); ++i) want += h[i];
    ASSERT_EQ(got[b], want) << "block " << b;
  }
}

TEST(CpuDevice, ABf16MatmulWithABiasAndGeluEpilogueMatchesTheCpp) {
  static constexpr int BM = 32, BN = 64, BK = 32;
  auto gemm = test::bias_gelu_gemm_kernel<BM, BN, BK, bfloat16>("cpu_gelu_gemm");
  Stream s(Device::cpu());
  const int M = 77, N = 130, K = 72;
  auto fa = random_floats(std::size_t(M) * K, 5), fb = random_floats(std::size_t(K) * N, 6), fbias = random_floats(N, 7);
  std::vector<bfloat16> ha(fa.begin(), fa.end()), hb(fb.begin(), fb.end());
  Buffer<bfloat16> a(s, ha), b(s, hb), c(s, std::vector<bfloat16>(std::size_t(M) * N, bfloat16(-9.0f)));
  Buffer<float> bias(s, fbias);
  gemm.launch(s, {.grid = {ceil_div(M, BM), ceil_div(N, BN)}}, tensor(c, {M, N}), tensor(a, {M, K}), tensor(b, {K, N}),
              tensor(bias, {N}));
  const auto got = c.to_host(s);
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double x = fbias[j];
      for (int k = 0; k < K; ++k) x += double(float(ha[i * K + k])) * double(float(hb[k * N + j]));
      const double want = 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)));
      ASSERT_NEAR(float(got[i * N + j]), want, 1e-2 * (1.0 + std::fabs(want))) << i << ", " << j;
    }
}

TEST(CpuDevice, GpuOnlyLaunchFeaturesAreRefusedWithAReason) {
  auto k = kernel([](Ptr<float> y) { y[thread_idx().x] = 1.0f; }, {.name = "cpu_refused"});
  Stream s(Device::cpu());
  Buffer<float> y(32, s);
  try {
    k.launch(s, {.grid = 2, .block = 32, .cluster = 2}, y);
    FAIL() << "a cluster launch on the CPU device did not throw";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("cluster"), std::string::npos) << e.what();
  }
  try {
    k.launch(s, {.grid = 1, .block = 2048}, y);
    FAIL() << "a block of 2048 threads did not throw";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("1024"), std::string::npos) << e.what();
  }
}

TEST(CpuDevice, AKernelFailingOnTheCpuIsReportedAtTheNextSynchronize) {
  auto k = kernel([](Ptr<int> y) {
    assert_(thread_idx().x < 5, "thread index too large");
    y[thread_idx().x] = 1;
  }, {.name = "cpu_assert"});
  Stream s(Device::cpu());
  Buffer<int> y(32, s);
  try {
    k.launch(s, {.grid = 1, .block = 32}, y);
    s.synchronize();
    FAIL() << "a failed assert_ did not throw";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("thread index too large"), std::string::npos) << e.what();
  }
}

}  // namespace
