// CUTLET_LOG: level names, the level in force, the one-line writer.
#include "cutlet/log.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "jit/child_process.h"

namespace cutlet {
namespace {

/// Restores the process's level at the end of a test.
class LevelRestorer {
 public:
  LevelRestorer() : saved_(log_level()) {}
  ~LevelRestorer() { set_log_level(saved_); }

 private:
  LogLevel saved_;
};

/// The child's `key=` value, "" when it printed none.
std::string value_of(const test::ChildResult& r, const std::string& key) {
  auto it = r.values.find(key);
  return it == r.values.end() ? "" : it->second;
}

std::size_t count_of(const std::string& s, const std::string& what) {
  std::size_t n = 0;
  for (auto p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

TEST(Log, LevelsParseInAnyCaseWithSpacesAround) {
  EXPECT_EQ(parse_log_level("warn"), LogLevel::Warn);
  EXPECT_EQ(parse_log_level("info"), LogLevel::Info);
  EXPECT_EQ(parse_log_level("debug"), LogLevel::Debug);
  EXPECT_EQ(parse_log_level(" DEBUG "), LogLevel::Debug);
  EXPECT_EQ(parse_log_level("Info"), LogLevel::Info);
  EXPECT_EQ(parse_log_level(""), std::nullopt);
  EXPECT_EQ(parse_log_level("verbose"), std::nullopt);
  EXPECT_EQ(parse_log_level("warning"), std::nullopt);
  for (LogLevel l : {LogLevel::Warn, LogLevel::Info, LogLevel::Debug}) EXPECT_EQ(parse_log_level(to_string(l)), l);
}

TEST(Log, EachLevelIncludesTheOnesBefore) {
  LevelRestorer restore;
  set_log_level(LogLevel::Warn);
  EXPECT_TRUE(log_enabled(LogLevel::Warn));
  EXPECT_FALSE(log_enabled(LogLevel::Info));
  set_log_level(LogLevel::Info);
  EXPECT_TRUE(log_enabled(LogLevel::Warn));
  EXPECT_TRUE(log_enabled(LogLevel::Info));
  EXPECT_FALSE(log_enabled(LogLevel::Debug));
  set_log_level(LogLevel::Debug);
  EXPECT_TRUE(log_enabled(LogLevel::Debug));
  EXPECT_EQ(log_level(), LogLevel::Debug);
}

TEST(Log, WritesOnePrefixedLinePerMessage) {
  LevelRestorer restore;
  set_log_level(LogLevel::Info);
  testing::internal::CaptureStderr();
  log_message(LogLevel::Info, "compiled k\nin two lines");
  log_message(LogLevel::Debug, "not shown at info");
  log_message(LogLevel::Warn, "a warning");
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(err, "cutlet: compiled k in two lines\ncutlet: a warning\n");
}

// The child: the level CUTLET_LOG gives, and which messages it lets through.
TEST(LogChild, DISABLED_ReportLevel) {
  const LogLevel level = log_level();
  log_level();
  log_message(LogLevel::Info, "info line");
  log_message(LogLevel::Debug, "debug line");
  std::printf("cutlet-child level=%s\n", to_string(level));
}

TEST(Log, EnvironmentSetsTheLevel) {
  const auto unset = test::run_child("LogChild.DISABLED_ReportLevel", {"CUTLET_LOG="});
  ASSERT_EQ(unset.status, 0) << unset.output;
  EXPECT_EQ(value_of(unset, "level"), "warn") << "empty is the default";
  EXPECT_EQ(unset.output.find("info line"), std::string::npos) << unset.output;
  const auto info = test::run_child("LogChild.DISABLED_ReportLevel", {"CUTLET_LOG=info"});
  EXPECT_EQ(value_of(info, "level"), "info") << info.output;
  EXPECT_NE(info.output.find("cutlet: info line"), std::string::npos) << info.output;
  EXPECT_EQ(info.output.find("debug line"), std::string::npos) << info.output;
  const auto debug = test::run_child("LogChild.DISABLED_ReportLevel", {"CUTLET_LOG=DEBUG"});
  EXPECT_EQ(value_of(debug, "level"), "debug") << debug.output;
  EXPECT_NE(debug.output.find("cutlet: debug line"), std::string::npos) << debug.output;
}

TEST(Log, UnknownLevelIsReportedOnceAndWarnUsed) {
  const auto r = test::run_child("LogChild.DISABLED_ReportLevel", {"CUTLET_LOG=loud"});
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(value_of(r, "level"), "warn") << r.output;
  EXPECT_EQ(count_of(r.output, "CUTLET_LOG='loud' is not a log level (warn, info or debug); using warn"), 1u)
      << r.output;
}

}  // namespace
}  // namespace cutlet
