// Running autotuning trials: compiling candidates on worker threads while the calling thread
// times them in order, recording why skipped ones were skipped, and the report they make.
#pragma once

#include <cstddef>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cutlet/backend/compiler.h"
#include "cutlet/error.h"
#include "cutlet/jit/tuning_space.h"

namespace cutlet {

/// How one configuration fared in a tuning run.
struct TuneTrial {
  /// What happened to it.
  enum class Status {
    Timed,          ///< compiled, launched and timed
    Pruned,         ///< skipped by the space's pruning predicate, before compiling
    CompileFailed,  ///< tracing or compiling threw (e.g. a TraceError for this Const value)
    Rejected,       ///< skipped after compiling: the post-compile predicate, or resources beyond the device's
    LaunchFailed,   ///< the launch was refused (e.g. an impossible launch shape) or failed
    Faulted,        ///< its kernel faulted (illegal address, trap, failed assert_): the context was reset
    TimedOut,       ///< it ran past the candidate time limit (the kernel cannot be stopped: waited for)
    Skipped,        ///< not timed: an earlier configuration left the GPU unusable for the tuning
  };
  Config config;
  Status status = Status::Timed;
  std::string reason;       ///< why it was skipped (empty when timed)
  double median_ms = 0;     ///< median of the timed repeats
  double min_ms = 0;        ///< fastest repeat
  double max_ms = 0;        ///< slowest repeat
  double compile_ms = 0;    ///< compiling it (on a worker thread)
  int registers = -1;       ///< registers per thread, when compiled
};
/// "timed", "pruned", "compile failed", "rejected", "launch failed", "faulted", "timed out",
/// "skipped".
const char* to_string(TuneTrial::Status s);

/// The result of tuning one key.
struct TuneReport {
  std::string name;                 ///< what was tuned (the kernel's name)
  std::string key;                  ///< the tuning key
  std::vector<TuneTrial> trials;    ///< in trial order (empty when the result came from a cache)
  std::optional<std::size_t> best;  ///< index of the fastest timed trial
  bool from_cache = false;          ///< found in memory or on disk: nothing was timed
  std::optional<Config> cached_best;  ///< the best configuration when from_cache
  double cached_best_ms = 0;        ///< its time as recorded when tuned
  double tuning_ms = 0;             ///< wall-clock time of the run
  int context_resets = 0;           ///< Device::reset calls made after faulting configurations
  /// True when configurations were left untimed (status Skipped) because the GPU could not be
  /// used for tuning any more; such a result is not stored.
  bool interrupted = false;

  /// The best configuration (from the trials or the cache); nullopt when every trial failed.
  std::optional<Config> best_config() const;
  /// A printable table: one row per configuration with its median, min and max time, its
  /// time relative to the best, registers, and the reason it was skipped; the best marked.
  std::string table() const;
};

/// Thrown by a TuneHooks::time hook when a configuration runs past its time limit; its
/// message is the trial's reason.
class CandidateTimeout : public Error {
 public:
  using Error::Error;
};

/// What TuneHooks::recover did after a faulted or timed-out configuration.
struct TuneRecovery {
  bool reset = false;  ///< the device's context was reset
  /// Why the remaining configurations cannot be timed; empty: tuning goes on.
  std::string stop;
};

/// What the trial loop calls.
struct TuneHooks {
  /// Compiles `config`; runs on a worker thread. Throws to skip the config (the exception's
  /// message is the reason).
  std::function<std::shared_ptr<const CompiledKernel>(const Config&)> compile;
  /// Checks `config` compiled as `kernel` against the device (registers and shared memory per
  /// block): returns why it cannot run, or "". Runs on the calling thread; may be empty.
  std::function<std::string(const Config&, const CompiledKernel&)> check;
  /// Times `config` (compiled as `kernel`); runs on the calling thread. Returns the timed
  /// repeats in milliseconds; throws to skip the config (a refused or failed launch).
  std::function<std::vector<double>(const Config&, const CompiledKernel&)> time;
  /// Called on the calling thread after `time` threw a ContextFaultError (the trial is
  /// Faulted) or a CandidateTimeout (TimedOut): makes the GPU usable again for the next
  /// trials (a context reset, waiting for a hung kernel) or says why it cannot. May be empty:
  /// then the remaining configurations are skipped.
  std::function<TuneRecovery(const TuneTrial&)> recover;
};

/// How to run the trials.
struct TuneRunOptions {
  std::string name;        ///< for progress lines
  std::string key;         ///< copied into the report
  int threads = 0;         ///< compile threads; 0: the host's cores (std::thread::hardware_concurrency)
  bool verbose = false;    ///< progress on stderr: each config, how many are left, the best so far
  /// The file every trial is logged to, as it completes (CSV, or JSON for a name ending in
  /// ".json"; see TrialLog in tuning_log.h); empty: the file CUTLET_TUNE_LOG names, if any.
  std::filesystem::path log_path;
};

/// Runs the trials of `candidates`: pruned ones are recorded as such; the others are compiled
/// on `options.threads` worker threads in candidate order, filtered by the space's
/// post-compile predicate and by `hooks.check`, and timed by `hooks.time` on the calling
/// thread in candidate order, each as soon as it is compiled, so the GPU times early configs
/// while later ones compile. Failures of one config never stop the run; after a kernel fault
/// or a time-out `hooks.recover` decides whether the later ones can still be timed (else
/// they are Skipped and the report is marked interrupted). Each trial is logged to
/// `options.log_path` (or CUTLET_TUNE_LOG) when one is given, reported at
/// CUTLET_LOG=info (each compile at debug), and timed inside an NVTX range "cutlet autotune
/// <name> <config>" (compiled inside "cutlet autotune-compile <name> <config>").
TuneReport run_trials(const std::vector<Candidate>& candidates, const TuningSpace& space, const TuneHooks& hooks,
                      const TuneRunOptions& options);

/// The median of `v` (the mean of the middle two for an even count); 0 when empty.
double median_of(std::vector<double> v);

}  // namespace cutlet
