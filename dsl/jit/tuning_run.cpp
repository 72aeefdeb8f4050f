// The autotuning trial loop: a pool of compile threads feeding the timing thread, in order.
#include "cutlet/jit/tuning_run.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <exception>
#include <mutex>
#include <thread>

#include "cutlet/jit/tuning_log.h"
#include "cutlet/log.h"
#include "cutlet/runtime/cuda_error.h"
#include "cutlet/scoped_range.h"

namespace cutlet {
namespace {

/// The first line of an exception message (compile logs can be long; the table shows one line).
std::string first_line(const std::string& s, std::size_t max = 240) {
  std::string line = s.substr(0, s.find('\n'));
  if (line.size() > max) line = line.substr(0, max - 3) + "...";
  return line;
}

struct Compiled {
  bool done = false;
  std::shared_ptr<const CompiledKernel> kernel;
  std::string error;
  double ms = 0;
};

}  // namespace

const char* to_string(TuneTrial::Status s) {
  switch (s) {
    case TuneTrial::Status::Timed: return "timed";
    case TuneTrial::Status::Pruned: return "pruned";
    case TuneTrial::Status::CompileFailed: return "compile failed";
    case TuneTrial::Status::Rejected: return "rejected";
    case TuneTrial::Status::LaunchFailed: return "launch failed";
    case TuneTrial::Status::Faulted: return "faulted";
    case TuneTrial::Status::TimedOut: return "timed out";
    case TuneTrial::Status::Skipped: return "skipped";
  }
  return "?";
}

double median_of(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

std::optional<Config> TuneReport::best_config() const {
  if (from_cache) return cached_best;
  if (best) return trials[*best].config;
  return std::nullopt;
}

std::string TuneReport::table() const {
  std::string out = "autotune " + name + (from_cache ? " (from cache: no trials)" : "") + "\n";
  if (from_cache) {
    char ms[64];
    std::snprintf(ms, sizeof ms, "%.4f", cached_best_ms);
    return out + "  best: " + (cached_best ? cached_best->str() : "none") + "  " + ms + " ms (when tuned)\n";
  }
  std::size_t width = 6;
  for (const auto& t : trials) width = std::max(width, t.config.str().size());
  char line[512];
  std::snprintf(line, sizeof line, "  %-*s  %10s  %10s  %10s  %7s  %5s  %s\n", static_cast<int>(width), "config",
                "median ms", "min ms", "max ms", "vs best", "regs", "status");
  out += line;
  const double best_ms = best ? trials[*best].median_ms : 0;
  for (std::size_t i = 0; i < trials.size(); ++i) {
    const TuneTrial& t = trials[i];
    const std::string regs = t.registers >= 0 ? std::to_string(t.registers) : "-";
    if (t.status == TuneTrial::Status::Timed) {
      std::snprintf(line, sizeof line, "%s %-*s  %10.4f  %10.4f  %10.4f  %6.2fx  %5s  %s\n",
                    best && *best == i ? "*" : " ", static_cast<int>(width), t.config.str().c_str(), t.median_ms,
                    t.min_ms, t.max_ms, best_ms > 0 ? t.median_ms / best_ms : 0.0, regs.c_str(), "timed");
    } else {
      std::snprintf(line, sizeof line, "  %-*s  %10s  %10s  %10s  %7s  %5s  %s: %s\n", static_cast<int>(width),
                    t.config.str().c_str(), "-", "-", "-", "-", regs.c_str(), to_string(t.status), t.reason.c_str());
    }
    out += line;
  }
  char tail[128];
  std::snprintf(tail, sizeof tail, "  %zu configs, tuned in %.1f ms\n", trials.size(), tuning_ms);
  return out + tail;
}

TuneReport run_trials(const std::vector<Candidate>& candidates, const TuningSpace& space, const TuneHooks& hooks,
                      const TuneRunOptions& options) {
  using Clock = std::chrono::steady_clock;
  const auto t0 = Clock::now();
  TuneReport report;
  report.name = options.name;
  report.key = options.key;

  // Compile ahead on the worker threads, in candidate order.
  std::vector<Compiled> compiled(candidates.size());
  std::vector<std::size_t> to_compile;
  for (std::size_t i = 0; i < candidates.size(); ++i)
    if (candidates[i].pruned.empty()) to_compile.push_back(i);
  std::mutex mu;
  std::condition_variable cv;
  std::size_t next = 0;
  bool stop = false;
  auto worker = [&] {
    for (;;) {
      std::size_t i;
      {
        std::lock_guard lock(mu);
        if (stop || next == to_compile.size()) return;
        i = to_compile[next++];
      }
      Compiled c;
      const auto start = Clock::now();
      try {
        const std::string config = candidates[i].config.str();
        detail::ScopedRange range{"autotune-compile", options.name, config};
        c.kernel = hooks.compile(candidates[i].config);
        if (!c.kernel) c.error = "the compile hook returned no kernel";
      } catch (const std::exception& e) {
        c.error = e.what();
      } catch (...) {
        c.error = "unknown exception";
      }
      c.ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
      c.done = true;
      if (log_enabled(LogLevel::Debug)) {
        char ms[32];
        std::snprintf(ms, sizeof ms, "%.1f ms", c.ms);
        log_message(LogLevel::Debug, "autotune " + options.name + ": " + candidates[i].config.str() +
                                         (c.error.empty() ? " compiled in " + std::string(ms)
                                                          : " failed to compile in " + std::string(ms) + ": " +
                                                                first_line(c.error)));
      }
      {
        std::lock_guard lock(mu);
        compiled[i] = std::move(c);
      }
      cv.notify_all();
    }
  };
  unsigned threads = options.threads > 0 ? static_cast<unsigned>(options.threads) : std::thread::hardware_concurrency();
  threads = std::max(1u, std::min<unsigned>(threads, static_cast<unsigned>(std::max<std::size_t>(1, to_compile.size()))));
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t) pool.emplace_back(worker);
  struct Joiner {
    std::vector<std::thread>& pool;
    std::mutex& mu;
    bool& stop;
    ~Joiner() {
      {
        std::lock_guard lock(mu);
        stop = true;
      }
      for (auto& t : pool) t.join();
    }
  } joiner{pool, mu, stop};

  std::optional<TrialLog> trial_log;
  if (const auto path = options.log_path.empty() ? trial_log_from_environment() : options.log_path; !path.empty())
    trial_log.emplace(path);

  // Time them in order on this thread.
  std::size_t done = 0;
  std::string stopped;  // why the GPU cannot be used for trials any more, once it cannot
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    TuneTrial trial;
    trial.config = candidates[i].config;
    if (!candidates[i].pruned.empty()) {
      trial.status = TuneTrial::Status::Pruned;
      trial.reason = candidates[i].pruned;
    } else {
      Compiled c;
      {
        std::unique_lock lock(mu);
        cv.wait(lock, [&] { return compiled[i].done; });
        c = std::move(compiled[i]);
      }
      trial.compile_ms = c.ms;
      if (!c.error.empty()) {
        trial.status = TuneTrial::Status::CompileFailed;
        trial.reason = first_line(c.error);
      } else {
        trial.registers = c.kernel->resources.registers;
        std::string rejected;
        try {
          if (space.compiled_pruner()) rejected = space.compiled_pruner()(trial.config, *c.kernel);
          if (rejected.empty() && hooks.check) rejected = hooks.check(trial.config, *c.kernel);
        } catch (const std::exception& e) {
          rejected = first_line(e.what());
        }
        if (!rejected.empty()) {
          trial.status = TuneTrial::Status::Rejected;
          trial.reason = rejected;
        } else if (!stopped.empty()) {
          trial.status = TuneTrial::Status::Skipped;
          trial.reason = stopped;
          report.interrupted = true;
        } else {
          try {
            const std::string config = trial.config.str();
            detail::ScopedRange range{"autotune", options.name, config};
            auto samples = hooks.time(trial.config, *c.kernel);
            if (samples.empty()) throw std::runtime_error("no timed repeats");
            trial.median_ms = median_of(samples);
            trial.min_ms = *std::min_element(samples.begin(), samples.end());
            trial.max_ms = *std::max_element(samples.begin(), samples.end());
          } catch (const ContextFaultError& e) {
            trial.status = TuneTrial::Status::Faulted;
            trial.reason = first_line(e.what(), 800);  // long enough to name the kernel and line
          } catch (const KernelError& e) {  // the CPU device's: nothing poisoned
            trial.status = TuneTrial::Status::Faulted;
            trial.reason = first_line(e.what(), 800);
          } catch (const CandidateTimeout& e) {
            trial.status = TuneTrial::Status::TimedOut;
            trial.reason = first_line(e.what());
          } catch (const std::exception& e) {
            trial.status = TuneTrial::Status::LaunchFailed;
            trial.reason = first_line(e.what());
          }
          if (trial.status == TuneTrial::Status::Faulted || trial.status == TuneTrial::Status::TimedOut) {
            TuneRecovery recovery;
            if (!hooks.recover) recovery.stop = "no way to recover the GPU was given";
            else {
              try {
                recovery = hooks.recover(trial);
              } catch (const std::exception& e) {
                recovery.stop = std::string("recovering the GPU failed: ") + first_line(e.what());
              }
            }
            if (recovery.reset) {
              ++report.context_resets;
              trial.reason += " [context reset]";
            }
            if (!recovery.stop.empty()) stopped = "not timed after " + trial.config.str() + ": " + recovery.stop;
          }
        }
      }
    }
    report.trials.push_back(std::move(trial));
    const TuneTrial& t = report.trials.back();
    if (t.status == TuneTrial::Status::Timed &&
        (!report.best || t.median_ms < report.trials[*report.best].median_ms))
      report.best = report.trials.size() - 1;
    ++done;
    if (options.verbose || log_enabled(LogLevel::Info)) {
      std::string best = report.best ? report.trials[*report.best].config.str() : std::string("none yet");
      char ms[64] = "";
      if (report.best) std::snprintf(ms, sizeof ms, " (%.4f ms)", report.trials[*report.best].median_ms);
      char result[96];
      if (t.status == TuneTrial::Status::Timed) std::snprintf(result, sizeof result, "%.4f ms", t.median_ms);
      else std::snprintf(result, sizeof result, "%s", to_string(t.status));
      char progress[64];
      std::snprintf(progress, sizeof progress, "[%zu/%zu] ", done, candidates.size());
      const std::string line = "autotune " + options.name + ": " + progress + t.config.str() + ": " + result +
                               (t.reason.empty() ? "" : ": " + t.reason) + "; " +
                               std::to_string(candidates.size() - done) + " left; best " + best + ms;
      if (options.verbose) std::fprintf(stderr, "cutlet %s\n", line.c_str());
      else log_message(LogLevel::Info, line);
    }
    if (trial_log) {
      report.tuning_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
      trial_log->update(report);
    }
  }
  report.tuning_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  if (trial_log && candidates.empty()) trial_log->update(report);
  return report;
}

}  // namespace cutlet
