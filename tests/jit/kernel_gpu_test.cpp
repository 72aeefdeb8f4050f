// Kernels launched on the GPU and checked against a CPU reference: random inputs, sizes that
// are not multiples of the block, outputs poisoned before each launch.
#include <gtest/gtest.h>

#include <cutlet/cutlet.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <thread>
#include <vector>

#include "gpu_test_support.h"
#include "kernel_test_support.h"

using namespace cutlet;
using namespace cutlet::test;

namespace {

/// Kernels compiled or read from the disk cache since `before`: the specializations made
/// (the suite's processes share compiled kernels on disk).
std::uint64_t made_since(const CacheStats& before) {
  const CacheStats now = cache_stats();
  return now.compiles + now.disk_hits - before.compiles - before.disk_hits;
}

auto make_saxpy() {
  return kernel(
      [](f32 a, Ptr<float> x, Ptr<float> y, i32 n) {
        i32 i = block_idx().x * block_dim().x + thread_idx().x;
        if_(i < n, [&] { y[i] = a * x[i] + y[i]; });
      },
      {.name = "saxpy_test"});
}

TEST(KernelGpu, SaxpyMatchesCpuOnOddSizes) {
  CUTLET_REQUIRE_GPU();
  auto saxpy = make_saxpy();
  Stream s;
  for (int n : {1, 255, 257, 1000003}) {
    auto hx = random_vector<float>(n, 1 + n, -10.0f, 10.0f);
    auto hy = random_vector<float>(n, 2 + n, -10.0f, 10.0f);
    Buffer<float> x(s, hx), y(s, hy);
    const float a = -1.75f;
    saxpy.launch(s, {.grid = ceil_div(n, 128), .block = 128}, a, x, y, n);
    auto out = y.to_host(s);
    for (int i = 0; i < n; ++i) ASSERT_NEAR(out[i], std::fma(a, hx[i], hy[i]), 1e-5f * (1 + std::fabs(hy[i]))) << i;
  }
}

TEST(KernelGpu, CompilesForTheDevicesArchitectureSm90aOnHopper) {
  CUTLET_REQUIRE_GPU();
  auto saxpy = make_saxpy();
  Stream s;
  const Device d = s.device();
  Buffer<float> x(s, std::vector<float>(64, 1.0f)), y(s, std::vector<float>(64, 2.0f));
  auto compiled = saxpy.compile_for(d, 3.0f, x, y, 64);
  if (d.is_cpu()) {
    // The CPU device's code is the host's: LLVM IR for the host's triple, no PTX.
    EXPECT_TRUE(compiled->ptx.empty());
#if defined(__x86_64__)
    EXPECT_NE(compiled->llvm_ir_opt.find("target triple = \"x86_64"), std::string::npos) << compiled->llvm_ir_opt;
#elif defined(__aarch64__)
    EXPECT_NE(compiled->llvm_ir_opt.find("target triple = \"aarch64"), std::string::npos) << compiled->llvm_ir_opt;
#endif
  } else {
    const std::string want = Target::for_device(d.compute_capability().sm()).arch();
    EXPECT_NE(compiled->ptx.find(".target " + want + "\n"), std::string::npos) << want;
    if (d.compute_capability().sm() == 90) {
      EXPECT_EQ(want, "sm_90a");
    }
  }
  // The launch uses that specialization, and it runs.
  saxpy.launch(s, {.grid = 1, .block = 64}, 3.0f, x, y, 64);
  for (float v : y.to_host(s)) EXPECT_EQ(v, 5.0f);
}

TEST(KernelGpu, GuardLeavesElementsPastTheEndUntouched) {
  CUTLET_REQUIRE_GPU();
  auto saxpy = make_saxpy();
  Stream s;
  const int n = 1000, padded = 1024;
  auto hx = random_vector<float>(padded, 3, 1.0f, 2.0f);
  Buffer<float> x(s, hx);
  auto y = poisoned<float>(s, padded);
  saxpy.launch(s, {.grid = 8, .block = 128}, 0.0f, x, y, n);  // 1024 threads, n = 1000
  auto out = y.to_host(s);
  std::uint32_t poison;
  std::memset(&poison, 0xCD, 4);
  for (int i = n; i < padded; ++i) {
    std::uint32_t bits;
    std::memcpy(&bits, &out[i], 4);
    EXPECT_EQ(bits, poison) << "element " << i << " past n was written";
  }
}

TEST(KernelGpu, IntegerOperatorsMatchCpu) {
  CUTLET_REQUIRE_GPU();
  auto ops = kernel(
      [](Ptr<std::int32_t> out, Ptr<std::int32_t> a, Ptr<std::int32_t> b, Ptr<std::uint32_t> ua,
         Ptr<std::uint32_t> ub, Ptr<std::int64_t> wide, i32 n) {
        i32 i = block_idx().x * block_dim().x + thread_idx().x;
        if_(i < n, [&] {
          i32 x = a[i], y = b[i];
          u32 ux = ua[i], uy = ub[i];
          i32 k = i * 9;
          out[k + 0] = x + y;
          out[k + 1] = x - y;
          out[k + 2] = x / y;
          out[k + 3] = x % y;
          out[k + 4] = (x & y) ^ (x | 7);
          out[k + 5] = (x >> 3) + (y << 2);
          out[k + 6] = cast<std::int32_t>((ux / uy) + (ux >> 5) + (ux % uy));
          out[k + 7] = min(x, y) * 2 + max(x, y) + select(x < y, 1, 0) + cast<std::int32_t>(ux < uy);
          i64 w = cast<std::int64_t>(x) * y + wide[i];
          out[k + 8] = cast<std::int32_t>(w >> 20);
        });
      },
      {.name = "int_ops"});
  Stream s;
  const int n = 4099;
  auto ha = random_vector<std::int32_t>(n, 10, -100000, 100000);
  auto hb = random_vector<std::int32_t>(n, 11, 1, 5000);
  for (int i = 0; i < n; i += 2) hb[i] = -hb[i];
  auto hua = random_vector<std::uint32_t>(n, 12, 0, 0xFFFFFFFFu);
  auto hub = random_vector<std::uint32_t>(n, 13, 1, 0xFFFFFFFFu);
  auto hw = random_vector<std::int64_t>(n, 14, -(1ll << 50), 1ll << 50);
  Buffer<std::int32_t> a(s, ha), b(s, hb);
  Buffer<std::uint32_t> ua(s, hua), ub(s, hub);
  Buffer<std::int64_t> w(s, hw);
  auto out = poisoned<std::int32_t>(s, 9 * n);
  ops.launch(s, {.grid = ceil_div(n, 256), .block = 256}, out, a, b, ua, ub, w, n);
  auto r = out.to_host(s);
  for (int i = 0; i < n; ++i) {
    std::int32_t x = ha[i], y = hb[i];
    std::uint32_t ux = hua[i], uy = hub[i];
    std::int32_t want[9] = {x + y, x - y, x / y, x % y, (x & y) ^ (x | 7), (x >> 3) + (y << 2),
                            static_cast<std::int32_t>((ux / uy) + (ux >> 5) + (ux % uy)),
                            std::min(x, y) * 2 + std::max(x, y) + (x < y ? 1 : 0) + (ux < uy ? 1 : 0),
                            static_cast<std::int32_t>((static_cast<std::int64_t>(x) * y + hw[i]) >> 20)};
    for (int k = 0; k < 9; ++k) ASSERT_EQ(r[9 * i + k], want[k]) << "element " << i << " op " << k;
  }
}

TEST(KernelGpu, LoopsAndBranchesWithDataDependentBounds) {
  CUTLET_REQUIRE_GPU();
  auto k = kernel(
      [](Ptr<std::int32_t> out, Ptr<std::int32_t> lengths, Ptr<std::int32_t> starts, i32 n) {
        i32 i = block_idx().x * block_dim().x + thread_idx().x;
        if_(i < n, [&] {
          Var<std::int32_t> sum = 0;
          for_range(0, lengths[i], [&](i32 j) {
            if_((j & 1) == 0, [&] { sum += j; }, [&] { sum -= 2 * j; });
          });
          // Collatz steps from starts[i].
          Var<std::int64_t> v = cast<std::int64_t>(starts[i]);
          Var<std::int32_t> steps = 0;
          while_([&] { return v > 1; }, [&] {
            v = select((v.get() & 1) == 0, v / 2, 3 * v + 1);
            ++steps;
          });
          // A descending loop with a negative step.
          Var<std::int32_t> down = 0;
          for_range(lengths[i], 0, -3, [&](i32 j) { down += j; });
          out[3 * i] = sum;
          out[3 * i + 1] = steps;
          out[3 * i + 2] = down;
        });
      },
      {.name = "loops_test"});
  Stream s;
  const int n = 777;
  auto hl = random_vector<std::int32_t>(n, 20, 0, 300);
  auto hs = random_vector<std::int32_t>(n, 21, 1, 100000);
  Buffer<std::int32_t> lengths(s, hl), starts(s, hs);
  auto out = poisoned<std::int32_t>(s, 3 * n);
  k.launch(s, {.grid = ceil_div(n, 64), .block = 64}, out, lengths, starts, n);
  auto r = out.to_host(s);
  for (int i = 0; i < n; ++i) {
    std::int32_t sum = 0;
    for (int j = 0; j < hl[i]; ++j) sum += (j % 2 == 0) ? j : -2 * j;
    std::int64_t v = hs[i];
    std::int32_t steps = 0;
    while (v > 1) v = (v % 2 == 0) ? v / 2 : 3 * v + 1, ++steps;
    std::int32_t down = 0;
    for (int j = hl[i]; j > 0; j -= 3) down += j;
    ASSERT_EQ(r[3 * i], sum) << i;
    ASSERT_EQ(r[3 * i + 1], steps) << i;
    ASSERT_EQ(r[3 * i + 2], down) << i;
  }
}

TEST(KernelGpu, TwoDimensionalGrid) {
  CUTLET_REQUIRE_GPU();
  auto transpose = kernel(
      [](Ptr<float> out, Ptr<float> in, i32 rows, i32 cols) {
        i32 c = block_idx().x * block_dim().x + thread_idx().x;
        i32 r = block_idx().y * block_dim().y + thread_idx().y;
        if_((r < rows) & (c < cols), [&] { out[c * rows + r] = in[r * cols + c] * 2.0f; });
      },
      {.name = "transpose_test"});
  Stream s;
  const int rows = 333, cols = 517;
  auto hin = random_vector<float>(rows * cols, 30, -1.0f, 1.0f);
  Buffer<float> in(s, hin);
  auto out = poisoned<float>(s, rows * cols);
  transpose.launch(s, {.grid = {ceil_div(cols, 32), ceil_div(rows, 8)}, .block = {32, 8}}, out, in, rows, cols);
  auto r = out.to_host(s);
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) ASSERT_EQ(r[j * rows + i], hin[i * cols + j] * 2.0f) << i << "," << j;
}

TEST(KernelGpu, OneGenericLambdaManyArgumentTypes) {
  CUTLET_REQUIRE_GPU();
  auto axpb = kernel([](auto y, auto x, auto a, auto b, i32 n) {
    i32 i = block_idx().x * block_dim().x + thread_idx().x;
    if_(i < n, [&] { y[i] = a * x[i] + b; });
  }, {.name = "axpb"});
  Stream s;
  const int n = 5001;
  auto before = cache_stats();
  {
    auto hx = random_vector<float>(n, 40, -5.0f, 5.0f);
    Buffer<float> x(s, hx);
    auto y = poisoned<float>(s, n);
    axpb.launch(s, {.grid = ceil_div(n, 256), .block = 256}, y, x, 1.5f, -0.25f, n);
    auto r = y.to_host(s);
    for (int i = 0; i < n; ++i) ASSERT_NEAR(r[i], 1.5f * hx[i] - 0.25f, 1e-5f) << i;
  }
  {
    auto hx = random_vector<double>(n, 41, -5.0, 5.0);
    Buffer<double> x(s, hx);
    auto y = poisoned<double>(s, n);
    axpb.launch(s, {.grid = ceil_div(n, 256), .block = 256}, y, x, 1.0 / 3.0, 0.125, n);
    auto r = y.to_host(s);
    for (int i = 0; i < n; ++i) ASSERT_NEAR(r[i], hx[i] / 3.0 + 0.125, 1e-13) << i;
  }
  {
    auto hx = random_vector<std::int64_t>(n, 42, -(1ll << 40), 1ll << 40);
    Buffer<std::int64_t> x(s, hx);
    auto y = poisoned<std::int64_t>(s, n);
    axpb.launch(s, {.grid = ceil_div(n, 256), .block = 256}, y, x, std::int64_t{-7}, std::int64_t{1} << 41, n);
    auto r = y.to_host(s);
    for (int i = 0; i < n; ++i) ASSERT_EQ(r[i], -7 * hx[i] + (std::int64_t{1} << 41)) << i;
  }
  EXPECT_EQ(made_since(before), 3u) << "one specialization per argument-type set";
}

TEST(KernelGpu, SecondLaunchHitsTheCache) {
  CUTLET_REQUIRE_GPU();
  auto saxpy = make_saxpy();
  Stream s;
  const int n = 1000;
  Buffer<float> x(s, random_vector<float>(n, 50, -1.0f, 1.0f)), y(s, random_vector<float>(n, 51, -1.0f, 1.0f));
  saxpy.launch(s, {.grid = 4, .block = 256}, 1.0f, x, y, n);
  auto after_first = cache_stats();
  for (int r = 0; r < 10; ++r) saxpy.launch(s, {.grid = 4, .block = 256}, 1.0f, x, y, n);
  s.synchronize();
  auto after = cache_stats();
  EXPECT_EQ(after.traces, after_first.traces);
  EXPECT_EQ(made_since(after_first), 0u);
  // A second Kernel object from the same lambda traces again but reuses the compiled code.
  auto again = make_saxpy();
  again.launch(s, {.grid = 4, .block = 256}, 1.0f, x, y, n);
  s.synchronize();
  EXPECT_EQ(made_since(after), 0u);
  EXPECT_EQ(cache_stats().traces, after.traces + 1);
}

TEST(KernelGpu, ConcurrentFirstLaunchesCompileOnce) {
  CUTLET_REQUIRE_GPU();
  auto k = kernel([](Ptr<int> y, i32 v) { y[thread_idx().x] = v + thread_idx().x; }, {.name = "concurrent"});
  auto before = cache_stats();
  std::vector<std::thread> threads;
  std::vector<std::string> errors(8);
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      try {
        Stream s;
        Buffer<int> y(32, s.device());
        k.launch(s, {.grid = 1, .block = 32}, y, t * 100);
        auto r = y.to_host(s);
        for (int i = 0; i < 32; ++i)
          if (r[i] != t * 100 + i) errors[t] = "wrong value";
      } catch (const std::exception& e) {
        errors[t] = e.what();
      }
    });
  }
  for (auto& th : threads) th.join();
  for (auto& e : errors) EXPECT_EQ(e, "");
  EXPECT_EQ(cache_stats().traces - before.traces, 1u);
  EXPECT_EQ(made_since(before), 1u);
}

TEST(KernelGpu, WrongArgumentsAreReported) {
  CUTLET_REQUIRE_GPU();
  auto saxpy = make_saxpy();
  Stream s;
  Buffer<float> x(16, s.device()), y(16, s.device());
  Buffer<double> d(16, s.device());
  auto count = message_of([&] { saxpy.launch(s, {.grid = 1, .block = 16}, 1.0f, x, y); });
  EXPECT_NE(count.find("takes 4 arguments but 3 were given"), std::string::npos) << count;
  EXPECT_NE(count.find("kernel_gpu_test.cpp"), std::string::npos) << count;
  auto type = message_of([&] { saxpy.launch(s, {.grid = 1, .block = 16}, 1.0f, x, d, 16); });
  EXPECT_NE(type.find("argument 3"), std::string::npos) << type;
  EXPECT_NE(type.find("Buffer<f64>"), std::string::npos) << type;
  auto narrowing = message_of([&] { saxpy.launch(s, {.grid = 1, .block = 16}, 2.0, x, y, 16); });
  EXPECT_NE(narrowing.find("argument 1"), std::string::npos) << narrowing;
  auto null = message_of([&] { saxpy.launch(s, {.grid = 1, .block = 16}, 1.0f, Buffer<float>(), y, 16); });
  EXPECT_NE(null.find("empty Buffer"), std::string::npos) << null;
}

TEST(KernelGpu, ImpossibleLaunchShapesAreReported) {
  CUTLET_REQUIRE_GPU();
  auto saxpy = make_saxpy();
  Stream s;
  Buffer<float> x(16, s.device()), y(16, s.device());
  auto big = message_of([&] { saxpy.launch(s, {.grid = 1, .block = 2048}, 1.0f, x, y, 16); });
  EXPECT_NE(big.find("1024"), std::string::npos) << big;
  EXPECT_NE(big.find("kernel_gpu_test.cpp"), std::string::npos) << big;
  auto zero = message_of([&] { saxpy.launch(s, {.grid = 0, .block = 32}, 1.0f, x, y, 16); });
  EXPECT_NE(zero.find("grid"), std::string::npos) << zero;
  // The kernel still works after the rejected launches.
  std::vector<float> hx(16, 1.0f), hy(16, 2.0f);
  x.copy_from_host(s, hx);
  y.copy_from_host(s, hy);
  saxpy.launch(s, {.grid = 1, .block = 16}, 3.0f, x, y, 16);
  for (float v : y.to_host(s)) EXPECT_EQ(v, 5.0f);
}

TEST(KernelGpu, LaunchesOnAForeignStream) {
  CUTLET_REQUIRE_GPU();
  auto saxpy = make_saxpy();
  Stream owner;
  Stream borrowed = Stream::wrap(owner.handle(), owner.device());
  const int n = 300;
  auto hx = random_vector<float>(n, 60, -1.0f, 1.0f), hy = random_vector<float>(n, 61, -1.0f, 1.0f);
  Buffer<float> x(borrowed, hx), y(borrowed, hy);
  saxpy.launch(borrowed, {.grid = ceil_div(n, 128), .block = 128}, 0.5f, x, y, n);
  auto r = y.to_host(owner);
  for (int i = 0; i < n; ++i) ASSERT_NEAR(r[i], 0.5f * hx[i] + hy[i], 1e-6f);
}

}  // namespace
