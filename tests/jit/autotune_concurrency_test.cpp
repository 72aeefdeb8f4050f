// The autotuner's trial loop with its compiles on several threads: candidates compile in
// parallel while earlier ones are timed in order, and every outcome is kept with its reason.
// Host-only hooks: no GPU, no compiler.
#include <gtest/gtest.h>

#include <cutlet/cutlet.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "cutlet/jit/autotune.h"

using namespace cutlet;

namespace {

TEST(RunTrials, PicksTheFastestAndRecordsWhyOthersWereSkipped) {
  TuningSpace space;
  space.constant("UNROLL", {1, 3}).launch("BLOCK", {1024, 2048, 4096, 256, 64});
  space.prune([](const Config& c) { return c.get<int>("BLOCK") > 2048 ? "block above 2048" : ""; });
  space.prune_compiled([](const Config& c, const CompiledKernel& k) {
    return c.get<int>("BLOCK") == 1024 ? "uses " + std::to_string(k.resources.registers) + " registers" : "";
  });
  std::atomic<int> compiling{0}, most_at_once{0};
  std::set<std::thread::id> compile_threads;
  std::mutex mu;
  TuneHooks hooks;
  hooks.compile = [&](const Config& c) {
    const int now = ++compiling;
    for (int m = most_at_once; now > m && !most_at_once.compare_exchange_weak(m, now);) {
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    {
      std::lock_guard lock(mu);
      compile_threads.insert(std::this_thread::get_id());
    }
    --compiling;
    if (c.get<int>("UNROLL") == 3) throw TraceError("cutlet: UNROLL=3 does not divide the tile");
    auto k = std::make_shared<CompiledKernel>();
    k->resources.registers = 32;
    return std::shared_ptr<const CompiledKernel>(k);
  };
  hooks.time = [&](const Config& c, const CompiledKernel&) -> std::vector<double> {
    const int block = c.get<int>("BLOCK");
    if (block == 2048) throw Error("cutlet: block of 2048 threads exceeds the device's 1024");
    const double base = block == 256 ? 1.0 : 2.0;
    return {base + 0.5, base, base + 0.1, base + 9.0, base};  // median: base + 0.1
  };
  TuneRunOptions ro;
  ro.name = "fake";
  ro.threads = 3;
  const TuneReport r = run_trials(space.candidates(), space, hooks, ro);
  ASSERT_EQ(r.trials.size(), 10u);
  ASSERT_TRUE(r.best);
  EXPECT_EQ(r.trials[*r.best].config.str(), "UNROLL=1 BLOCK=256");
  EXPECT_DOUBLE_EQ(r.trials[*r.best].median_ms, 1.1);
  EXPECT_DOUBLE_EQ(r.trials[*r.best].min_ms, 1.0);
  EXPECT_EQ(r.best_config()->str(), "UNROLL=1 BLOCK=256");
  auto status_of = [&](const std::string& config) {
    for (const auto& t : r.trials)
      if (t.config.str() == config) return std::string(to_string(t.status)) + ": " + t.reason;
    return std::string("missing");
  };
  EXPECT_EQ(status_of("UNROLL=1 BLOCK=4096"), "pruned: block above 2048");
  EXPECT_EQ(status_of("UNROLL=1 BLOCK=1024"), "rejected: uses 32 registers");
  EXPECT_EQ(status_of("UNROLL=1 BLOCK=2048"), "launch failed: cutlet: block of 2048 threads exceeds the device's 1024");
  EXPECT_EQ(status_of("UNROLL=3 BLOCK=64"), "compile failed: cutlet: UNROLL=3 does not divide the tile");
  EXPECT_EQ(status_of("UNROLL=1 BLOCK=64"), "timed: ");
  EXPECT_GT(most_at_once.load(), 1) << "configs compile in parallel";
  const std::string table = r.table();
  EXPECT_NE(table.find("* UNROLL=1 BLOCK=256"), std::string::npos) << table;
  EXPECT_NE(table.find("compile failed: cutlet: UNROLL=3"), std::string::npos) << table;
  EXPECT_NE(table.find("1.91x"), std::string::npos) << "2.1 / 1.1 relative to the best\n" << table;
}

TEST(RunTrials, TimesInCandidateOrderWhileLaterOnesCompile) {
  TuningSpace space;
  space.launch("I", {0, 1, 2, 3, 4, 5});
  std::vector<int> timed;
  std::atomic<int> compiled{0};
  std::vector<int> compiled_when_timed;
  TuneHooks hooks;
  hooks.compile = [&](const Config&) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    ++compiled;
    return std::make_shared<const CompiledKernel>();
  };
  hooks.time = [&](const Config& c, const CompiledKernel&) {
    timed.push_back(c.get<int>("I"));
    compiled_when_timed.push_back(compiled.load());
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    return std::vector<double>{1.0};
  };
  TuneRunOptions ro;
  ro.threads = 2;
  const TuneReport r = run_trials(space.candidates(), space, hooks, ro);
  EXPECT_EQ(timed, (std::vector<int>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(compiled_when_timed.back(), 6);
  EXPECT_EQ(compiled_when_timed.front() > 1 || compiled.load() == 6, true);
  EXPECT_TRUE(r.best);
}

}  // namespace
