// CUTLET_LOG from several threads at once: each message stays one whole line.
#include "cutlet/log.h"

#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

namespace cutlet {
namespace {

std::size_t count_of(const std::string& s, const std::string& what) {
  std::size_t n = 0;
  for (auto p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

TEST(Log, ConcurrentLinesDoNotMix) {
  const LogLevel saved = log_level();
  set_log_level(LogLevel::Info);
  testing::internal::CaptureStderr();
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([t] {
      for (int i = 0; i < 50; ++i) log_message(LogLevel::Info, std::string(40, static_cast<char>('a' + t)));
    });
  for (auto& t : threads) t.join();
  const std::string err = testing::internal::GetCapturedStderr();
  for (int t = 0; t < 4; ++t)
    EXPECT_EQ(count_of(err, "cutlet: " + std::string(40, static_cast<char>('a' + t)) + "\n"), 50u);
  set_log_level(saved);
}

}  // namespace
}  // namespace cutlet
