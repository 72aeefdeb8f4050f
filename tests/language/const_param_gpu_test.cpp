// Kernels with Const parameters launched on the GPU: each value runs its own specialization,
// found again without tracing; host numbers, cutlet::constant and ConstValue all select it.
#include <gtest/gtest.h>

#include <cutlet/cutlet.h>

#include <vector>

#include "gpu_test_support.h"

using namespace cutlet;

namespace {

TEST(ConstParamGpu, EachValueRunsItsOwnSpecialization) {
  CUTLET_REQUIRE_GPU();
  auto k = kernel(
      [](Ptr<int> y, i32 n, Const<int> K) {
        i32 i = block_idx().x * block_dim().x + thread_idx().x;
        if_(i < n, [&] { y[i] = i * K + K; });
      },
      {.name = "const_scale"});
  Stream s;
  const int n = 1000;
  Buffer<int> y(n, s.device());
  const LaunchConfig cfg{.grid = ceil_div(n, 256), .block = 256};
  // 40 values: the lookup table grows several times.
  for (int v = -20; v < 20; ++v) {
    y.fill_bytes(s, 0xCD);
    k.launch(s, cfg, y, n, v);
    const auto out = y.to_host(s);
    for (int i = 0; i < n; i += 37) ASSERT_EQ(out[i], i * v + v) << "K=" << v << " i=" << i;
  }
  const CacheStats before = cache_stats();
  for (int v = -20; v < 20; ++v) k.launch(s, cfg, y, n, v);
  k.launch(s, cfg, y, n, constant(7));
  k.launch(s, cfg, y, n, ConstValue(7));
  s.synchronize();
  EXPECT_EQ(cache_stats().traces, before.traces) << "every value found again without tracing";
  const auto out = y.to_host(s);
  EXPECT_EQ(out[10], 10 * 7 + 7);
  EXPECT_THROW(k.launch(s, cfg, y, n, ConstValue(2.5)), Error);
}

TEST(ConstParamGpu, GenericLambdaWithConstant) {
  CUTLET_REQUIRE_GPU();
  auto k = kernel([](auto y, auto n, auto SHIFT) {
    i32 i = block_idx().x * block_dim().x + thread_idx().x;
    if_(i < n, [&] { y[i] = i << SHIFT; });
  }, {.name = "const_generic"});
  Stream s;
  const int n = 300;
  Buffer<int> y(n, s.device());
  k.launch(s, {.grid = 2, .block = 256}, y, n, constant(3));
  const auto out = y.to_host(s);
  for (int i = 0; i < n; ++i) ASSERT_EQ(out[i], i << 3) << i;
}

}  // namespace
