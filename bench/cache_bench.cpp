// The persistent kernel cache and Const parameters: the first launch of a kernel in a new
// process that finds it on disk, against the cold compile; the launch cost of a kernel with a
// Const parameter on an in-memory hit; and the autotuner's configurations as benchmarks.
#include <stdlib.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <memory>

#include "bench_support.h"
#include "cutlet/jit/autotune_benchmark.h"
#include "kernels.h"

namespace cutlet::bench {
namespace {

// Benchmarks measure compiles, so no benchmark may be answered by the persistent cache of an
// earlier run: the disk cache is off in this executable and its children, except in the
// children started below, which are given their own fresh cache directory.
const bool kDiskCacheOff = [] {
  if (!std::getenv("CUTLET_BENCH_CACHE_CHILD")) ::setenv("CUTLET_CACHE", "0", 1);
  return true;
}();

constexpr int kN = 1024;
constexpr float kA = 0.5f;

/// The child: the first launch (or, without a GPU, the first compile) of make_offset_saxpy(seed)
/// in this process, timed from the call until it returns (the kernel enqueued, not finished),
/// printed as a cutlet-child line with where the code came from.
void BM_cache_child(benchmark::State& state) {
  const int seed = std::atoi(std::getenv("CUTLET_BENCH_CACHE_CHILD"));
  auto k = make_offset_saxpy(seed);
  for (auto _ : state) {
    if (driver_available()) {
      Device device(0);
      Stream stream(device);
      Buffer<float> x(kN, device), y(kN, device);
      stream.synchronize();
      const LaunchConfig config{.grid = ceil_div(kN, 256), .block = 256};
      const auto t0 = std::chrono::steady_clock::now();
      k.launch(stream, config, kA, x, y, kN);
      const double enqueued_ms = ms_since(t0);
      stream.synchronize();
      const auto spec = k.last_specialization();
      std::printf("cutlet-child mode=launch total_ms=%.4f trace_ms=%.4f passes_ms=%.4f compile_ms=%.4f "
                  "load_ms=%.4f disk=%d\n",
                  enqueued_ms, spec->trace_ms, spec->passes_ms, spec->compile_ms, spec->load_ms,
                  spec->source == detail::CompileSource::Disk ? 1 : 0);
    } else {
      const auto t0 = std::chrono::steady_clock::now();
      k.compile();
      const double ms = ms_since(t0);
      std::printf("cutlet-child mode=compile total_ms=%.4f disk=%d\n", ms, cache_stats().disk_hits > 0 ? 1 : 0);
    }
    std::fflush(stdout);
  }
}
const bool kChildRegistered = [] {
  if (std::getenv("CUTLET_BENCH_CACHE_CHILD"))
    benchmark::RegisterBenchmark("cache_child", BM_cache_child)->Iterations(1);
  return true;
}();

/// A new kernel's first launch in a fresh process, twice per iteration with one cache
/// directory: cold (LLVM and nvJitLink run; CUDA_CACHE_DISABLE) and then from the disk cache.
/// The iteration time is the disk hit's, from the launch call until the kernel is enqueued
/// (trace, passes, disk read, cuModuleLoadData, cuLaunchKernel); target: under 1 ms.
/// Counters: "cold_ms" (the same span when compiling), "disk_ms" and the disk hit's stages.
/// Without a GPU the children time compile() instead (the label says which).
void BM_first_launch_disk_hit(benchmark::State& state) {
  guarded(state, [](benchmark::State& state) {
    const int seed = fresh_seed();
    int i = 0;
    std::vector<double> cold, warm, trace, read, load;
    std::string mode;
    for (auto _ : state) {
      const std::filesystem::path dir = make_temp_dir("cutlet-bench-disk-cache-");
      const std::string env = "CUDA_CACHE_DISABLE=1 CUDA_CACHE_PATH='" + dir.string() + "/cuda' CUTLET_CACHE=1 " +
                              "CUTLET_CACHE_DIR='" + dir.string() + "' CUTLET_BENCH_CACHE_CHILD=" +
                              std::to_string(seed + i++);
      ChildResult c, w;
      try {
        c = run_self_child(env, "--benchmark_filter=^cache_child/");
        w = run_self_child(env, "--benchmark_filter=^cache_child/");
      } catch (...) {
        std::filesystem::remove_all(dir);
        throw;
      }
      std::filesystem::remove_all(dir);
      if (c.values["disk"] != 0 || w.values["disk"] != 1)
        throw Error("cutlet_bench: expected a cold compile, then a disk hit; got disk=" +
                    std::to_string(c.values["disk"]) + " then disk=" + std::to_string(w.values["disk"]));
      state.SetIterationTime(w.values["total_ms"] * 1e-3);
      cold.push_back(c.values["total_ms"]);
      warm.push_back(w.values["total_ms"]);
      trace.push_back(w.values["trace_ms"] + w.values["passes_ms"]);
      read.push_back(w.values["compile_ms"]);
      load.push_back(w.values["load_ms"]);
      mode = w.mode;
    }
    state.counters["cold_ms"] = median(cold);
    state.counters["disk_ms"] = median(warm);
    state.counters["trace_passes_ms"] = median(trace);
    state.counters["disk_read_ms"] = median(read);
    state.counters["load_ms"] = median(load);
    state.SetLabel(mode == "launch" ? "first launch to enqueued" : "compile only (no GPU)");
  });
}

/// A saxpy with a Const parameter (K is added), launched on an in-memory hit: the Const
/// value's lookup against raw cuLaunchKernel of the same function, in alternating batches
/// ("vs_raw"; target <= 1.10, as for kernels without Const parameters).
void BM_launch_const_kernel(benchmark::State& state) {
  if (!require_gpu(state)) return;
  guarded(state, [](benchmark::State& state) {
    constexpr int kBatch = 256;
    Device device(0);
    Stream stream(device);
    Buffer<float> x(kN, device), y(kN, device);
    fill_random(stream, x, 1);
    fill_random(stream, y, 2);
    auto k = kernel(
        [](f32 a, Ptr<float> x, Ptr<float> y, i32 n, Const<int> K) {
          i32 i = block_idx().x * block_dim().x + thread_idx().x;
          if_(i < n, [&] { y[i] = a * x[i] + y[i] + K; });
        },
        {.name = "saxpy_const"});
    const LaunchConfig config{.grid = ceil_div(kN, 256), .block = 256};
    for (int v = 0; v < 8; ++v) k.launch(stream, config, 1e-3f, x, y, kN, v);  // several values cached
    stream.synchronize();
    auto f = static_cast<CUfunction>(k.last_specialization()->function.handle());
    auto cu_launch = driver_fn<PFN_cuLaunchKernel_v4000>("cuLaunchKernel");
    float a = 1e-3f;
    CUdeviceptr xp = x.data(), yp = y.data();
    int n = kN;
    void* args[] = {&a, &xp, &yp, &n};
    device.set_current();
    auto batch = [&](auto&& one) {
      stream.synchronize();
      const auto t0 = std::chrono::steady_clock::now();
      for (int i = 0; i < kBatch; ++i) one();
      const double us = ms_since(t0) * 1e3 / kBatch;
      stream.synchronize();
      return us;
    };
    std::vector<double> cutlet_us, raw_us;
    for (auto _ : state) {
      const double c = batch([&] { k.launch(stream, config, 1e-3f, x, y, kN, 7); });
      state.SetIterationTime(c * 1e-6);
      cutlet_us.push_back(c);
      raw_us.push_back(batch([&] {
        check_cu(cu_launch(f, static_cast<unsigned>(config.grid.x), 1, 1, 256, 1, 1, 0,
                           static_cast<CUstream>(stream.handle()), args, nullptr),
                 "cuLaunchKernel");
      }));
    }
    const double c = median(cutlet_us), r = median(raw_us);
    state.counters["us_per_launch"] = c;
    state.counters["raw_us_per_launch"] = r;
    state.counters["vs_raw"] = r > 0 ? c / r : 0;
  });
}

// The autotuner in a benchmark program: one benchmark per configuration of a saxpy that
// handles ITEMS elements per thread, and one for the tuned best.
constexpr int kTuneN = 1 << 24;
auto make_items_saxpy() {
  return kernel(
      [](f32 a, Ptr<float> x, Ptr<float> y, i32 n, Const<int> ITEMS) {
        i32 first = (block_idx().x * block_dim().x + thread_idx().x) * ITEMS;
        for (int j = 0; j < ITEMS; ++j) {
          i32 i = first + j;
          if_(i < n, [&] { y[i] = a * x[i] + y[i]; });
        }
      },
      {.name = "saxpy_items"});
}
auto& items_saxpy() {
  static auto k = make_items_saxpy();
  return k;
}
auto& items_tuner() {
  static auto tuner = autotune(
      items_saxpy(), TuningSpace().constant("ITEMS", {1, 2, 4}).launch("BLOCK", {128, 256, 512}),
      [](const Config& c, float, const Buffer<float>&, const Buffer<float>&, int n) {
        const int block = c.get<int>("BLOCK");
        return LaunchConfig{.grid = ceil_div(ceil_div(n, c.get<int>("ITEMS")), block), .block = block};
      },
      AutotuneOptions{.name = "saxpy_items", .repeats = 15});
  return tuner;
}
struct TuneEnv {
  Device device{0};
  Stream stream{device};
  Buffer<float> x{kTuneN, device}, y{kTuneN, device};
  TuneEnv() {
    fill_random(stream, x, 11);
    fill_random(stream, y, 12);
  }
};
/// Made on first use by a tuning benchmark, once for all of them.
TuneEnv& tune_env() {
  if (!driver_available()) throw Error("no CUDA driver");
  static auto env = std::make_unique<TuneEnv>();
  return *env;
}
const bool kTunedRegistered = [] {
  if (std::getenv("CUTLET_BENCH_CACHE_CHILD")) return false;
  register_autotune_benchmarks("BM_autotune_saxpy_items", items_tuner(), [](auto run) {
    TuneEnv& env = tune_env();
    run(env.stream, 1e-6f, env.x, env.y, kTuneN);
  });
  return true;
}();

}  // namespace

BENCHMARK(BM_first_launch_disk_hit)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(7);
BENCHMARK(BM_launch_const_kernel)->UseManualTime()->Unit(benchmark::kMicrosecond)->Iterations(400);

}  // namespace cutlet::bench
