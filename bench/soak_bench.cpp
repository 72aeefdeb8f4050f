// Soak: 10^6 cached launches of a small kernel from 32 host threads on 8 streams, with
// buffers allocated and freed all along, against a single-threaded launch loop and against the
// same threads doing the same through the driver alone (the baseline: the driver serialises
// launches into one context, so threads cost each other time whoever launches); host RSS and
// device memory after the warm-up and at the end, to show that nothing grows.
// CUTLET_BENCH_SOAK_LAUNCHES=<n> sets the number of launches (e.g. 20000 for a quick run).
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "bench_support.h"
#include "kernels.h"

namespace cutlet::bench {
namespace {

constexpr int kThreads = 32;
constexpr int kStreams = 8;
constexpr int kN = 256;            ///< elements per launch: the GPU work is negligible
constexpr int kRealloc = 64;       ///< launches between a thread's buffer replacements
constexpr int kSyncEvery = 512;    ///< launches between a thread's stream synchronizations
constexpr float kA = 1e-6f;

/// CUTLET_BENCH_SOAK_LAUNCHES, or 10^6.
long long soak_launches() {
  const char* v = std::getenv("CUTLET_BENCH_SOAK_LAUNCHES");
  const long long n = v ? std::atoll(v) : 0;
  return n > 0 ? n : 1000000;
}

/// Resident host memory of this process in MiB (/proc/self/statm, second field).
double rss_mib() {
  long pages = 0, resident = 0;
  if (FILE* f = std::fopen("/proc/self/statm", "r")) {
    if (std::fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
    std::fclose(f);
  }
  return static_cast<double>(resident) * static_cast<double>(::sysconf(_SC_PAGESIZE)) / (1 << 20);
}

/// Device memory in use (cuMemGetInfo: total - free, other processes included) in MiB.
double device_used_mib(const Device& d) {
  return static_cast<double>(d.total_memory() - d.free_memory()) / (1 << 20);
}

/// The launch work of one thread: `count` launches of `saxpy` on `stream`, replacing its
/// buffers from the stream's memory pool every kRealloc launches (the old ones are freed on
/// the stream, ordered after the launches that used them).
void launch_loop(SaxpyKernel& saxpy, const Stream& stream, long long count) {
  const LaunchConfig config{.grid = 1, .block = kN};
  std::optional<Buffer<float>> x, y;
  for (long long i = 0; i < count; ++i) {
    if (i % kRealloc == 0) {
      x.emplace(kN, stream);
      y.emplace(kN, stream);
      x->fill_bytes(stream, 0);
      y->fill_bytes(stream, 0);
    }
    saxpy.launch(stream, config, kA, *x, *y, kN);
    if (i % kSyncEvery == kSyncEvery - 1) stream.synchronize();
  }
  stream.synchronize();
}

/// The same work through the driver alone, the baseline: cuMemAllocAsync, cuMemsetD8Async and
/// cuMemFreeAsync for the buffers (from the device's default pool, as Buffer's), and
/// cuLaunchKernel of the function cutlet compiled. Each thread makes the context current.
struct RawDriver {
  PFN_cuCtxSetCurrent_v4000 set_current = driver_fn<PFN_cuCtxSetCurrent_v4000>("cuCtxSetCurrent");
  PFN_cuMemAllocAsync_v11020 alloc = driver_fn<PFN_cuMemAllocAsync_v11020>("cuMemAllocAsync");
  PFN_cuMemFreeAsync_v11020 free = driver_fn<PFN_cuMemFreeAsync_v11020>("cuMemFreeAsync");
  PFN_cuMemsetD8Async_v3020 memset = driver_fn<PFN_cuMemsetD8Async_v3020>("cuMemsetD8Async");
  PFN_cuLaunchKernel_v4000 launch = driver_fn<PFN_cuLaunchKernel_v4000>("cuLaunchKernel");
  PFN_cuStreamSynchronize_v2000 synchronize = driver_fn<PFN_cuStreamSynchronize_v2000>("cuStreamSynchronize");
};

void raw_launch_loop(const RawDriver& d, CUcontext ctx, CUfunction f, const Stream& stream, long long count) {
  check_cu(d.set_current(ctx), "cuCtxSetCurrent");
  const auto s = static_cast<CUstream>(stream.handle());
  const std::size_t bytes = kN * sizeof(float);
  CUdeviceptr x = 0, y = 0;
  float a = kA;
  int n = kN;
  void* args[] = {&a, &x, &y, &n};
  for (long long i = 0; i < count; ++i) {
    if (i % kRealloc == 0) {
      if (x) check_cu(d.free(x, s), "cuMemFreeAsync");
      if (y) check_cu(d.free(y, s), "cuMemFreeAsync");
      check_cu(d.alloc(&x, bytes, s), "cuMemAllocAsync");
      check_cu(d.alloc(&y, bytes, s), "cuMemAllocAsync");
      check_cu(d.memset(x, 0, bytes, s), "cuMemsetD8Async");
      check_cu(d.memset(y, 0, bytes, s), "cuMemsetD8Async");
    }
    check_cu(d.launch(f, 1, 1, 1, kN, 1, 1, 0, s, args, nullptr), "cuLaunchKernel");
    if (i % kSyncEvery == kSyncEvery - 1) check_cu(d.synchronize(s), "cuStreamSynchronize");
  }
  if (x) check_cu(d.free(x, s), "cuMemFreeAsync");
  if (y) check_cu(d.free(y, s), "cuMemFreeAsync");
  check_cu(d.synchronize(s), "cuStreamSynchronize");
}

/// Runs `total` launches of `loop(stream, count)` spread over kThreads threads on `streams`;
/// wall-clock seconds.
template <class Loop>
double run_threads_of(const Loop& loop, const std::vector<Stream>& streams, long long total) {
  std::atomic<int> ready{0};
  std::atomic<bool> go{false};
  std::vector<std::thread> threads;
  std::exception_ptr failure;
  std::atomic<bool> failed{false};
  for (int t = 0; t < kThreads; ++t) {
    const long long count = total / kThreads + (t < total % kThreads ? 1 : 0);
    threads.emplace_back([&, t, count] {
      ++ready;
      while (!go.load(std::memory_order_acquire)) std::this_thread::yield();
      try {
        loop(streams[t % kStreams], count);
      } catch (...) {
        if (!failed.exchange(true)) failure = std::current_exception();
      }
    });
  }
  while (ready.load() < kThreads) std::this_thread::yield();
  const auto t0 = std::chrono::steady_clock::now();
  go.store(true, std::memory_order_release);
  for (auto& th : threads) th.join();
  const double ms = ms_since(t0);
  if (failure) std::rethrow_exception(failure);
  return ms * 1e-3;
}

/// run_threads_of with cutlet's launch loop.
double run_threads(SaxpyKernel& saxpy, const std::vector<Stream>& streams, long long total) {
  return run_threads_of([&](const Stream& s, long long count) { launch_loop(saxpy, s, count); }, streams, total);
}

/// Counter "soak": the threaded run's host microseconds per launch per thread (wall time x
/// threads / launches) against a single-threaded loop's, and the memory before and after.
void BM_soak_threaded_launches(benchmark::State& state) {
  if (!require_gpu(state)) return;
  guarded(state, [](benchmark::State& state) {
    const long long total = soak_launches();
    Device device(0);
    auto saxpy = make_saxpy();
    std::vector<Stream> streams;
    for (int s = 0; s < kStreams; ++s) streams.emplace_back(device);

    // Warm-up: compiles and loads the kernel, fills the pools and the driver's queues.
    const long long warmup = std::max<long long>(kThreads * kSyncEvery, total / 100);
    run_threads(saxpy, streams, warmup);
    device.synchronize();
    const double rss_warm = rss_mib(), dev_warm = device_used_mib(device);

    // The single-threaded reference: one thread, one stream, the same loop.
    const long long single = std::max<long long>(kSyncEvery, total / kThreads);
    const auto t0 = std::chrono::steady_clock::now();
    launch_loop(saxpy, streams[0], single);
    const double single_us = ms_since(t0) * 1e3 / static_cast<double>(single);

    double seconds = 0;
    for (auto _ : state) {
      seconds = run_threads(saxpy, streams, total);
      state.SetIterationTime(seconds);
    }
    device.synchronize();
    const double rss_end = rss_mib(), dev_end = device_used_mib(device);
    const double threaded_us = seconds * 1e6 * kThreads / static_cast<double>(total);

    // The baseline: the same threads, streams and buffer replacements through the driver
    // alone, launching the function cutlet compiled.
    const RawDriver raw;
    const auto ctx = static_cast<CUcontext>(device.context());
    const auto f = static_cast<CUfunction>(saxpy.last_specialization()->function.handle());
    const double raw_seconds = run_threads_of(
        [&](const Stream& s, long long count) { raw_launch_loop(raw, ctx, f, s, count); }, streams, total);
    const double raw_threaded_us = raw_seconds * 1e6 * kThreads / static_cast<double>(total);
    state.counters["raw_us_per_launch_threaded"] = raw_threaded_us;
    state.counters["raw_launches_per_s"] = static_cast<double>(total) / raw_seconds;
    state.counters["threaded_vs_raw_threaded"] = raw_threaded_us > 0 ? threaded_us / raw_threaded_us : 0;
    state.counters["launches"] = static_cast<double>(total);
    state.counters["launches_per_s"] = static_cast<double>(total) / seconds;
    state.counters["us_per_launch_threaded"] = threaded_us;  // host time one thread spends per launch
    state.counters["us_per_launch_single"] = single_us;
    state.counters["threaded_vs_single"] = single_us > 0 ? threaded_us / single_us : 0;
    state.counters["rss_warm_MiB"] = rss_warm;
    state.counters["rss_end_MiB"] = rss_end;
    state.counters["rss_growth_MiB"] = rss_end - rss_warm;
    state.counters["device_used_warm_MiB"] = dev_warm;
    state.counters["device_used_end_MiB"] = dev_end;
    state.counters["device_growth_MiB"] = dev_end - dev_warm;
  });
}

}  // namespace

BENCHMARK(BM_soak_threaded_launches)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace cutlet::bench
