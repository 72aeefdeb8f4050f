// Every autotuning trial written to a CSV or JSON file for plotting (CUTLET_TUNE_LOG,
// AutotuneOptions::trial_log).
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include "cutlet/jit/tuning_run.h"

namespace cutlet {

/// The trials of `reports` as CSV (RFC 4180: fields with a comma, a quote or a line break
/// quoted): a header line, then one line per trial with the columns
///   tuner, key, trial (its index in its run), one column per configuration name (those of
///   every report, in order of first appearance; empty where a configuration has none),
///   status (to_string(TuneTrial::Status)), median_ms, min_ms, max_ms (empty unless timed),
///   compile_ms, registers (empty when unknown), best (1 for its run's best trial so far,
///   else 0), error (why it was not timed; empty when it was).
/// The key's line breaks become "; ".
std::string trial_log_csv(const std::vector<TuneReport>& reports);

/// The trials of `reports` as a JSON array of objects, one per trial, with the members
/// "tuner", "key", "trial", "config" (an object of the configuration's values: numbers, or
/// booleans; a float that is not finite as a string), "status", "median_ms", "min_ms",
/// "max_ms" (null unless timed), "compile_ms", "registers" (null when unknown), "best" and
/// "error", as trial_log_csv() describes them.
std::string trial_log_json(const std::vector<TuneReport>& reports);

/// The file the environment variable CUTLET_TUNE_LOG names for trial logs; empty when it is
/// unset or empty.
std::filesystem::path trial_log_from_environment();

/// One tuning run's part of the trial log file `path`: JSON when the name ends in ".json"
/// (any case), CSV otherwise. Each update() rewrites the whole file, through a temporary file
/// renamed into place, with every run this process has logged to `path` (in the order they
/// began, each as last updated), so the file is complete after every trial; a process's first
/// write replaces what an earlier process left there. A failed write is reported once per file
/// (a warning, see log.h) and never throws. Thread-safe.
class TrialLog {
 public:
  explicit TrialLog(std::filesystem::path path);
  TrialLog(const TrialLog&) = delete;
  TrialLog& operator=(const TrialLog&) = delete;

  /// Records `report` (the run so far, or finished) as this run's part and rewrites the file.
  void update(const TuneReport& report);

  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
  std::size_t run_ = 0;  ///< this run's index among the runs logged to path_
};

}  // namespace cutlet
