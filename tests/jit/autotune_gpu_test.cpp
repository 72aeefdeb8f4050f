// The autotuner on the GPU: it finds a best configuration made obvious by construction, skips
// failing configurations with their reasons, persists the result and reloads it without trials.
#include <gtest/gtest.h>

#include <stdlib.h>

#include <cutlet/cutlet.h>

#include <atomic>
#include <cmath>
#include <filesystem>
#include <vector>

#include "cutlet/jit/autotune.h"
#include "gpu_test_support.h"
#include "isolated_cache_dir.h"

using namespace cutlet;
namespace fs = std::filesystem;

// Every process of this test executable gets its own empty kernel cache.
static const bool kIsolated = cutlet::test::isolate_kernel_cache();

namespace {

/// Elements of the tuned kernel's input: 2^20 on a GPU; on the CPU device, where the slowest
/// candidate would outlast a trial's timeout there, 2^15.
int elements(const Device& d) { return d.is_cpu() ? 1 << 15 : 1 << 20; }

/// y[i] = ITER steps of v = v * 0.5 + 1 from y[i]: a chain of ITER dependent FMAs per
/// element, so the fewest iterations is plainly the fastest configuration.
auto make_iterate() {
  return kernel(
      [](Ptr<float> y, i32 n, Const<int> ITER) {
        i32 i = block_idx().x * block_dim().x + thread_idx().x;
        if_(i < n, [&] {
          Var<float> v = y[i];
          for_range(0, ITER.value(), [&](i32) { v = v * 0.5f + 1.0f; });
          y[i] = v;
        });
      },
      {.name = "iterate"});
}

float iterate_cpu(float v, int iter) {
  for (int k = 0; k < iter; ++k) v = std::fma(v, 0.5f, 1.0f);
  return v;
}

auto block_shape() {
  return [](const Config& c, const Buffer<float>&, int n) {
    const int block = c.get<int>("BLOCK");
    return LaunchConfig{.grid = ceil_div(n, block), .block = block};
  };
}

struct TempDir {
  fs::path path;
  TempDir() {
    std::string t = (fs::temp_directory_path() / "cutlet-autotune-gpu-XXXXXX").string();
    path = ::mkdtemp(t.data());
  }
  ~TempDir() { fs::remove_all(path); }
};

struct Inputs {
  Stream stream;
  const int n = elements(stream.device());
  std::vector<float> host = std::vector<float>(n);
  Buffer<float> y{static_cast<std::size_t>(n), stream.device()};
  Inputs() {
    for (int i = 0; i < n; ++i) host[i] = static_cast<float>(i % 97) * 0.25f - 3.0f;
    reset();
  }
  /// The kernel writes its input: every trial starts from the same values.
  void reset() { y.copy_from_host(stream, host); }
};

const TuneTrial* trial_of(const TuneReport& r, const std::string& config) {
  for (const auto& t : r.trials)
    if (t.config.str() == config) return &t;
  return nullptr;
}

TEST(AutotuneGpu, PicksTheObviousBestAndSkipsFailingConfigsWithReasons) {
  CUTLET_REQUIRE_GPU();
  TempDir dir;
  Inputs in;
  auto k = make_iterate();
  std::atomic<int> resets{0};
  TuningSpace space;
  space.constant("ITER", {4096, 512, 1, 2.5, 100000}).launch("BLOCK", {256, 2048});
  space.prune([](const Config& c) { return c.get<double>("ITER") > 50000 ? "too many iterations to bother" : ""; });
  AutotuneOptions o;
  o.dir = dir.path;
  o.repeats = 7;
  o.warmup = 2;
  o.before_each = [&](const Stream&) {
    in.reset();
    ++resets;
  };
  auto tuner = autotune(k, space, block_shape(), o);
  const TuneReport r = tuner.tune(in.stream, in.y, in.n);
  SCOPED_TRACE(r.table());
  ASSERT_FALSE(r.from_cache);
  ASSERT_EQ(r.trials.size(), 10u);
  ASSERT_TRUE(r.best_config());
  EXPECT_EQ(r.best_config()->str(), "ITER=1 BLOCK=256");
  // 2.5 does not fit Const<int>: it fails to compile, with the reason.
  const TuneTrial* frac = trial_of(r, "ITER=2.5 BLOCK=256");
  ASSERT_TRUE(frac);
  EXPECT_EQ(frac->status, TuneTrial::Status::CompileFailed);
  EXPECT_NE(frac->reason.find("does not fit"), std::string::npos) << frac->reason;
  // A block of 2048 threads is beyond every GPU: skipped at the launch check or as a resource limit.
  const TuneTrial* big = trial_of(r, "ITER=1 BLOCK=2048");
  ASSERT_TRUE(big);
  EXPECT_TRUE(big->status == TuneTrial::Status::LaunchFailed || big->status == TuneTrial::Status::Rejected);
  EXPECT_NE(big->reason.find("2048"), std::string::npos) << big->reason;
  EXPECT_EQ(trial_of(r, "ITER=100000 BLOCK=256")->status, TuneTrial::Status::Pruned);
  // The timings are ordered by the work: 1 < 512 < 4096 iterations.
  EXPECT_LT(trial_of(r, "ITER=1 BLOCK=256")->median_ms, trial_of(r, "ITER=512 BLOCK=256")->median_ms);
  EXPECT_LT(trial_of(r, "ITER=512 BLOCK=256")->median_ms, trial_of(r, "ITER=4096 BLOCK=256")->median_ms);
  // Three configs are timed, each with warm-up + repeats launches, each after a reset; the
  // impossible shapes are refused before their first reset.
  EXPECT_EQ(resets.load(), 3 * (2 + 7));

  // launch() runs the best configuration, and its result is right.
  in.reset();
  tuner.launch(in.stream, in.y, in.n);
  const auto out = in.y.to_host(in.stream);
  for (int i = 0; i < in.n; i += 997) ASSERT_EQ(out[i], iterate_cpu(in.host[i], 1)) << i;
  EXPECT_EQ(resets.load(), 3 * (2 + 7)) << "the remembered best: no further trial";
}

TEST(AutotuneGpu, PersistedResultIsReusedByAnotherTunerWithoutTrials) {
  CUTLET_REQUIRE_GPU();
  TempDir dir;
  Inputs in;
  auto k = make_iterate();
  TuningSpace space;
  // 1 iteration per element is the clear winner: 64 were within the timing noise of a
  // memory-bound kernel, 4096 are not.
  space.constant("ITER", {512, 1, 4096}).launch("BLOCK", {128, 256});
  AutotuneOptions o;
  o.dir = dir.path;
  o.repeats = 5;
  o.before_each = [&](const Stream&) { in.reset(); };
  auto key = [](const Buffer<float>&, int n) { return "n<=" + std::to_string(size_bucket(n)); };
  auto first = autotune(k, space, block_shape(), key, o);
  const TuneReport tuned = first.tune(in.stream, in.y, in.n);
  ASSERT_FALSE(tuned.from_cache);
  ASSERT_TRUE(tuned.best_config());
  EXPECT_EQ(tuned.best_config()->get<int>("ITER"), 1);
  EXPECT_NE(tuned.key.find("n<=" + std::to_string(size_bucket(in.n))), std::string::npos) << tuned.key;
  EXPECT_NE(tuned.key.find("device="), std::string::npos) << tuned.key;
  EXPECT_NE(tuned.key.find("driver="), std::string::npos) << tuned.key;

  // A second tuner, as in the next process: the stored result, no trials.
  std::atomic<int> launches{0};
  AutotuneOptions o2 = o;
  o2.before_each = [&](const Stream&) { ++launches; };
  auto again = make_iterate();
  auto second = autotune(again, space, block_shape(), key, o2);
  const TuneReport loaded = second.tune(in.stream, in.y, in.n);
  EXPECT_TRUE(loaded.from_cache);
  EXPECT_TRUE(loaded.trials.empty());
  EXPECT_EQ(loaded.best_config(), tuned.best_config());
  EXPECT_EQ(launches.load(), 0);

  // Another size bucket is another key: tuned anew.
  const TuneReport other = second.tune(in.stream, in.y, 1000);
  EXPECT_FALSE(other.from_cache);
  EXPECT_GT(launches.load(), 0);

  // A changed kernel (other IR under the same name and space) does not reuse the stored result.
  auto changed = kernel(
      [](Ptr<float> y, i32 n, Const<int> ITER) {
        i32 i = block_idx().x * block_dim().x + thread_idx().x;
        if_(i < n, [&] {
          Var<float> v = y[i];
          for_range(0, ITER.value(), [&](i32) { v = v * 0.25f + 1.0f; });
          y[i] = v;
        });
      },
      {.name = "iterate"});
  auto third = autotune(changed, space, block_shape(), key, o);
  EXPECT_FALSE(third.tune(in.stream, in.y, in.n).from_cache);
}

TEST(AutotuneGpu, CompileOptionsAreTunable) {
  CUTLET_REQUIRE_GPU();
  Inputs in;
  auto k = make_iterate();
  TuningSpace space;
  space.constant("ITER", {8}).launch("BLOCK", {256}).option("fma_contraction", {true, false});
  AutotuneOptions o;
  o.persist = false;
  o.repeats = 3;
  o.before_each = [&](const Stream&) { in.reset(); };
  auto tuner = autotune(k, space, block_shape(), o);
  const TuneReport r = tuner.tune(in.stream, in.y, in.n);
  SCOPED_TRACE(r.table());
  ASSERT_EQ(r.trials.size(), 2u);
  for (const auto& t : r.trials) EXPECT_EQ(t.status, TuneTrial::Status::Timed) << t.reason;
}

}  // namespace
