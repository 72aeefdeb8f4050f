// Persisted autotuning results: the best configuration per tuning key, next to the kernel cache.
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cutlet/jit/tuning_space.h"

namespace cutlet {

/// The best configuration found for one tuning key.
struct TuningRecord {
  std::string key;            ///< the full tuning key (kernel, user key, arguments, device, driver, versions, space)
  Config best;                ///< the fastest configuration
  double best_ms = 0;         ///< its median time
  std::uint64_t ir_hash = 0;  ///< the structural hash of its IR, to notice a changed kernel
  std::size_t timed = 0;      ///< how many configurations were timed
  std::int64_t created_unix = 0;  ///< when it was tuned

  /// The text form, one "name value" line per field and a checksum line last.
  std::string serialize() const;
  /// Reads serialize()'s form; nullopt for text that is truncated, corrupt or malformed.
  static std::optional<TuningRecord> parse(std::string_view text);
  bool operator==(const TuningRecord&) const = default;
};

/// A directory of tuning records, <dir>/<hash of the key>.tune, shared by processes: records
/// are written to a temporary file and renamed into place, and a record that is corrupt or
/// stored for another key is ignored (tuning again replaces it).
class TuningStore {
 public:
  /// A store in `dir` (created on the first save); an empty dir stores nothing.
  explicit TuningStore(std::filesystem::path dir) : dir_(std::move(dir)) {}

  const std::filesystem::path& dir() const { return dir_; }
  /// The record for `key`, if a valid one is stored.
  std::optional<TuningRecord> load(const std::string& key) const;
  /// Stores `r`, replacing the record for its key. Returns false when it cannot be written
  /// (warning once on stderr); tuning results then live in memory only.
  bool save(const TuningRecord& r);
  /// Every valid record.
  std::vector<TuningRecord> list() const;
  /// Removes every record; returns how many. Throws Error when one cannot be removed.
  std::size_t clear();

  /// The tuning directory next to the process-wide kernel cache (<its dir>/tuning), or ""
  /// when that cache is off.
  static std::filesystem::path default_dir();

 private:
  std::filesystem::path dir_;
  std::atomic<bool> warned_{false};
};

}  // namespace cutlet
