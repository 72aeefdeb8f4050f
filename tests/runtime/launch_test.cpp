// Launch geometry helpers and configuration checks against given limits (no GPU needed).
#include "cutlet/runtime/launch.h"

#include <gtest/gtest.h>

#include <string>

#include "cutlet/runtime/device.h"
#include "runtime_test_support.h"

namespace {

/// The limits of an H200-like device.
cutlet::DeviceLimits h200_limits() {
  cutlet::DeviceLimits l;
  l.max_threads_per_block = 1024;
  l.max_block[0] = 1024;
  l.max_block[1] = 1024;
  l.max_block[2] = 64;
  l.max_grid[0] = 2147483647;
  l.max_grid[1] = 65535;
  l.max_grid[2] = 65535;
  l.max_shared_per_block = 48 * 1024;
  l.max_shared_per_block_optin = 227 * 1024;
  l.warp_size = 32;
  l.sm_count = 132;
  l.sm = 90;
  l.cluster_launch = true;
  l.cooperative_launch = true;
  return l;
}

/// The limits of an A100-like device: no clusters.
cutlet::DeviceLimits a100_limits() {
  cutlet::DeviceLimits l = h200_limits();
  l.sm_count = 108;
  l.sm = 80;
  l.cluster_launch = false;
  return l;
}

/// The message of the Error that check_launch_config throws for `c` ("" when none).
std::string problem(const cutlet::LaunchConfig& c) {
  try {
    cutlet::check_launch_config(h200_limits(), c, "my_kernel", "device 0 (Test GPU)");
  } catch (const cutlet::Error& e) {
    return e.what();
  }
  return "";
}

TEST(Dim3, DefaultsAndCount) {
  constexpr cutlet::Dim3 one;
  static_assert(one.x == 1 && one.y == 1 && one.z == 1);
  constexpr cutlet::Dim3 d(3, 5, 7);
  static_assert(d.count() == 105);
  cutlet::Dim3 from_int = 256;  // implicit: (256, 1, 1)
  EXPECT_EQ(from_int, cutlet::Dim3(256, 1, 1));
  EXPECT_EQ(cutlet::Dim3(4, 2).count(), 8);
}

TEST(CeilDiv, RoundsUp) {
  static_assert(cutlet::ceil_div(1000003, 256) == 3907);
  EXPECT_EQ(cutlet::ceil_div(0, 256), 0);
  EXPECT_EQ(cutlet::ceil_div(1, 256), 1);
  EXPECT_EQ(cutlet::ceil_div(256, 256), 1);
  EXPECT_EQ(cutlet::ceil_div(257, 256), 2);
  EXPECT_EQ(cutlet::ceil_div(-5, 2), -2);  // ceil(-2.5)
  EXPECT_EQ(cutlet::ceil_div(-4, 2), -2);
  EXPECT_EQ(cutlet::ceil_div(9223372036854775807LL, 2), 4611686018427387904LL);  // no overflow
  EXPECT_THROW((void)cutlet::ceil_div(5, 0), cutlet::Error);
  EXPECT_THROW((void)cutlet::ceil_div(5, -1), cutlet::Error);
}

TEST(LaunchConfig, RecordsTheCallersLine) {
  cutlet::LaunchConfig c{.grid = 10, .block = 128};
  const unsigned line = __LINE__ - 1;
  EXPECT_EQ(c.where.line(), line);
  EXPECT_CONTAINS(c.where.file_name(), "launch_test.cpp");
  EXPECT_EQ(c.shared_bytes, 0u);
}

TEST(CheckLaunchConfig, AcceptsValidConfigs) {
  EXPECT_EQ(problem({.grid = 1, .block = 1}), "");
  EXPECT_EQ(problem({.grid = {2147483647, 65535, 65535}, .block = {1024, 1, 1}}), "");
  EXPECT_EQ(problem({.grid = 1, .block = {16, 16, 4}}), "");
  EXPECT_EQ(problem({.grid = 1, .block = 1, .shared_bytes = 100 * 1024}), "");  // opt-in range
  EXPECT_EQ(problem({.grid = 1, .block = 1, .shared_bytes = 227 * 1024}), "");
}

TEST(CheckLaunchConfig, RejectsZeroAndNegativeExtents) {
  EXPECT_CONTAINS(problem({.grid = 0, .block = 1}), "grid.x is 0");
  EXPECT_CONTAINS(problem({.grid = {1, -3}, .block = 1}), "grid.y is -3 (negative)");
  EXPECT_CONTAINS(problem({.grid = 1, .block = {32, 1, 0}}), "block.z is 0");
}

TEST(CheckLaunchConfig, RejectsTooManyThreadsNamingKernelLimitDeviceAndLine) {
  cutlet::LaunchConfig c{.grid = 1, .block = 2048};
  const std::string where = "launch_test.cpp:" + std::to_string(__LINE__ - 1);
  const std::string msg = problem(c);
  EXPECT_CONTAINS(msg, "'my_kernel'");
  EXPECT_CONTAINS(msg, "block (2048,1,1) has 2048 threads");
  EXPECT_CONTAINS(msg, "at most 1024 per block");
  EXPECT_CONTAINS(msg, "device 0 (Test GPU)");
  EXPECT_CONTAINS(msg, where);
  // Every extent within its own limit but their product too large.
  EXPECT_CONTAINS(problem({.grid = 1, .block = {64, 32, 1}}),
                  "block (64,32,1) has 2048 threads; device 0 (Test GPU) allows at most 1024 "
                  "per block");
}

TEST(CheckLaunchConfig, RejectsBlockAndGridExtentsOverTheirLimits) {
  EXPECT_CONTAINS(problem({.grid = 1, .block = {1, 1, 65}}), "block.z is 65");
  EXPECT_CONTAINS(problem({.grid = 1, .block = {1LL << 40, 1LL << 40, 1LL << 40}}),
                  "more than 2^63 threads");
  EXPECT_CONTAINS(problem({.grid = 1, .block = {1, 1, 65}}), "at most 64");
  EXPECT_CONTAINS(problem({.grid = {1, 65536}, .block = 1}), "grid.y is 65536");
  EXPECT_CONTAINS(problem({.grid = {1, 65536}, .block = 1}), "at most 65535");
  EXPECT_CONTAINS(problem({.grid = 2147483648LL, .block = 1}), "grid.x is 2147483648");
}

TEST(CheckLaunchConfig, RejectsSharedMemoryAboveTheOptInLimit) {
  const std::string msg = problem({.grid = 1, .block = 1, .shared_bytes = 227 * 1024 + 1});
  EXPECT_CONTAINS(msg, "shared_bytes is 232449");
  EXPECT_CONTAINS(msg, "at most 232448");
}

TEST(LaunchConfig, ExtendedAttributesAreOptIn) {
  constexpr cutlet::LaunchConfig plain{.grid = 4, .block = 32};
  static_assert(!plain.extended());
  static_assert(cutlet::LaunchConfig{.grid = 4, .block = 32, .cluster = 2}.extended());
  static_assert(cutlet::LaunchConfig{.grid = 4, .block = 32, .cooperative = true}.extended());
  static_assert(cutlet::LaunchConfig{.grid = 4, .block = 32, .programmatic_dependent_launch = true}.extended());
  EXPECT_EQ(problem({.grid = 8, .block = 128, .cluster = {2, 1, 1}}), "");
}

TEST(CheckLaunchConfig, ClustersNeedSm90NamingTheDevice) {
  cutlet::LaunchConfig c{.grid = 8, .block = 128, .cluster = 2};
  const int line = __LINE__ - 1;
  std::string msg;
  try {
    cutlet::check_launch_config(a100_limits(), c, "my_kernel", "device 0 (Test A100)");
  } catch (const cutlet::Error& e) {
    msg = e.what();
  }
  EXPECT_CONTAINS(msg, "compute capability 9.0");
  EXPECT_CONTAINS(msg, "sm_80");
  EXPECT_CONTAINS(msg, "device 0 (Test A100)");
  EXPECT_CONTAINS(msg, "launch_test.cpp:" + std::to_string(line));
}

TEST(CheckLaunchConfig, ClusterShapeRules) {
  EXPECT_CONTAINS(problem({.grid = 5, .block = 32, .cluster = 2}),
                  "grid.x (5) is not a multiple of cluster.x (2)");
  EXPECT_CONTAINS(problem({.grid = 16, .block = 32, .cluster = 16}), "at most 8 blocks per cluster");
  EXPECT_CONTAINS(problem({.grid = 16, .block = 32, .cluster = {0, 1, 1}}), "cluster.x is 0");
  EXPECT_EQ(problem({.grid = {4, 6}, .block = 32, .cluster = {2, 3, 1}}), "");
}

TEST(CheckLaunchConfig, CooperativeNeedsDeviceSupport) {
  cutlet::DeviceLimits l = h200_limits();
  l.cooperative_launch = false;
  try {
    cutlet::check_launch_config(l, {.grid = 2, .block = 32, .cooperative = true}, "k", "device 0 (X)");
    FAIL() << "no error";
  } catch (const cutlet::Error& e) {
    EXPECT_CONTAINS(e.what(), "cooperative");
  }
}

}  // namespace
