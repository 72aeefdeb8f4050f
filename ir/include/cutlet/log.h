// cutlet's messages on stderr (CUTLET_LOG): warnings, and on request what the caches and the
// autotuner do.
#pragma once

#include <optional>
#include <string_view>

namespace cutlet {

/// How much cutlet reports on stderr, each level including the ones before it.
enum class LogLevel {
  Warn,   ///< problems cutlet works around (an unusable disk cache, a dump it cannot write)
  Info,   ///< also cache hits, misses and compiles, and each autotuning trial
  Debug,  ///< also traces, module loads and the autotuner's compiles, with their timings
};

/// "warn", "info" or "debug".
const char* to_string(LogLevel level);

/// The level `text` names: warn, info or debug, in any case, spaces around ignored; nullopt
/// for anything else (an empty `text` included).
std::optional<LogLevel> parse_log_level(std::string_view text);

/// The level in force: set_log_level()'s, else the environment variable CUTLET_LOG's (read at
/// the first call), else Warn. A CUTLET_LOG that names no level is reported once on stderr
/// and Warn used. Thread-safe.
LogLevel log_level();

/// Replaces the level for this process (CUTLET_LOG is not read again).
void set_log_level(LogLevel level);

/// True when messages of `level` are written: `level` is at or below log_level(). Cheap;
/// check it before building a costly message.
bool log_enabled(LogLevel level);

/// Writes "cutlet: <message>" and a newline to stderr as one line (newlines in `message`
/// become spaces) when log_enabled(level). Thread-safe: lines of concurrent calls never mix.
void log_message(LogLevel level, std::string_view message);

}  // namespace cutlet
