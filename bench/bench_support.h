// Helpers shared by the cutlet benchmarks: GPU checks, the nvcc baseline cubin, raw driver
// entry points, CUDA-event timing, medians, random inputs and child processes.
#pragma once

#include <benchmark/benchmark.h>
#include <cuda.h>  // driver types only: libcuda is never linked
#include <cudaTypedefs.h>

#include <chrono>
#include <cstdint>
#include <exception>
#include <filesystem>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <cutlet/cutlet.h>

namespace cutlet::bench {

/// True when a CUDA driver is usable; otherwise marks `state` skipped with "no CUDA driver"
/// (call before the benchmark loop and return when false).
bool require_gpu(benchmark::State& state);

/// Runs `body(state)`; an exception (a cutlet error, a driver failure, a missing cubin) marks
/// the benchmark skipped with its message instead of ending the whole run.
template <class F>
void guarded(benchmark::State& state, F&& body) {
  try {
    std::forward<F>(body)(state);
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
  }
}

/// The running executable (readlink of /proc/self/exe).
std::filesystem::path executable_path();

/// The file name of the nvcc-built baselines, which the build puts next to cutlet_bench.
inline constexpr const char* kBaselineCubin = "baseline_kernels.sm_90.cubin";

/// Loads the baseline cubin from the executable's directory onto `device`. Throws
/// cutlet::Error naming the path when the file is missing or unreadable.
Module load_baseline_module(const Device& device);

/// The driver function `name` (base name, e.g. "cuLaunchKernel") as a PFN_ type of
/// <cudaTypedefs.h>, resolved for this header's CUDA_VERSION. CUDA 13's header has only the
/// versioned names: PFN_cuLaunchKernel_v4000, PFN_cuMemcpyDtoDAsync_v3020. Throws without a
/// driver.
template <class Pfn>
Pfn driver_fn(const char* name) {
  return reinterpret_cast<Pfn>(driver_entry_point(name, CUDA_VERSION));
}

/// Throws cutlet::CudaError for `call` unless `r` is CUDA_SUCCESS.
inline void check_cu(CUresult r, const char* call) {
  if (r != CUDA_SUCCESS) [[unlikely]]
    throw CudaError(static_cast<int>(r), call);
}

/// The median of `v` (the mean of the middle two for an even count); 0 when empty.
double median(std::vector<double> v);

/// Milliseconds of host wall-clock time since `t0` (steady clock).
inline double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

/// Host microseconds per call of `call` over a batch of `calls` calls. `stream` is drained
/// before the batch and after it, outside the timed region, so queued GPU work neither
/// blocks the calls nor piles up.
template <class F>
double host_us_per_call(const Stream& stream, int calls, F&& call) {
  stream.synchronize();
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < calls; ++i) call();
  const double ms = ms_since(t0);
  stream.synchronize();
  return ms * 1e3 / calls;
}

/// A seed in [1, 2^22] that differs from run to run (std::random_device), for inputs and
/// for constants that must make a kernel no cache has seen.
int fresh_seed();

/// Fills `buf` with floats uniform in [-1, 1) from a generator seeded by `seed` (never all
/// zero, never denormal-heavy). Generates and copies in chunks; synchronizes `stream`.
void fill_random(const Stream& stream, Buffer<float>& buf, std::uint64_t seed);

/// Times GPU work with a pair of CUDA events on one stream.
class EventTimer {
 public:
  explicit EventTimer(const Stream& stream) : stream_(stream), start_(stream.device()), stop_(stream.device()) {}

  /// Milliseconds of GPU time taken by the work `fn` queues on the stream: records an event,
  /// calls fn, records another, waits for it.
  template <class F>
  double time_ms(F&& fn) {
    start_.record(stream_);
    fn();
    stop_.record(stream_);
    stop_.synchronize();
    return Event::elapsed_ms(start_, stop_);
  }

 private:
  const Stream& stream_;
  Event start_, stop_;
};

/// Calls `fn` `warmup` times (then synchronizes), then times it `reps` times with CUDA
/// events (each repeat on its own) and returns the median in milliseconds.
template <class F>
double gpu_median_ms(const Stream& stream, F&& fn, int reps, int warmup = 2) {
  for (int i = 0; i < warmup; ++i) fn();
  stream.synchronize();
  EventTimer timer(stream);
  std::vector<double> ms;
  ms.reserve(reps);
  for (int i = 0; i < reps; ++i) ms.push_back(timer.time_ms(fn));
  return median(std::move(ms));
}

/// Sets the counters of a bandwidth benchmark from per-iteration GPU times: "ms" (median)
/// and "GB/s" (`bytes` moved per call over the median, 1 GB = 1e9 bytes).
void set_bandwidth_counters(benchmark::State& state, const std::vector<double>& samples_ms, double bytes);

/// What a child process printed on its "cutlet-child" line, as key=value numbers, with its
/// exit status and the wall-clock time of the whole process.
struct ChildResult {
  int status = -1;                       ///< pclose status; 0 on success
  double process_ms = 0;                 ///< from spawn to exit, as the parent saw it
  std::string mode;                      ///< the child's mode= value
  std::map<std::string, double> values;  ///< the other key=value pairs
};

/// Runs this executable again as `<env> <exe> <args>` through the shell (env is a list of
/// NAME=value assignments, already shell-safe), reads its stdout and returns the last line
/// that starts with "cutlet-child". Throws cutlet::Error when the child fails or prints none.
ChildResult run_self_child(const std::string& env, const std::string& args);

/// A new empty directory under the system temporary directory, named `prefix` + random.
std::filesystem::path make_temp_dir(const std::string& prefix);

/// The child mode of compile_bench.cpp: one first launch (or, without a driver, one compile)
/// of a kernel made new by `seed`, printed as a "cutlet-child" line. Returns the exit status.
int compile_child_main(int seed);

}  // namespace cutlet::bench
