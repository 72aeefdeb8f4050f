// The autotuner and configurations that hang or fault: a hang is reported as timed out and
// tuning goes on; a fault is reported with its cause, and since the CUDA driver gives the
// process no new context after it, the configurations left are reported as skipped with the
// way out (on the CPU device a failed kernel poisons nothing, and tuning goes on). A fault
// poisons the whole process, so each scenario runs in a child process.
#include <gtest/gtest.h>

#include <cutlet/cutlet.h>

#include <chrono>
#include <string>
#include <vector>

#include "child_process.h"
#include "cutlet/jit/autotune.h"
#include "gpu_test_support.h"
#include "isolated_cache_dir.h"
#include "runtime/runtime_test_support.h"

using namespace cutlet;

static const bool kIsolated = cutlet::test::isolate_kernel_cache();

namespace {

constexpr int kN = 1 << 16;

/// MODE 0 adds 1 to every element; MODE 1 fails an assert_ (a trap); MODE 2 has thread 0
/// spin through 2^30 dependent steps (seconds: far past the time limit below), then add 1.
auto make_modes() {
  return kernel(
      [](Ptr<float> y, i32 n, Const<int> MODE) {
        i32 i = block_idx().x * block_dim().x + thread_idx().x;
        if_(i < n, [&] {
          if (MODE.value() == 1) assert_(y[i] < -1e30f, "MODE=1 always traps");
          Var<float> v = y[i];
          if (MODE.value() == 2)
            if_(i == 0, [&] { for_range(0, 1 << 30, [&](i32) { v = v * 0.5f + 1.0f; }); });
          y[i] = v + 1.0f;
        });
      },
      {.name = "modes"});
}

struct Inputs {
  Stream stream;
  std::vector<float> host = std::vector<float>(kN);
  Buffer<float> y{kN, stream.device()};
  Inputs() {
    for (int i = 0; i < kN; ++i) host[i] = static_cast<float>(i % 31);
    reset();
  }
  void reset() { y.copy_from_host(stream, host); }
  /// After a context reset: a new stream and buffer in the same objects.
  void recreate() {
    stream = Stream(stream.device());
    y = Buffer<float>(kN, stream.device());
    reset();
  }
};

const TuneTrial* trial_of(const TuneReport& r, const std::string& config) {
  for (const auto& t : r.trials)
    if (t.config.str() == config) return &t;
  return nullptr;
}

auto shape() {
  return [](const Config& c, const Buffer<float>&, int n) {
    return LaunchConfig{.grid = ceil_div(n, c.get<int>("BLOCK")), .block = c.get<int>("BLOCK")};
  };
}

TEST(AutotuneFaultChild, DISABLED_HangingConfigsAreReportedAndTuningGoesOn) {
  Inputs in;
  auto k = make_modes();
  TuningSpace space;
  space.constant("MODE", {2, 0}).launch("BLOCK", {256});
  AutotuneOptions o;
  o.persist = false;
  o.warmup = 1;
  o.repeats = 3;
  o.candidate_timeout = std::chrono::milliseconds(300);
  o.before_each = [&](const Stream&) { in.reset(); };
  auto tuner = autotune(k, space, shape(), o);
  const TuneReport r = tuner.tune(in.stream, in.y, kN);
  SCOPED_TRACE(r.table());
  ASSERT_EQ(r.trials.size(), 2u);
  const TuneTrial* hang = trial_of(r, "MODE=2 BLOCK=256");
  ASSERT_TRUE(hang);
  EXPECT_EQ(hang->status, TuneTrial::Status::TimedOut);
  EXPECT_CONTAINS(hang->reason, "candidate_timeout of 300 ms");
  const TuneTrial* good = trial_of(r, "MODE=0 BLOCK=256");
  ASSERT_TRUE(good);
  EXPECT_EQ(good->status, TuneTrial::Status::Timed) << good->reason;
  ASSERT_TRUE(r.best_config());
  EXPECT_EQ(r.best_config()->str(), "MODE=0 BLOCK=256");
  EXPECT_EQ(r.context_resets, 0);
  EXPECT_FALSE(r.interrupted);
  EXPECT_FALSE(in.stream.device().poisoned());
  // The tuned best launches and computes the right values.
  in.reset();
  tuner.launch(in.stream, in.y, kN);
  const auto out = in.y.to_host(in.stream);
  for (int i = 0; i < kN; i += 101) ASSERT_EQ(out[i], in.host[i] + 1.0f) << i;
}

TEST(AutotuneFaultChild, DISABLED_AFaultingConfigIsReportedWithItsCause) {
  Inputs in;
  auto k = make_modes();
  TuningSpace space;
  space.constant("MODE", {0, 1}).launch("BLOCK", {128, 256});
  AutotuneOptions o;
  o.persist = false;
  o.warmup = 1;
  o.repeats = 2;
  o.before_each = [&](const Stream&) { in.reset(); };
  o.after_reset = [&] { in.recreate(); };
  auto tuner = autotune(k, space, shape(), o);
  const TuneReport r = tuner.tune(in.stream, in.y, kN);
  SCOPED_TRACE(r.table());
  EXPECT_EQ(trial_of(r, "MODE=0 BLOCK=128")->status, TuneTrial::Status::Timed);
  const TuneTrial* trap = trial_of(r, "MODE=1 BLOCK=128");
  EXPECT_EQ(trap->status, TuneTrial::Status::Faulted);
  EXPECT_CONTAINS(trap->reason, "CUDA_ERROR_ASSERT");
  EXPECT_CONTAINS(trap->reason, "'modes'");
  if (in.stream.device().is_cpu()) {
    // Nothing is poisoned: the other configurations are timed, and the faulting ones fail alike.
    EXPECT_EQ(trial_of(r, "MODE=1 BLOCK=256")->status, TuneTrial::Status::Faulted);
    EXPECT_EQ(trial_of(r, "MODE=0 BLOCK=256")->status, TuneTrial::Status::Timed);
    EXPECT_FALSE(r.interrupted);
    EXPECT_EQ(r.context_resets, 0);
    EXPECT_FALSE(in.stream.device().poisoned());
    ASSERT_TRUE(r.best_config());
    EXPECT_EQ(r.best_config()->get<int>("MODE"), 0);
    in.stream.synchronize();  // the faults were taken off the stream
    return;
  }
  // The driver makes no new context after a sticky fault: the rest cannot be timed.
  EXPECT_EQ(trial_of(r, "MODE=1 BLOCK=256")->status, TuneTrial::Status::Skipped);
  EXPECT_CONTAINS(trial_of(r, "MODE=1 BLOCK=256")->reason, "no new context");
  EXPECT_TRUE(r.interrupted);
  EXPECT_TRUE(in.stream.device().poisoned());
}

TEST(AutotuneFaultGpu, HangingConfigsAreReportedAndTuningGoesOn) {
  CUTLET_REQUIRE_GPU();
  const auto r = cutlet::test::run_child("AutotuneFaultChild.DISABLED_HangingConfigsAreReportedAndTuningGoesOn", {});
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_CONTAINS(r.output, "[  PASSED  ] 1 test");
}

TEST(AutotuneFaultGpu, AFaultingConfigIsReportedWithItsCause) {
  CUTLET_REQUIRE_GPU();
  const auto r = cutlet::test::run_child("AutotuneFaultChild.DISABLED_AFaultingConfigIsReportedWithItsCause", {});
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_CONTAINS(r.output, "[  PASSED  ] 1 test");
}

}  // namespace
