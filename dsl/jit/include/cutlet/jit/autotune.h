// The autotuner: finds the fastest configuration of a kernel per tuning key, remembers it in
// memory and next to the kernel cache on disk, and launches it.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "cutlet/ir/structural_hash.h"
#include "cutlet/jit/kernel.h"
#include "cutlet/jit/tuning_run.h"
#include "cutlet/jit/tuning_space.h"
#include "cutlet/jit/tuning_store.h"
#include "cutlet/runtime/cuda_error.h"
#include "cutlet/runtime/event.h"

namespace cutlet {

/// How an Autotuner times and stores.
struct AutotuneOptions {
  /// Names the tuning in progress lines, tables and stored results; default: the kernel's name.
  std::string name;
  /// Untimed launches of each configuration before it is timed.
  int warmup = 3;
  /// Timed launches of each configuration (each between two CUDA events); the median counts.
  int repeats = 25;
  /// Called before every launch of a trial, warm-up and timed ones, outside the timed region:
  /// restores or resets the arguments the kernel writes (queue the work on the given stream),
  /// so every trial starts from the same inputs and no trial sees another's output.
  std::function<void(const Stream&)> before_each;
  /// Threads compiling configurations ahead of the timing; 0: the host's cores.
  int compile_threads = 0;
  /// Progress on stderr while tuning (each config, how many are left, the best so far) and
  /// the final table; also turned on by CUTLET_AUTOTUNE_VERBOSE=1.
  bool verbose = false;
  /// A file to log every trial to, for plotting: CSV, or JSON when its name ends in ".json"
  /// (the columns: tuning_log.h). Empty: the file the environment variable CUTLET_TUNE_LOG
  /// names, if any. Runs of one process accumulate in the file; nothing is logged for results
  /// found in memory or on disk.
  std::filesystem::path trial_log;
  /// Store results on disk and use stored ones (so the next process does not tune again).
  bool persist = true;
  /// Where results are stored; empty: TuningStore::default_dir(), next to the kernel cache.
  std::filesystem::path dir;
  /// The most time one configuration's launches (warm-up and timed) may take on the GPU,
  /// checked by polling events; past it the trial is TimedOut. CUDA cannot stop a running
  /// kernel (not even by a context reset, which waits for it), so the tuner then waits up to
  /// `drain_timeout` for it to end and goes on; when it does not end, the remaining
  /// configurations are Skipped. Zero or less: no limit.
  std::chrono::milliseconds candidate_timeout{10000};
  /// How long to wait for a timed-out configuration's kernels to end (see candidate_timeout).
  std::chrono::milliseconds drain_timeout{60000};
  /// Called after a configuration's kernel faulted (illegal address, trap, failed assert_)
  /// and the tuner reset the device's context (Device::reset), which destroyed the stream and
  /// every buffer given to the tuning: recreate them in place (assign new ones to the same
  /// objects that tune() or launch() was given) and restore the inputs; the remaining
  /// configurations are then timed with them. When empty, the remaining configurations are
  /// Skipped (reported so, and the result is not stored), and the caller must recreate its
  /// stream and buffers before using them again.
  std::function<void()> after_reset;
};

/// The default tuning key: none, so one configuration is tuned per argument types and device.
struct NoTuningKey {
  template <class... A>
  std::string operator()(const A&...) const {
    return "";
  }
};

/// The power of two at or above `n` (1 for n <= 1): a size bucket for tuning keys, so that
/// sizes of one magnitude share a tuned configuration.
std::uint64_t size_bucket(std::uint64_t n);

namespace detail {
/// True when the last `n` parameters of Params are Const and no earlier one is.
template <class Params, std::size_t N>
constexpr bool consts_are_trailing() {
  constexpr std::size_t total = std::tuple_size_v<Params>;
  if constexpr (N > total) {
    return false;
  } else {
    return []<std::size_t... I>(std::index_sequence<I...>) {
      return ((param_traits<std::tuple_element_t<I, Params>>::constant == (I >= total - N)) && ...);
    }(std::make_index_sequence<total>{});
  }
}
/// The number of Const parameters of a non-generic lambda F (0 for a generic one).
template <class F>
constexpr std::size_t lambda_const_count() {
  if constexpr (NonGenericCallable<F>) return const_count_v<typename member_params<decltype(&F::operator())>::type>;
  else return 0;
}
/// CUTLET_AUTOTUNE_VERBOSE=1.
bool autotune_verbose_from_environment();
/// The device part of a tuning key: name, architecture and driver version.
std::string tuning_device_text(const Device& device);
/// Why `kernel` cannot run with `shape` on `device` (registers or shared memory per block), or "".
std::string check_resources(const CompiledKernel& kernel, const LaunchConfig& shape, const Device& device);
}  // namespace detail

/// Tunes a kernel over the configurations of a TuningSpace and launches the fastest one.
///
/// The kernel's compile-time constants are its trailing Const parameters, filled from each
/// configuration by the space's constant names in declaration order; the run-time arguments
/// are passed to launch() as usual. `shape(config, args...)` gives the LaunchConfig of a
/// configuration (block size, grid policy, dynamic shared memory). `key(args...)` returns the
/// user's part of the tuning key (shapes, size buckets, dtypes); the device's name,
/// architecture and driver version, the argument types, cutlet's version and the space are
/// always part of it. The best configuration per key is remembered in memory and, with
/// AutotuneOptions::persist, in the tuning directory, checked against the kernel's IR when
/// read back, so that another process, or this one later, does not tune again.
///
/// Tuning compiles the configurations on worker threads (trace + compile, through the kernel
/// caches) while this thread times the compiled ones in order with CUDA events: warm-up
/// launches, then the median of the repeats, calling AutotuneOptions::before_each before
/// each launch. A configuration that the space prunes, that fails to trace or compile, that
/// needs more registers or shared memory than the device has, or whose launch fails, is
/// skipped and the reason kept in the report. One whose kernel faults is reported Faulted
/// (the error names the kernel and its launch); the tuner resets the device's context and,
/// with AutotuneOptions::after_reset, goes on in the fresh one. One that runs past
/// AutotuneOptions::candidate_timeout is reported TimedOut. Thread-safe; concurrent tuning of
/// one key happens once.
template <class F, class Shape, class KeyFn = NoTuningKey>
class Autotuner {
  static constexpr std::size_t kConsts = detail::lambda_const_count<F>();

 public:
  /// A tuner for `kernel`, which must outlive it.
  Autotuner(Kernel<F>& kernel, TuningSpace space, Shape shape, KeyFn key = {}, AutotuneOptions options = {})
      : kernel_(kernel), space_(std::move(space)), shape_(std::move(shape)), key_(std::move(key)),
        options_(std::move(options)), state_(std::make_unique<State>()) {
    if constexpr (detail::NonGenericCallable<F>) {
      using Params = typename detail::member_params<decltype(&F::operator())>::type;
      static_assert(detail::consts_are_trailing<Params, kConsts>(),
                    "cutlet::Autotuner: the kernel's Const parameters must come last (after its run-time "
                    "parameters), in the order the tuning space declares its constants");
    }
    if (space_.constant_names().size() != kConsts)
      throw Error("cutlet::Autotuner for kernel '" + kernel_.name() + "': the tuning space declares " +
                  std::to_string(space_.constant_names().size()) + " constant(s) but the kernel has " +
                  std::to_string(kConsts) +
                  " Const parameter(s); declare one constant per Const parameter, in order (a generic lambda "
                  "cannot take tuned constants: declare the Const<T> parameters' types)");
    if (options_.name.empty()) options_.name = kernel_.name();
    if (detail::autotune_verbose_from_environment()) options_.verbose = true;
  }

  /// Launches the best configuration for `args` on `stream`, tuning first when their key has
  /// no result in memory or on disk (tuning blocks: it compiles the configurations and times
  /// them on `stream`). `args` are the kernel's run-time arguments.
  template <class... Args>
  void launch(const Stream& stream, const Args&... args) {
    const Config best = this->best(stream, args...);
    launch_config(best, stream, args...);
  }

  /// The best configuration for `args`, tuning first if needed (as launch()).
  template <class... Args>
  Config best(const Stream& stream, const Args&... args) {
    const MemoryKey mk = memory_key(stream.device(), args...);
    {
      std::lock_guard lock(state_->mu);
      if (auto it = state_->best.find(mk); it != state_->best.end()) return it->second;
    }
    auto report = tune(stream, args...);
    if (report.context_resets > 0 && !options_.after_reset)
      throw Error("cutlet: autotuning kernel '" + options_.name + "' reset the device's context after a candidate "
                  "faulted, which destroyed the stream and buffers it was given, so it cannot launch on them; set "
                  "AutotuneOptions::after_reset to recreate them, or remove the faulting configurations:\n" +
                  report.table());
    auto best = report.best_config();
    if (!best)
      throw Error("cutlet: autotuning kernel '" + options_.name +
                  "' found no configuration that compiles and launches:\n" + report.table());
    return *best;
  }

  /// The report for `args`' key: a stored result (from_cache, no trials) when one is
  /// remembered or on disk and still matches the kernel, else a new tuning run. Either way
  /// the best configuration is remembered for later launches.
  template <class... Args>
  TuneReport tune(const Stream& stream, const Args&... args) {
    const MemoryKey mk = memory_key(stream.device(), args...);
    std::lock_guard tuning(state_->tune_mu);  // one tuning at a time
    {
      std::lock_guard lock(state_->mu);
      if (auto it = state_->reports.find(mk); it != state_->reports.end()) return it->second;
    }
    const std::string key = full_key(stream.device(), args...);
    TuneReport report;
    std::optional<TuningRecord> stored;
    if (options_.persist)
      if (auto r = store().load(key))
        if (ir_hash_of(r->best, args...) == r->ir_hash) stored = std::move(r);
    if (stored) {
      report.name = options_.name;
      report.key = key;
      report.from_cache = true;
      report.cached_best = stored->best;
      report.cached_best_ms = stored->best_ms;
    } else {
      report = run(stream, key, args...);
      if (auto best = report.best_config(); best && options_.persist && !report.interrupted) {
        TuningRecord r;
        r.key = key;
        r.best = *best;
        r.best_ms = report.trials[*report.best].median_ms;
        r.ir_hash = ir_hash_of(*best, args...);
        r.created_unix = static_cast<std::int64_t>(std::time(nullptr));
        for (const auto& t : report.trials) r.timed += t.status == TuneTrial::Status::Timed;
        store().save(r);
      }
      if (options_.verbose) std::fprintf(stderr, "%s", report.table().c_str());
    }
    if (report.interrupted) return report;  // not remembered: the next call tunes again
    std::lock_guard lock(state_->mu);
    if (auto best = report.best_config()) state_->best[mk] = *best;
    state_->reports[mk] = report;
    state_->order.push_back(mk);
    return report;
  }

  /// Launches configuration `config` for `args` on `stream` (compiling it if needed),
  /// without tuning: its LaunchConfig from the shape function, its Const values, its
  /// compile options.
  template <class... Args>
  void launch_config(const Config& config, const Stream& stream, const Args&... args) {
    launch_with(kernel_for(config), config, stream, shape_(config, args...), args...);
  }

  /// The reports of the keys this tuner tuned or loaded, in that order.
  std::vector<TuneReport> reports() const {
    std::lock_guard lock(state_->mu);
    std::vector<TuneReport> out;
    for (const auto& k : state_->order) out.push_back(state_->reports.at(k));
    return out;
  }
  /// The configurations tuned over.
  const TuningSpace& space() const { return space_; }
  /// The options (name filled in).
  const AutotuneOptions& options() const { return options_; }

 private:
  using MemoryKey = std::tuple<int, std::uint32_t, std::string>;
  struct State {
    std::mutex mu, tune_mu;
    std::map<MemoryKey, Config> best;
    std::map<MemoryKey, TuneReport> reports;
    std::vector<MemoryKey> order;
    std::map<std::string, std::unique_ptr<Kernel<F>>> variants;  // by compile options
    std::map<int, std::string> devices;
    std::unique_ptr<TuningStore> store;
  };

  template <class... Args>
  static std::uint32_t args_id() {
    static const std::uint32_t id = detail::next_signature_id(args_counter_);
    return id;
  }
  template <class... Args>
  static const std::string& args_text() {
    static const std::string text = [] {
      std::string t;
      ((t += (t.empty() ? "" : ", ") + detail::type_name<Args>()), ...);
      return t;
    }();
    return text;
  }

  template <class... Args>
  MemoryKey memory_key(const Device& device, const Args&... args) const {
    return {device.ordinal(), args_id<Args...>(), std::string(key_(args...))};
  }

  template <class... Args>
  std::string full_key(const Device& device, const Args&... args) {
    std::string dev;
    {
      std::lock_guard lock(state_->mu);
      auto it = state_->devices.find(device.ordinal());
      if (it == state_->devices.end())
        it = state_->devices.emplace(device.ordinal(), detail::tuning_device_text(device)).first;
      dev = it->second;
    }
    return "tuner=" + options_.name + "\nkernel=" + kernel_.name() + "\nuser=" + std::string(key_(args...)) +
           "\narguments=" + args_text<Args...>() + "\n" + dev + "\ncutlet=" + cutlet_version() +
           "\nspace=" + space_.fingerprint() + "\n";
  }

  TuningStore& store() {
    std::lock_guard lock(state_->mu);
    if (!state_->store)
      state_->store = std::make_unique<TuningStore>(options_.dir.empty() ? TuningStore::default_dir() : options_.dir);
    return *state_->store;
  }

  /// The kernel for `config`'s compile options: the user's kernel when it sets none.
  Kernel<F>& kernel_for(const Config& config) {
    KernelOptions o = apply_config_options(kernel_.options(), config);
    auto id_of = [](const KernelOptions& k) {
      return std::to_string(k.opt_level) + (k.fma_contraction ? "F" : "f") + (k.flush_denormals ? "D" : "d") +
             (k.approx_math ? "A" : "a");
    };
    const std::string id = id_of(o);
    if (id == id_of(kernel_.options())) return kernel_;
    if constexpr (std::copy_constructible<F>) {
      std::lock_guard lock(state_->mu);
      auto& k = state_->variants[id];
      if (!k) k = std::make_unique<Kernel<F>>(kernel_.with_options(std::move(o)));
      return *k;
    } else {
      throw Error("cutlet::Autotuner: tuning compile options needs a copyable kernel lambda (kernel '" +
                  kernel_.name() + "')");
    }
  }

  template <class... Args>
  void launch_with(Kernel<F>& k, const Config& c, const Stream& s, const LaunchConfig& lc, const Args&... args) {
    [&]<std::size_t... I>(std::index_sequence<I...>) {
      k.launch(s, lc, args..., c.at(space_.constant_names()[I])...);
    }(std::make_index_sequence<kConsts>{});
  }

  template <class... Args>
  std::shared_ptr<const CompiledKernel> compile_config(const Config& c, const Device& device, const Args&... args) {
    Kernel<F>& k = kernel_for(c);
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
      return k.compile_for(device, args..., c.at(space_.constant_names()[I])...);
    }(std::make_index_sequence<kConsts>{});
  }

  template <class... Args>
  std::uint64_t ir_hash_of(const Config& c, const Args&... args) {
    try {
      Kernel<F>& k = kernel_for(c);
      return [&]<std::size_t... I>(std::index_sequence<I...>) {
        return ir::structural_hash(k.trace_ir_for(args..., c.at(space_.constant_names()[I])...));
      }(std::make_index_sequence<kConsts>{});
    } catch (const Error&) {
      return 0;  // a config that no longer traces never matches a stored result
    }
  }

  template <class... Args>
  TuneReport run(const Stream& stream, const std::string& key, const Args&... args) {
    const Device device = stream.device();
    TuneHooks hooks;
    hooks.compile = [&](const Config& c) { return compile_config(c, device, args...); };
    hooks.check = [&](const Config& c, const CompiledKernel& k) {
      return detail::check_resources(k, shape_(c, args...), device);
    };
    hooks.time = [&](const Config& c, const CompiledKernel&) {
      Kernel<F>& k = kernel_for(c);
      const LaunchConfig lc = shape_(c, args...);
      check_launch_config(device, lc, kernel_.name().c_str());  // before any before_each
      const auto limit = options_.candidate_timeout;
      const auto deadline = std::chrono::steady_clock::now() + limit;
      // Waits for `e`, within the configuration's time limit.
      auto wait = [&](const Event& e) {
        if (limit.count() <= 0) return e.synchronize();
        if (!e.synchronize_for(deadline - std::chrono::steady_clock::now()))
          throw CandidateTimeout("its launches ran past the candidate_timeout of " + std::to_string(limit.count()) +
                                 " ms (a running kernel cannot be stopped)");
      };
      auto once = [&] {
        if (options_.before_each) options_.before_each(stream);
        launch_with(k, c, stream, lc, args...);
      };
      for (int i = 0; i < options_.warmup; ++i) once();
      Event start(device), stop(device);
      stop.record(stream);
      wait(stop);
      std::vector<double> ms;
      for (int i = 0; i < std::max(1, options_.repeats); ++i) {
        if (options_.before_each) options_.before_each(stream);
        start.record(stream);
        launch_with(k, c, stream, lc, args...);
        stop.record(stream);
        wait(stop);
        ms.push_back(Event::elapsed_ms(start, stop));
      }
      return ms;
    };
    hooks.recover = [&](const TuneTrial& trial) { return recover(trial, stream); };
    TuneRunOptions ro;
    ro.name = options_.name;
    ro.key = key;
    ro.threads = options_.compile_threads;
    ro.verbose = options_.verbose;
    ro.log_path = options_.trial_log;
    return run_trials(space_.candidates(), space_, hooks, ro);
  }

  /// After a faulted or timed-out trial: waits for a hung kernel to end, or resets the
  /// context after a fault and lets the caller recreate its stream and buffers. A kernel of
  /// the CPU device that failed poisoned nothing: its error is taken off the stream, and
  /// tuning goes on.
  TuneRecovery recover(const TuneTrial& trial, const Stream& stream) {
    const Device device = stream.device();
    TuneRecovery out;
    if (trial.status == TuneTrial::Status::Faulted && device.is_cpu()) {
      try {
        stream.synchronize();
      } catch (const KernelError&) {
      }
      return out;
    }
    if (trial.status == TuneTrial::Status::TimedOut) {
      try {
        Event drained(device, false);
        drained.record(stream);
        if (drained.synchronize_for(options_.drain_timeout)) return out;  // nothing poisoned: go on
        out.stop = "its kernels still ran " + std::to_string(options_.drain_timeout.count()) +
                   " ms after the time limit (drain_timeout); a running kernel cannot be stopped in this "
                   "process, so the GPU cannot time other configurations";
        return out;
      } catch (const ContextFaultError&) {
        // It faulted in the end: reset as for a fault.
      }
    }
    device.reset();
    out.reset = true;
    if (!options_.after_reset) {
      out.stop = "the context was reset, which destroyed the tuning's stream and buffers; set "
                 "AutotuneOptions::after_reset to recreate them and go on";
      return out;
    }
    options_.after_reset();
    return out;
  }

  Kernel<F>& kernel_;
  TuningSpace space_;
  Shape shape_;
  KeyFn key_;
  AutotuneOptions options_;
  std::unique_ptr<State> state_;
  static inline std::atomic<std::uint32_t> args_counter_{0};
};

/// Makes an Autotuner for `kernel` over `space`, launching each configuration with
/// `shape(config, args...)` and keying results by `key(args...)` (see Autotuner):
///
///   auto tuned = cutlet::autotune(k, TuningSpace().constant("UNROLL", {1, 2, 4}).launch("BLOCK", {128, 256}),
///       [](const Config& c, const Buffer<float>&, int n) {
///         return LaunchConfig{.grid = ceil_div(n, c.get<int>("BLOCK")), .block = c.get<int>("BLOCK")}; },
///       [](const Buffer<float>&, int n) { return std::to_string(size_bucket(n)); });
///   tuned.launch(stream, x, n);
template <class F, class Shape, class KeyFn>
  requires(!std::is_same_v<std::remove_cvref_t<KeyFn>, AutotuneOptions>)
Autotuner<F, Shape, KeyFn> autotune(Kernel<F>& kernel, TuningSpace space, Shape shape, KeyFn key,
                                    AutotuneOptions options = {}) {
  return Autotuner<F, Shape, KeyFn>(kernel, std::move(space), std::move(shape), std::move(key), std::move(options));
}
/// As above, without a user key: one configuration per argument types and device.
template <class F, class Shape>
Autotuner<F, Shape> autotune(Kernel<F>& kernel, TuningSpace space, Shape shape, AutotuneOptions options = {}) {
  return Autotuner<F, Shape>(kernel, std::move(space), std::move(shape), NoTuningKey{}, std::move(options));
}

}  // namespace cutlet
