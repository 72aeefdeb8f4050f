// Autotuning trial logs: the CSV and JSON text of reports made up here, and the file the
// trial loop writes after every trial (from TuneRunOptions::log_path or CUTLET_TUNE_LOG).
#include "cutlet/jit/tuning_log.h"

#include <gtest/gtest.h>

#include <cutlet/cutlet.h>

#include "scoped_env.h"

using namespace cutlet;

namespace {

TuneTrial trial(Config c, TuneTrial::Status status, double median, double compile_ms, int registers,
                std::string reason = "") {
  TuneTrial t;
  t.config = std::move(c);
  t.status = status;
  t.median_ms = median;
  t.min_ms = median * 0.8;
  t.max_ms = median * 2;
  t.compile_ms = compile_ms;
  t.registers = registers;
  t.reason = std::move(reason);
  return t;
}

/// Two made-up runs: one of two trials (the second failed), one with other configuration names.
std::vector<TuneReport> fake_reports() {
  TuneReport a;
  a.name = "saxpy";
  a.key = "tuner=saxpy\nuser=1024\n";
  a.trials.push_back(trial(Config{{"BLOCK", 128}, {"UNROLL", 2}}, TuneTrial::Status::Timed, 1.5, 10, 32));
  a.trials.push_back(trial(Config{{"BLOCK", 256}, {"UNROLL", 2}}, TuneTrial::Status::CompileFailed, 0, 3, -1,
                           "cutlet: \"UNROLL\" does not divide, see above"));
  a.best = 0;
  TuneReport b;
  b.name = "other";
  b.key = "k2";
  b.trials.push_back(trial(Config{{"BLOCK", 64}, {"SCALE", 0.5}, {"FAST", true}}, TuneTrial::Status::Timed, 0.75, 1, -1));
  b.best = 0;
  return {a, b};
}

std::size_t lines_in(const std::string& s) { return static_cast<std::size_t>(std::count(s.begin(), s.end(), '\n')); }

TEST(TrialLog, CsvHasAColumnPerConfigurationNameAndOneLinePerTrial) {
  EXPECT_EQ(trial_log_csv(fake_reports()),
            "tuner,key,trial,BLOCK,UNROLL,SCALE,FAST,status,median_ms,min_ms,max_ms,compile_ms,registers,best,error\n"
            "saxpy,tuner=saxpy; user=1024,0,128,2,,,timed,1.5,1.2,3,10,32,1,\n"
            "saxpy,tuner=saxpy; user=1024,1,256,2,,,compile failed,,,,3,,0,"
            "\"cutlet: \"\"UNROLL\"\" does not divide, see above\"\n"
            "other,k2,0,64,,0.5,true,timed,0.75,0.6,1.5,1,,1,\n");
  EXPECT_EQ(trial_log_csv({}), "tuner,key,trial,status,median_ms,min_ms,max_ms,compile_ms,registers,best,error\n");
}

TEST(TrialLog, JsonHasAnObjectPerTrial) {
  EXPECT_EQ(trial_log_json(fake_reports()),
            "[\n"
            "  {\"tuner\": \"saxpy\", \"key\": \"tuner=saxpy; user=1024\", \"trial\": 0, \"config\": {\"BLOCK\": 128, "
            "\"UNROLL\": 2}, \"status\": \"timed\", \"median_ms\": 1.5, \"min_ms\": 1.2, \"max_ms\": 3, "
            "\"compile_ms\": 10, \"registers\": 32, \"best\": true, \"error\": \"\"},\n"
            "  {\"tuner\": \"saxpy\", \"key\": \"tuner=saxpy; user=1024\", \"trial\": 1, \"config\": {\"BLOCK\": 256, "
            "\"UNROLL\": 2}, \"status\": \"compile failed\", \"median_ms\": null, \"min_ms\": null, \"max_ms\": null, "
            "\"compile_ms\": 3, \"registers\": null, \"best\": false, "
            "\"error\": \"cutlet: \\\"UNROLL\\\" does not divide, see above\"},\n"
            "  {\"tuner\": \"other\", \"key\": \"k2\", \"trial\": 0, \"config\": {\"BLOCK\": 64, \"SCALE\": 0.5, "
            "\"FAST\": true}, \"status\": \"timed\", \"median_ms\": 0.75, \"min_ms\": 0.6, \"max_ms\": 1.5, "
            "\"compile_ms\": 1, \"registers\": null, \"best\": true, \"error\": \"\"}\n"
            "]\n");
  EXPECT_EQ(trial_log_json({}), "[]\n");
}

/// Hooks that compile anything and time config I at I ms; `during` runs inside each timing.
TuneHooks fake_hooks(std::function<void(const Config&)> during = {}) {
  TuneHooks hooks;
  hooks.compile = [](const Config&) { return std::make_shared<const CompiledKernel>(); };
  hooks.time = [during](const Config& c, const CompiledKernel&) {
    if (during) during(c);
    return std::vector<double>{c.get<double>("I")};
  };
  return hooks;
}

TEST(TrialLog, TrialLoopRewritesTheFileAfterEveryTrial) {
  test::ScratchDir scratch;
  const auto path = scratch.path() / "logs" / "trials.csv";
  TuningSpace space;
  space.launch("I", {1, 2, 3});
  space.prune([](const Config& c) { return c.get<int>("I") == 3 ? "too big" : ""; });
  std::vector<std::size_t> seen;  // lines in the file while each config is timed
  TuneRunOptions ro;
  ro.name = "logged";
  ro.threads = 1;
  ro.log_path = path;
  const TuneReport r = run_trials(space.candidates(), space, fake_hooks([&](const Config&) {
    seen.push_back(lines_in(test::file_text(path)));
  }), ro);
  ASSERT_EQ(r.trials.size(), 3u);
  EXPECT_EQ(seen, (std::vector<std::size_t>{0, 2})) << "no file before the first trial, its line during the second";
  const std::string csv = test::file_text(path);
  EXPECT_EQ(csv, trial_log_csv({r}));
  EXPECT_NE(csv.find("logged,,2,3,pruned,,,,0,,0,too big\n"), std::string::npos) << csv;
  EXPECT_EQ(test::file_names(path.parent_path()), (std::set<std::string>{"trials.csv"})) << "no temporary left";
}

TEST(TrialLog, EnvironmentNamesTheFileAndJsonGoesByTheExtension) {
  test::ScratchDir scratch;
  const auto path = scratch.path() / "trials.JSON";
  test::ScopedEnv env("CUTLET_TUNE_LOG", path.string());
  EXPECT_EQ(trial_log_from_environment().string(), path.string());
  TuningSpace space;
  space.launch("I", {2, 1});
  TuneRunOptions ro;
  ro.name = "from_env";
  const TuneReport r = run_trials(space.candidates(), space, fake_hooks(), ro);
  EXPECT_EQ(test::file_text(path), trial_log_json({r}));
  test::ScopedEnv unset("CUTLET_TUNE_LOG", "");
  EXPECT_TRUE(trial_log_from_environment().empty());
}

TEST(TrialLog, RunsOfOneProcessAccumulateInTheFile) {
  test::ScratchDir scratch;
  const auto path = scratch.path() / "both.csv";
  TuningSpace first, second;
  first.launch("I", {1, 2});
  second.launch("I", {3}).constant("J", {7});
  TuneRunOptions ro;
  ro.log_path = path;
  ro.name = "first";
  const TuneReport a = run_trials(first.candidates(), first, fake_hooks(), ro);
  ro.name = "second";
  const TuneReport b = run_trials(second.candidates(), second, fake_hooks(), ro);
  const std::string csv = test::file_text(path);
  EXPECT_EQ(csv, trial_log_csv({a, b}));
  EXPECT_EQ(lines_in(csv), 4u) << csv;
}

TEST(TrialLog, AnUnwritableFileIsReportedOnceAndTuningGoesOn) {
  test::ScratchDir scratch;
  { std::ofstream(scratch.path() / "file") << "x"; }
  TuningSpace space;
  space.launch("I", {1, 2, 3});
  TuneRunOptions ro;
  ro.log_path = scratch.path() / "file" / "trials.csv";
  testing::internal::CaptureStderr();
  const TuneReport r = run_trials(space.candidates(), space, fake_hooks(), ro);
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_TRUE(r.best);
  const std::string warning = "cutlet: cannot write the autotuning trial log";
  const auto at = err.find(warning);
  EXPECT_NE(at, std::string::npos) << err;
  EXPECT_EQ(err.find(warning, at + 1), std::string::npos) << "once: " << err;
}

}  // namespace
