// Google Benchmark integration of the autotuner: one benchmark per configuration and one for the
// tuned best, so tuning results appear in a benchmark program's JSON. Link benchmark::benchmark.
#pragma once

#include <benchmark/benchmark.h>

#include <exception>
#include <string>

#include "cutlet/jit/autotune.h"
#include "cutlet/runtime/event.h"

namespace cutlet {

namespace detail {
/// Times single launches of `launch` on `stream` with CUDA events into `state` (manual time),
/// calling `before_each` before each; a failure skips the benchmark with its message.
template <class Launch>
void run_launch_benchmark(benchmark::State& state, const Stream& stream, Launch&& launch,
                          const std::function<void(const Stream&)>& before_each) {
  try {
    for (int i = 0; i < 3; ++i) {  // warm-up, and the place a failing config reports
      if (before_each) before_each(stream);
      launch();
    }
    stream.synchronize();
    Event start(stream.device()), stop(stream.device());
    std::vector<double> ms;
    for (auto _ : state) {
      if (before_each) before_each(stream);
      start.record(stream);
      launch();
      stop.record(stream);
      stop.synchronize();
      const double t = Event::elapsed_ms(start, stop);
      state.SetIterationTime(t * 1e-3);
      ms.push_back(t);
    }
    state.counters["ms"] = median_of(std::move(ms));
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
  }
}
/// "BLOCK=128 UNROLL=4" as "BLOCK=128/UNROLL=4", the way benchmark names show arguments.
inline std::string benchmark_config_name(const Config& c) {
  std::string s = c.str();
  for (char& ch : s)
    if (ch == ' ') ch = '/';
  return s;
}
}  // namespace detail

/// Registers `<prefix>/<config>` (e.g. "saxpy/BLOCK=128/UNROLL=4") for every configuration
/// the tuner's space tries (pruned ones left out), and `<prefix>/best` for the tuned best
/// (tuning, or reading a stored result, when it first runs; its label names the config).
/// `bind(run)` is called when a benchmark runs, not when registering, and must call
/// `run(stream, args...)` with a stream and the kernel's run-time arguments (made on first
/// use, e.g. by a function-local static), so registering needs no GPU. Each benchmark times
/// single launches between CUDA events (manual time; counter "ms" is the median), calling
/// the tuner's before_each before each; a configuration that fails to compile or launch, or
/// an exception from `bind` (no GPU), is reported with SkipWithError and its message.
/// `tuner` must outlive the benchmarks.
template <class Tuner, class Bind>
void register_autotune_benchmarks(const std::string& prefix, Tuner& tuner, Bind bind) {
  for (const Candidate& c : tuner.space().candidates()) {
    if (!c.pruned.empty()) continue;
    const Config config = c.config;
    benchmark::RegisterBenchmark((prefix + "/" + detail::benchmark_config_name(config)).c_str(),
                                 [&tuner, bind, config](benchmark::State& state) {
                                   try {
                                     bind([&](const Stream& stream, const auto&... args) {
                                       detail::run_launch_benchmark(
                                           state, stream, [&] { tuner.launch_config(config, stream, args...); },
                                           tuner.options().before_each);
                                     });
                                   } catch (const std::exception& e) {
                                     state.SkipWithError(e.what());
                                   }
                                 })
        ->UseManualTime()
        ->Unit(benchmark::kMicrosecond);
  }
  benchmark::RegisterBenchmark((prefix + "/best").c_str(),
                               [&tuner, bind](benchmark::State& state) {
                                 try {
                                   bind([&](const Stream& stream, const auto&... args) {
                                     const Config best = tuner.best(stream, args...);
                                     state.SetLabel(best.str());
                                     detail::run_launch_benchmark(
                                         state, stream, [&] { tuner.launch_config(best, stream, args...); },
                                         tuner.options().before_each);
                                   });
                                 } catch (const std::exception& e) {
                                   state.SkipWithError(e.what());
                                 }
                               })
      ->UseManualTime()
      ->Unit(benchmark::kMicrosecond);
}

}  // namespace cutlet
