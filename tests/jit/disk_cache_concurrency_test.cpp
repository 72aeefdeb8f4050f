// The persistent kernel cache from several threads at once: instances on one directory never
// load a corrupt entry, and writes go on through a concurrent `cutlet-cache clear`.
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "cutlet/jit/disk_cache.h"
#include "disk_cache_test_support.h"

using namespace cutlet;
namespace fs = std::filesystem;

namespace {

using test::fake_kernel;
using test::key_for;
using test::TempDir;
using test::warnings_in;

TEST(DiskCache, ConcurrentThreadsAndInstancesNeverSeeACorruptEntry) {
  TempDir dir;
  // Two instances on one directory behave as two processes would.
  DiskCache one({dir.path()}), two({dir.path()});
  constexpr int kKeys = 12, kThreads = 8, kOps = 60;
  std::atomic<int> corrupt{0}, hits{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      DiskCache& cache = t % 2 ? one : two;
      std::mt19937 rng(t);
      for (int i = 0; i < kOps; ++i) {
        const int k = static_cast<int>(rng() % kKeys);
        const auto key = key_for(1000 + k, "k" + std::to_string(k));
        if (rng() % 2) {
          cache.store(key, fake_kernel("k" + std::to_string(k), 2000 + 100 * k), k);
        } else {
          const DiskLookup r = cache.load(key);
          if (r.status == DiskLookupStatus::Corrupt) ++corrupt;
          if (r.status == DiskLookupStatus::Hit) {
            ++hits;
            if (r.kernel->name != "k" + std::to_string(k) || r.kernel->cubin.size() != 2000u + 100 * k) ++corrupt;
          }
        }
      }
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(corrupt.load(), 0);
  for (const auto& e : one.list()) EXPECT_EQ(e.problem, "") << e.id;
  for (const auto& e : fs::directory_iterator(dir.path() / "kernels"))
    EXPECT_NE(e.path().filename().string().rfind(".tmp-", 0), 0u) << "no temporary file is left behind";
}

TEST(DiskCache, WritesSurviveAConcurrentClear) {
  TempDir dir;
  DiskCache writer({dir.path()}), cleaner({dir.path()});
  ASSERT_GT(writer.store(key_for(700), fake_kernel("fake"), 1), 0u);
  testing::internal::CaptureStderr();
  std::atomic<bool> done{false};
  std::atomic<int> clears{0};
  std::thread clearing([&] {
    while (!done.load()) {
      cleaner.clear();  // `cutlet-cache clear`, which removes temporary files too
      ++clears;
    }
  });
  int written = 0;
  for (int i = 1; i <= 400; ++i) written += writer.store(key_for(700 + i), fake_kernel("fake", 20000), 1) > 0;
  done = true;
  clearing.join();
  EXPECT_TRUE(writer.writable()) << written << " of 400 writes went through " << clears << " clears";
  EXPECT_GT(writer.store(key_for(699), fake_kernel("fake"), 1), 0u) << "still writing after the race";
  EXPECT_EQ(writer.load(key_for(699)).status, DiskLookupStatus::Hit);
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(warnings_in(err), 0u) << err;
}

}  // namespace
