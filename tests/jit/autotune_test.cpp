// The autotuner's parts that need no GPU: configurations, spaces (products, lists, pruning,
// cost-model order), stored results, and the trial loop driven by host-only hooks (its
// parallel compiles: autotune_concurrency_test.cpp).
#include <gtest/gtest.h>

#include <stdlib.h>

#include <cutlet/cutlet.h>

#include <filesystem>

#include "cutlet/jit/autotune.h"

using namespace cutlet;
namespace fs = std::filesystem;

namespace {

template <class F>
std::string message_of(F&& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected an exception";
  return "";
}

std::vector<std::string> strs(const std::vector<Candidate>& cs) {
  std::vector<std::string> out;
  for (const auto& c : cs) out.push_back(c.config.str());
  return out;
}

TEST(TuningSpace, ProductOfAxesInOrder) {
  TuningSpace s;
  s.constant("UNROLL", {1, 2}).launch("BLOCK", {64, 128, 256});
  EXPECT_EQ(strs(s.candidates()),
            (std::vector<std::string>{"UNROLL=1 BLOCK=64", "UNROLL=1 BLOCK=128", "UNROLL=1 BLOCK=256",
                                      "UNROLL=2 BLOCK=64", "UNROLL=2 BLOCK=128", "UNROLL=2 BLOCK=256"}));
  EXPECT_EQ(s.constant_names(), std::vector<std::string>{"UNROLL"});
}

TEST(TuningSpace, ExplicitListTimesAxes) {
  TuningSpace s;
  s.constants({"TILE"}).configs({Config{{"TILE", 16}}, Config{{"TILE", 32}}}).option("fma_contraction", {true, false});
  EXPECT_EQ(strs(s.candidates()),
            (std::vector<std::string>{"TILE=16 fma_contraction=true", "TILE=16 fma_contraction=false",
                                      "TILE=32 fma_contraction=true", "TILE=32 fma_contraction=false"}));
  TuningSpace missing;
  missing.constants({"TILE"}).configs({Config{{"BLOCK", 1}}});
  EXPECT_NE(message_of([&] { missing.candidates(); }).find("no value for the constant 'TILE'"), std::string::npos);
}

TEST(TuningSpace, RejectsMistakes) {
  EXPECT_NE(message_of([] { TuningSpace().candidates(); }).find("empty"), std::string::npos);
  EXPECT_NE(message_of([] { TuningSpace().launch("B", {}); }).find("no values"), std::string::npos);
  EXPECT_NE(message_of([] { TuningSpace().launch("B", {1}).launch("B", {2}); }).find("twice"), std::string::npos);
  EXPECT_NE(message_of([] { TuningSpace().option("fast", {true}); }).find("not a tunable compile option"),
            std::string::npos);
  EXPECT_NE(message_of([] { TuningSpace().option("opt_level", {7}); }).find("0, 1, 2 or 3"), std::string::npos);
  EXPECT_NE(message_of([] { TuningSpace().launch("a b", {1}); }).find("not a valid name"), std::string::npos);
}

// Triton's num_warps and num_stages: tile kernels tune their warps and stages as options.
TEST(TuningSpace, TileWarpsAndStagesAreOptionsOfTileKernels) {
  TuningSpace s;
  s.option("tile_warps", {4, 8}).option("tile_stages", {3, 4});
  auto c = s.candidates();
  ASSERT_EQ(c.size(), 4u);
  EXPECT_EQ(c[3].config.str(), "tile_warps=8 tile_stages=4");
  KernelOptions tile;
  tile.tile_warps = 4;
  KernelOptions o = apply_config_options(tile, c[3].config);
  EXPECT_EQ(o.tile_warps, 8);
  EXPECT_EQ(o.tile_stages, 4);
  EXPECT_NE(message_of([&] { apply_config_options(KernelOptions{}, c[3].config); }).find("applies to tile kernels"),
            std::string::npos);
  EXPECT_NE(message_of([] { TuningSpace().option("tile_warps", {3}); }).find("1, 2, 4, 8, 16 or 32"), std::string::npos);
  EXPECT_NE(message_of([] { TuningSpace().option("tile_stages", {9}); }).find("2 to 8"), std::string::npos);
}

TEST(TuningSpace, PruningKeepsTheConfigWithItsReason) {
  TuningSpace s;
  s.launch("BLOCK", {128, 1024, 2048}).prune([](const Config& c) {
    return c.get<int>("BLOCK") * 64 > 48 * 1024 ? "needs more than 48 KiB of shared memory" : "";
  });
  const auto cs = s.candidates();
  ASSERT_EQ(cs.size(), 3u);
  EXPECT_EQ(cs[0].pruned, "");
  EXPECT_EQ(cs[1].pruned, "needs more than 48 KiB of shared memory");
  EXPECT_EQ(cs[2].pruned, "needs more than 48 KiB of shared memory");
}

TEST(TuningSpace, CostModelOrdersTrialsStably) {
  TuningSpace s;
  s.launch("BLOCK", {64, 128, 256, 512}).cost_model([](const Config& c) {
    return c.get<int>("BLOCK") == 256 ? 0.0 : 1.0;  // 256 first, the rest in the space's order
  });
  EXPECT_EQ(strs(s.candidates()),
            (std::vector<std::string>{"BLOCK=256", "BLOCK=64", "BLOCK=128", "BLOCK=512"}));
}

TEST(TuningSpace, FingerprintFollowsTheConfigurations) {
  auto a = TuningSpace().constant("U", {1, 2}).fingerprint();
  EXPECT_EQ(a, TuningSpace().constant("U", {1, 2}).fingerprint());
  EXPECT_NE(a, TuningSpace().constant("U", {1, 2, 4}).fingerprint());
  EXPECT_NE(a, TuningSpace().launch("U", {1, 2}).fingerprint()) << "a launch parameter is not a constant";
}

TEST(Config, TextFormsAndAccess) {
  Config c{{"BLOCK", 128}, {"alpha", 0.25}, {"fast", true}};
  EXPECT_EQ(c.str(), "BLOCK=128 alpha=0.25 fast=true");
  EXPECT_EQ(Config::parse(c.serialize()), c);
  EXPECT_EQ(c.get<int>("BLOCK"), 128);
  EXPECT_EQ(c.get<float>("alpha"), 0.25f);
  EXPECT_NE(message_of([&] { c.at("TILE"); }).find("no value named 'TILE'"), std::string::npos);
  EXPECT_NE(message_of([] { Config{{"A", 1}, {"A", 2}}; }).find("twice"), std::string::npos);
  const KernelOptions o = apply_config_options(
      KernelOptions{}, Config{{"opt_level", 1}, {"fma_contraction", false}, {"approx_math", true}, {"BLOCK", 64}});
  EXPECT_EQ(o.opt_level, 1);
  EXPECT_FALSE(o.fma_contraction);
  EXPECT_TRUE(o.approx_math);
  EXPECT_FALSE(o.flush_denormals);
  EXPECT_EQ(size_bucket(0), 1u);
  EXPECT_EQ(size_bucket(1000), 1024u);
  EXPECT_EQ(size_bucket(1024), 1024u);
}

TuningRecord sample_record() {
  TuningRecord r;
  r.key = "tuner=saxpy\nuser=n<=1024\ndevice=NVIDIA H200 (sm_90)\n";
  r.best = Config{{"UNROLL", 4}, {"BLOCK", 256}};
  r.best_ms = 0.0123;
  r.ir_hash = 0xfeedbeef12345678ull;
  r.timed = 9;
  r.created_unix = 1700000000;
  return r;
}

TEST(TuningRecord, RoundTripsAndRejectsDamage) {
  const TuningRecord r = sample_record();
  const std::string text = r.serialize();
  ASSERT_EQ(TuningRecord::parse(text), r);
  EXPECT_FALSE(TuningRecord::parse(text.substr(0, text.size() / 2)));
  std::string flipped = text;
  flipped[text.find("UNROLL")] = 'X';
  EXPECT_FALSE(TuningRecord::parse(flipped)) << "checksum";
  EXPECT_FALSE(TuningRecord::parse(""));
}

struct TempDir {
  fs::path path;
  TempDir() {
    std::string t = (fs::temp_directory_path() / "cutlet-tuning-test-XXXXXX").string();
    path = ::mkdtemp(t.data());
  }
  ~TempDir() { fs::remove_all(path); }
};

TEST(TuningStore, SavesLoadsListsAndClears) {
  TempDir dir;
  TuningStore store(dir.path / "tuning");
  const TuningRecord r = sample_record();
  EXPECT_FALSE(store.load(r.key));
  ASSERT_TRUE(store.save(r));
  EXPECT_EQ(store.load(r.key), r);
  EXPECT_FALSE(store.load(r.key + "x")) << "another key";
  TuningStore other(dir.path / "tuning");  // as another process would see it
  EXPECT_EQ(other.load(r.key), r);
  EXPECT_EQ(other.list().size(), 1u);
  EXPECT_EQ(other.clear(), 1u);
  EXPECT_FALSE(store.load(r.key));
}

/// A space of four configs whose "time" is known: BLOCK=256 is fastest; UNROLL=3 fails to
/// compile, BLOCK=2048 fails to launch, BLOCK=4096 is pruned, BLOCK=1024 is rejected.
TEST(RunTrials, ReportsProgressWhenVerbose) {
  TuningSpace space;
  space.launch("I", {1, 2});
  TuneHooks hooks;
  hooks.compile = [](const Config&) { return std::make_shared<const CompiledKernel>(); };
  hooks.time = [](const Config& c, const CompiledKernel&) { return std::vector<double>{c.get<double>("I")}; };
  TuneRunOptions ro;
  ro.name = "progress";
  ro.verbose = true;
  testing::internal::CaptureStderr();
  run_trials(space.candidates(), space, hooks, ro);
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("[1/2] I=1: 1.0000 ms; 1 left; best I=1"), std::string::npos) << err;
  EXPECT_NE(err.find("[2/2] I=2: 2.0000 ms; 0 left; best I=1"), std::string::npos) << err;
}

TEST(RunTrials, ReportsEachTrialAtLogLevelInfo) {
  TuningSpace space;
  space.launch("I", {1, 2});
  TuneHooks hooks;
  hooks.compile = [](const Config&) { return std::make_shared<const CompiledKernel>(); };
  hooks.time = [](const Config& c, const CompiledKernel&) { return std::vector<double>{c.get<double>("I")}; };
  TuneRunOptions ro;
  ro.name = "logged_progress";
  const LogLevel saved = log_level();
  set_log_level(LogLevel::Info);
  testing::internal::CaptureStderr();
  run_trials(space.candidates(), space, hooks, ro);
  const std::string info = testing::internal::GetCapturedStderr();
  set_log_level(LogLevel::Debug);
  testing::internal::CaptureStderr();
  run_trials(space.candidates(), space, hooks, ro);
  const std::string debug = testing::internal::GetCapturedStderr();
  set_log_level(saved);
  EXPECT_NE(info.find("cutlet: autotune logged_progress: [1/2] I=1: 1.0000 ms; 1 left; best I=1"), std::string::npos)
      << info;
  EXPECT_NE(info.find("cutlet: autotune logged_progress: [2/2] I=2: 2.0000 ms; 0 left; best I=1"), std::string::npos)
      << info;
  EXPECT_EQ(info.find("compiled in"), std::string::npos) << "compiles only at debug: " << info;
  EXPECT_NE(debug.find("cutlet: autotune logged_progress: I=2 compiled in"), std::string::npos) << debug;
}

TEST(Autotuner, ChecksConstantsAgainstTheKernel) {
  auto k = kernel([](Ptr<float> y, i32 n, Const<int> UNROLL) { y[0] = cast<float>(n) * UNROLL; }, {.name = "tuned"});
  auto shape = [](const Config&, const Buffer<float>&, int) { return LaunchConfig{.grid = 1, .block = 1}; };
  EXPECT_NE(message_of([&] { autotune(k, TuningSpace().launch("BLOCK", {1}), shape); })
                .find("declares 0 constant(s) but the kernel has 1 Const parameter(s)"),
            std::string::npos);
  auto tuner = autotune(k, TuningSpace().constant("UNROLL", {1, 2}), shape);
  EXPECT_EQ(tuner.options().name, "tuned");
}

TEST(Autotuner, VerboseFromTheEnvironmentIsABoolean) {
  auto k = kernel([](Ptr<float> y, i32 n) { y[0] = cast<float>(n); }, {.name = "tuned_verbose"});
  auto shape = [](const Config&, const Buffer<float>&, int) { return LaunchConfig{.grid = 1, .block = 1}; };
  auto verbose_with = [&](const char* value) {
    ::setenv("CUTLET_AUTOTUNE_VERBOSE", value, 1);
    return autotune(k, TuningSpace().launch("BLOCK", {1}), shape).options().verbose;
  };
  EXPECT_FALSE(verbose_with("false"));
  EXPECT_FALSE(verbose_with(" Off "));
  EXPECT_TRUE(verbose_with("1"));
  EXPECT_TRUE(verbose_with("YES"));
  const std::string msg = message_of([&] { verbose_with("loud"); });
  EXPECT_NE(msg.find("CUTLET_AUTOTUNE_VERBOSE='loud'"), std::string::npos) << msg;
  ::unsetenv("CUTLET_AUTOTUNE_VERBOSE");
}

}  // namespace
