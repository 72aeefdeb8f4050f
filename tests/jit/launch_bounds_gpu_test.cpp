// A kernel with launch bounds runs correctly within them, and a launch with more threads per
// block than its max_block_threads is refused before the driver sees it.
#include <gtest/gtest.h>

#include <cutlet/cutlet.h>

#include <vector>

#include "gpu_test_support.h"
#include "kernel_test_support.h"

using namespace cutlet;
using namespace cutlet::test;

namespace {

auto bounded_scale() {
  return kernel(
      [](Ptr<float> y, Ptr<float> x, i32 n) {
        i32 i = block_idx().x * block_dim().x + thread_idx().x;
        // An exact product: the same result with or without fma contraction.
        if_(i < n, [&] { y[i] = 2.0f * x[i] + 1.0f; });
      },
      {.name = "bounded_scale", .max_block_threads = 256, .min_blocks_per_sm = 4});
}

TEST(LaunchBoundsGpu, RunsWithinItsBounds) {
  CUTLET_REQUIRE_GPU();
  Stream st;
  auto k = bounded_scale();
  const int n = 1000;
  const auto h = random_vector<float>(n, 11, -1.0f, 1.0f);
  Buffer<float> x(st, h);
  for (int block : {64, 256}) {
    auto y = poisoned<float>(st, n);
    k.launch(st, {.grid = ceil_div(n, block), .block = block}, y, x, n);
    const auto got = y.to_host(st);
    for (int i = 0; i < n; ++i) ASSERT_EQ(got[i], 2.0f * h[i] + 1.0f) << "element " << i << ", block " << block;
  }
}

TEST(LaunchBoundsGpu, LargerBlocksAreRefused) {
  CUTLET_REQUIRE_GPU();
  Stream st;
  auto k = bounded_scale();
  Buffer<float> x(st, random_vector<float>(1024, 2, -1.0f, 1.0f));
  auto y = poisoned<float>(st, 1024);
  const std::string m = message_of([&] { k.launch(st, {.grid = 2, .block = 512}, y, x, 1024); });
  EXPECT_NE(m.find("kernel 'bounded_scale' launched at"), std::string::npos) << m;
  EXPECT_NE(m.find("launch_bounds_gpu_test.cpp"), std::string::npos) << m;
  EXPECT_NE(m.find("512 threads per block, more than its KernelOptions::max_block_threads = 256"), std::string::npos)
      << m;
}

}  // namespace
