// The persistent kernel cache: a second process launches a kernel from the disk cache, without
// LLVM or nvJitLink (on the CPU device: without LLVM's optimizer and code generator, only its
// JIT linker), and it computes the same result.
#include <gtest/gtest.h>

#include <stdlib.h>

#include <cutlet/cutlet.h>

#include <chrono>
#include <cstdio>
#include <filesystem>

#include "child_process.h"
#include "gpu_test_support.h"

using namespace cutlet;
namespace fs = std::filesystem;

namespace {

auto make_axpb() {
  return kernel(
      [](Ptr<int> y, i32 n, i32 a, i32 b) {
        i32 i = block_idx().x * block_dim().x + thread_idx().x;
        if_(i < n, [&] { y[i] = a * i + b; });
      },
      {.name = "disk_cache_axpb"});
}

// The child: one first launch, timed from the call to its return (the kernel enqueued).
TEST(DiskCacheGpuChild, DISABLED_Launch) {
  CUTLET_REQUIRE_GPU();  // on the CPU device: its host code from the disk cache
  auto k = make_axpb();
  Stream s;
  const int n = 1000;
  Buffer<int> y(n, s.device());
  const auto t0 = std::chrono::steady_clock::now();
  k.launch(s, {.grid = ceil_div(n, 256), .block = 256}, y, n, 3, -5);
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  const auto out = y.to_host(s);
  int wrong = 0;
  for (int i = 0; i < n; ++i) wrong += out[i] != 3 * i - 5;
  const auto spec = k.last_specialization();
  std::printf("cutlet-child source=%d compiles=%llu disk_hits=%llu wrong=%d launch_us=%.0f\n",
              static_cast<int>(spec->source), (unsigned long long)cache_stats().compiles,
              (unsigned long long)cache_stats().disk_hits, wrong, ms * 1000);
  std::fflush(stdout);
}

TEST(DiskCacheGpu, SecondProcessLaunchesFromTheDisk) {
  CUTLET_REQUIRE_GPU();  // on the CPU device: its host code from the disk cache
  std::string t = (fs::temp_directory_path() / "cutlet-disk-cache-gpu-XXXXXX").string();
  const fs::path dir = ::mkdtemp(t.data());
  const std::vector<std::string> env = {"CUTLET_CACHE_DIR=" + dir.string()};
  const auto first = test::run_child("DiskCacheGpuChild.DISABLED_Launch", env);
  const auto second = test::run_child("DiskCacheGpuChild.DISABLED_Launch", env);
  fs::remove_all(dir);
  ASSERT_EQ(first.status, 0) << first.output;
  ASSERT_EQ(second.status, 0) << second.output;
  EXPECT_EQ(first.values.at("source"), std::to_string(static_cast<int>(detail::CompileSource::Compiled)));
  EXPECT_EQ(first.values.at("wrong"), "0");
  EXPECT_EQ(second.values.at("source"), std::to_string(static_cast<int>(detail::CompileSource::Disk)));
  EXPECT_EQ(second.values.at("compiles"), "0") << "LLVM and nvJitLink must not run";
  EXPECT_EQ(second.values.at("disk_hits"), "1");
  EXPECT_EQ(second.values.at("wrong"), "0");
  RecordProperty("first_launch_us_cold", first.values.at("launch_us"));
  RecordProperty("first_launch_us_disk_hit", second.values.at("launch_us"));
  std::printf("first launch: %s us cold, %s us from the disk cache\n", first.values.at("launch_us").c_str(),
              second.values.at("launch_us").c_str());
}

}  // namespace
