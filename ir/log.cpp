// The CUTLET_LOG level and the one-line writer (see log.h).
#include "cutlet/log.h"

#include <atomic>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>

namespace cutlet {
namespace {

constexpr int kUnread = -1;
std::atomic<int> g_level{kUnread};

/// The level CUTLET_LOG asks for; a value that names none is reported (once: the caller
/// stores the result) and gives Warn.
LogLevel level_from_environment() {
  const char* value = std::getenv("CUTLET_LOG");
  if (!value || !*value) return LogLevel::Warn;
  if (auto level = parse_log_level(value)) return *level;
  std::fprintf(stderr, "cutlet: CUTLET_LOG='%s' is not a log level (warn, info or debug); using warn\n", value);
  return LogLevel::Warn;
}

void write_line(std::string line) {
  for (char& c : line)
    if (c == '\n' || c == '\r') c = ' ';
  line += '\n';
  static std::mutex mu;  // one fwrite per line is atomic for stdio already; this keeps it so for any stderr
  std::lock_guard lock(mu);
  std::fwrite(line.data(), 1, line.size(), stderr);
}

}  // namespace

const char* to_string(LogLevel level) {
  switch (level) {
    case LogLevel::Warn: return "warn";
    case LogLevel::Info: return "info";
    case LogLevel::Debug: return "debug";
  }
  return "?";
}

std::optional<LogLevel> parse_log_level(std::string_view text) {
  auto space = [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; };
  while (!text.empty() && space(text.front())) text.remove_prefix(1);
  while (!text.empty() && space(text.back())) text.remove_suffix(1);
  std::string s(text);
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (s == "warn") return LogLevel::Warn;
  if (s == "info") return LogLevel::Info;
  if (s == "debug") return LogLevel::Debug;
  return std::nullopt;
}

LogLevel log_level() {
  int level = g_level.load(std::memory_order_acquire);
  if (level == kUnread) {
    static std::once_flag once;
    std::call_once(once, [] {
      int unread = kUnread;
      g_level.compare_exchange_strong(unread, static_cast<int>(level_from_environment()), std::memory_order_acq_rel);
    });
    level = g_level.load(std::memory_order_acquire);
  }
  return static_cast<LogLevel>(level);
}

void set_log_level(LogLevel level) {
  log_level();  // CUTLET_LOG is read (and reported) once, never after this
  g_level.store(static_cast<int>(level), std::memory_order_release);
}

bool log_enabled(LogLevel level) { return static_cast<int>(level) <= static_cast<int>(log_level()); }

void log_message(LogLevel level, std::string_view message) {
  if (!log_enabled(level)) return;
  std::string line = "cutlet: ";
  line += message;
  write_line(std::move(line));
}

}  // namespace cutlet
