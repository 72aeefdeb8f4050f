// Extended launches: thread-block clusters, cooperative grids, programmatic dependent
// launch, and occupancy queries (on the CPU device: cooperative grids, launches that keep the
// dependency, occupancy, and the refusal of clusters).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "../gpu_test_support.h"
#include "cutlet/runtime/buffer.h"
#include "cutlet/runtime/launch.h"
#include "cutlet/runtime/module.h"
#include "cutlet/runtime/occupancy.h"
#include "runtime_test_support.h"
#include "test_functions.h"
#include "test_kernels.h"

namespace {

std::span<const char> text(const char* s) { return {s, std::strlen(s)}; }

TEST(LaunchExtended, ClusterLaunchOrAClearErrorWithoutClusters) {
  CUTLET_REQUIRE_GPU();
  cutlet::Stream s(cutlet::Device(0));
  const bool clusters = s.device().compute_capability().major >= 9;
  ASSERT_EQ(s.device().limits().cluster_launch, clusters);
  if (!clusters) {
    const cutlet::test::TestFunctions m(s.device());
    const std::string msg = cutlet::test::error_message(
        [&] { cutlet::launch(s, m.function("empty_kernel"), {.grid = 4, .block = 32, .cluster = 2}, nullptr); });
    EXPECT_CONTAINS(msg, "empty_kernel");
    if (s.device().is_cpu()) {
      EXPECT_CONTAINS(msg, "thread-block clusters");
      EXPECT_CONTAINS(msg, "the CPU device does not have");
      EXPECT_CONTAINS(cutlet::test::error_message([&] {
                        (void)cutlet::max_active_clusters(m.function("empty_kernel"),
                                                          {.grid = 4, .block = 32, .cluster = 2});
                      }),
                      "no thread-block clusters");
      return;
    }
    EXPECT_CONTAINS(msg, "compute capability 9.0");
    EXPECT_CONTAINS(msg, "sm_" + std::to_string(s.device().compute_capability().sm()));
    return;
  }
  cutlet::Module m = cutlet::Module::load(s.device(), text(cutlet::test::kSm90Ptx));
  const cutlet::Function f = m.function("cluster_rank");
  const std::uint32_t blocks = 64;
  cutlet::Buffer<std::uint32_t> out(blocks, s.device());
  out.fill_bytes(s, 0xff);
  std::uint64_t p = out.data();
  void* args[] = {&p};
  cutlet::launch(s, f, {.grid = blocks, .block = 32, .cluster = 4}, args);
  auto host = out.to_host(s);
  for (std::uint32_t b = 0; b < blocks; ++b)
    ASSERT_EQ(host[b], 4u * 1000 + 4u * 100 + b % 4) << "block " << b;
  // Without a cluster every block is its own cluster of one.
  cutlet::launch(s, f, {.grid = blocks, .block = 32}, args);
  host = out.to_host(s);
  EXPECT_EQ(host[5], 1u * 1000 + 1u * 100 + 0);
  EXPECT_GT(cutlet::max_active_clusters(f, {.grid = blocks, .block = 32, .cluster = 4}), 0);
  // A grid that is no whole number of clusters is refused before the driver sees it.
  EXPECT_CONTAINS(cutlet::test::error_message(
                      [&] { cutlet::launch(s, f, {.grid = 10, .block = 32, .cluster = 4}, args); }),
                  "not a multiple of cluster.x");
}

TEST(LaunchExtended, CooperativeLaunchChecksCoResidency) {
  CUTLET_REQUIRE_GPU();
  cutlet::Stream s(cutlet::Device(0));
  const cutlet::test::TestFunctions m(s.device());
  const cutlet::Function f = m.function("write42");
  const long long limit = cutlet::max_cooperative_blocks(f, 256);
  EXPECT_EQ(limit, static_cast<long long>(cutlet::max_active_blocks_per_sm(f, 256)) * s.device().sm_count());
  ASSERT_GT(limit, 0);
  const std::uint32_t n = static_cast<std::uint32_t>(limit) * 256;
  cutlet::Buffer<std::uint32_t> out(n, s.device());
  std::uint64_t p = out.data();
  std::uint32_t count = n;
  void* args[] = {&p, &count};
  cutlet::launch(s, f, {.grid = limit, .block = 256, .cooperative = true}, args);
  const auto host = out.to_host(s);
  EXPECT_EQ(host[n - 1], 42u + n - 1);
  const std::string msg = cutlet::test::error_message(
      [&] { cutlet::launch(s, f, {.grid = limit + 1, .block = 256, .cooperative = true}, args); });
  EXPECT_CONTAINS(msg, "cooperative");
  EXPECT_CONTAINS(msg, "at most " + std::to_string(limit));
  EXPECT_CONTAINS(msg, std::to_string(s.device().sm_count()) + " SMs");
}

TEST(LaunchExtended, ProgrammaticDependentLaunchKeepsResultsRight) {
  CUTLET_REQUIRE_GPU();
  cutlet::Stream s(cutlet::Device(0));
  // The CPU device runs a stream's kernels in order, which keeps the dependency as well.
  if (!s.device().is_cpu() && s.device().compute_capability().major < 9)
    GTEST_SKIP() << "programmatic dependent launch needs sm_90";
  const cutlet::test::TestFunctions first(s.device());
  const cutlet::test::TestFunctions second(s.device(), cutlet::test::kSm90Ptx);
  const std::uint32_t n = 1 << 20;
  cutlet::Buffer<std::uint32_t> a(n, s.device()), b(n, s.device());
  b.fill_bytes(s, 0);
  for (int round = 0; round < 5; ++round) {
    std::uint64_t pa = a.data(), pb = b.data();
    std::uint32_t count = n;
    void* args1[] = {&pa, &count};
    void* args2[] = {&pa, &pb, &count};
    cutlet::launch(s, first.function("write42"), {.grid = cutlet::ceil_div(n, 256), .block = 256}, args1);
    cutlet::launch(s, second.function("pdl_double"),
                   {.grid = cutlet::ceil_div(n, 256), .block = 256, .programmatic_dependent_launch = true}, args2);
  }
  const auto host = b.to_host(s);
  for (std::uint32_t i = 0; i < n; i += 997) ASSERT_EQ(host[i], 2 * (42 + i)) << i;
}

TEST(Occupancy, QueriesAreConsistent) {
  CUTLET_REQUIRE_GPU();
  cutlet::Device d(0);
  const cutlet::test::TestFunctions m(d);
  const cutlet::Function f = m.function("reverse_through_shared");
  const int per_sm = cutlet::max_active_blocks_per_sm(f, 128);
  EXPECT_GT(per_sm, 0);
  EXPECT_LE(per_sm, d.properties().max_blocks_per_sm);
  EXPECT_LE(per_sm * 128, d.properties().max_threads_per_sm);
  // Dynamic shared memory limits residency: a block that takes most of the SM's shared
  // memory leaves room for just one.
  const std::size_t big = d.limits().max_shared_per_block_optin;
  EXPECT_LE(cutlet::max_active_blocks_per_sm(f, 128, big), 1);
  const cutlet::BlockSizeSuggestion sug = cutlet::suggest_block_size(f);
  EXPECT_GT(sug.block_size, 0);
  EXPECT_LE(sug.block_size, 1024);
  EXPECT_GE(sug.min_grid_size, d.sm_count());
  EXPECT_LE(cutlet::suggest_block_size(f, 0, 64).block_size, 64);
}

}  // namespace
