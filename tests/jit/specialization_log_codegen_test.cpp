// CUTLET_LOG for compiles: misses, compiles and hits of the memory and disk caches at info,
// traces at debug, nothing at the default level.
#include <gtest/gtest.h>

#include <cutlet/cutlet.h>

#include "cutlet/jit/disk_cache.h"
#include "jit/child_process.h"
#include "scoped_env.h"

using namespace cutlet;

namespace {

/// Uses `dir` as the disk cache for the test, and the previous settings after it.
class CacheIn {
 public:
  explicit CacheIn(const std::filesystem::path& dir) : saved_(disk_cache()->settings()) {
    set_disk_cache_settings(DiskCacheSettings{dir});
  }
  ~CacheIn() { set_disk_cache_settings(saved_); }

 private:
  DiskCacheSettings saved_;
};

/// Sets the log level for the test, and the previous one after it.
class LevelFor {
 public:
  explicit LevelFor(LogLevel level) : saved_(log_level()) { set_log_level(level); }
  ~LevelFor() { set_log_level(saved_); }

 private:
  LogLevel saved_;
};

auto make_logged() {
  return kernel([](Ptr<float> y, f32 a) { y[thread_idx().x] = a * 3.0f; }, {.name = "logged_cache"});
}

bool has(const std::string& s, const std::string& what) { return s.find(what) != std::string::npos; }

TEST(SpecializationLog, CacheMissesCompilesAndHitsAtInfo) {
  test::ScratchDir scratch;
  CacheIn cache(scratch.path());
  LevelFor info(LogLevel::Info);
  auto first = make_logged();
  auto second = make_logged();
  testing::internal::CaptureStderr();
  first.compile();
  second.compile();  // another Kernel object, the same IR: the compiled code is shared
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_TRUE(has(err, "cutlet: kernel 'logged_cache' (sm_90): disk cache miss; compiled in ")) << err;
  EXPECT_TRUE(has(err, " bytes\n")) << "the entry was stored: " << err;
  EXPECT_TRUE(has(err, "cutlet: kernel 'logged_cache' (sm_90): memory cache hit")) << err;
  EXPECT_FALSE(has(err, "traced in")) << "traces are debug: " << err;
  const auto child = test::run_child("SpecializationLogChild.DISABLED_Compile",
                                     {"CUTLET_CACHE=1", "CUTLET_CACHE_DIR=" + scratch.path().string(), "CUTLET_LOG=debug"});
  ASSERT_EQ(child.status, 0) << child.output;
  EXPECT_TRUE(has(child.output, "cutlet: kernel 'logged_cache' (sm_90): disk cache hit, read in ")) << child.output;
  EXPECT_TRUE(has(child.output, "cutlet: kernel 'logged_cache': traced in ")) << child.output;
}

// The child: compiles the kernel with the environment's cache and log level.
TEST(SpecializationLogChild, DISABLED_Compile) { make_logged().compile(); }

TEST(SpecializationLog, CompilesSayNothingAtWarn) {
  test::ScratchDir scratch;
  CacheIn cache(scratch.path());
  LevelFor warn(LogLevel::Warn);
  testing::internal::CaptureStderr();
  kernel([](Ptr<int> y) { y[0] = 11; }, {.name = "logged_quietly"}).compile();
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
}

}  // namespace
