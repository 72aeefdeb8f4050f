// Cost of a kernel no cache has seen: compile() alone (no GPU needed), the first launch in a
// process that already compiled another kernel, and the first launch in a fresh process.
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <memory>

#include "bench_support.h"
#include "kernels.h"

namespace cutlet::bench {
namespace {

constexpr int kN = 1024;
constexpr float kA = 0.5f;

/// A constant for make_offset_saxpy that no kernel of this process has used: a start that
/// differs from run to run (so no cache left by an earlier run can answer), then counting.
int next_k() {
  static std::atomic<int> next{fresh_seed()};
  return next.fetch_add(1);
}

/// Compiles another kernel once, so that the measured compiles find LLVM and nvJitLink
/// initialized, as in a program that has compiled before.
void warm_compiler_once() {
  static const bool done = [] {
    make_saxpy().compile();
    return true;
  }();
  (void)done;
}

/// Per-iteration stage times of a compile, in ms.
struct StageSamples {
  std::vector<double> total, lower, optimize, codegen, link, rest;

  /// Records one compile of `total_ms` with stage times `t`; `other_stages_ms` is time in
  /// the total that the caller reports itself (trace, load), kept out of "rest".
  void add(double total_ms, const CompileTimings& t, double other_stages_ms = 0) {
    total.push_back(total_ms);
    lower.push_back(t.lower_ms);
    optimize.push_back(t.optimize_ms);
    codegen.push_back(t.codegen_ms);
    link.push_back(t.link_ms);
    rest.push_back(total_ms - (t.lower_ms + t.optimize_ms + t.codegen_ms + t.link_ms + other_stages_ms));
  }
  /// Sets the medians as counters; `rest_name` names what the total holds besides the stages.
  void report(benchmark::State& state, const char* rest_name) const {
    state.counters["total_ms"] = median(total);
    state.counters["lower_ms"] = median(lower);
    state.counters["optimize_ms"] = median(optimize);
    state.counters["codegen_ms"] = median(codegen);
    state.counters["link_ms"] = median(link);
    state.counters[rest_name] = median(rest);
  }
};

/// Kernel::compile() of a new kernel: trace, IR passes, LLVM lowering, O3, PTX, nvJitLink.
/// Needs no GPU. "compiles_per_iter" must read 1 (every iteration missed cutlet's cache);
/// "link_ms" far below 1 ms would mean a cache under nvJitLink answered.
void BM_compile_new_kernel(benchmark::State& state) {
  guarded(state, [](benchmark::State& state) {
    warm_compiler_once();
    const CacheStats before = cache_stats();
    StageSamples s;
    for (auto _ : state) {
      auto k = make_offset_saxpy(next_k());
      const auto t0 = std::chrono::steady_clock::now();
      auto compiled = k.compile();
      const double ms = ms_since(t0);
      state.SetIterationTime(ms * 1e-3);
      s.add(ms, compiled->timings);
    }
    s.report(state, "trace_passes_ms");
    state.counters["compiles_per_iter"] =
        static_cast<double>(cache_stats().compiles - before.compiles) / static_cast<double>(state.iterations());
  });
}

/// Small buffers and a stream for first launches, made once per process, after a first
/// launch of another kernel (so the process has compiled and loaded before).
struct FirstLaunchEnv {
  Device device{0};
  Stream stream{device};
  Buffer<float> x{kN, device}, y{kN, device};
  LaunchConfig config{.grid = ceil_div(kN, 256), .block = 256};

  FirstLaunchEnv() {
    fill_random(stream, x, 3);
    fill_random(stream, y, 4);
    make_offset_saxpy(next_k()).launch(stream, config, kA, x, y, kN);
    stream.synchronize();
  }
};

FirstLaunchEnv& first_launch_env() {
  static auto e = std::make_unique<FirstLaunchEnv>();
  return *e;
}

/// The first Kernel::launch of a new kernel in a warm process, up to the kernel's completion
/// (stream synchronized): trace, passes, compile, cuModuleLoadData, the launch and the tiny
/// kernel's run. Counters: the stages from last_specialization() ("trace_ms", "passes_ms",
/// the compile stages, "load_ms") and "rest_ms" (launch, run, lookups). Target: < 20 ms.
void BM_first_launch_new_kernel(benchmark::State& state) {
  if (!require_gpu(state)) return;
  guarded(state, [](benchmark::State& state) {
    FirstLaunchEnv& e = first_launch_env();
    StageSamples s;
    std::vector<double> trace, passes, load;
    for (auto _ : state) {
      auto k = make_offset_saxpy(next_k());
      const auto t0 = std::chrono::steady_clock::now();
      k.launch(e.stream, e.config, kA, e.x, e.y, kN);
      e.stream.synchronize();
      const double ms = ms_since(t0);
      state.SetIterationTime(ms * 1e-3);
      auto spec = k.last_specialization();
      s.add(ms, spec->compiled->timings, spec->trace_ms + spec->passes_ms + spec->load_ms);
      trace.push_back(spec->trace_ms);
      passes.push_back(spec->passes_ms);
      load.push_back(spec->load_ms);
    }
    s.report(state, "rest_ms");
    state.counters["trace_ms"] = median(trace);
    state.counters["passes_ms"] = median(passes);
    state.counters["load_ms"] = median(load);
  });
}

/// The first launch of a new kernel in a fresh process: spawns this executable with
/// --cutlet-child=compile (CUDA_CACHE_DISABLE=1 and an empty CUDA_CACHE_PATH, a kernel
/// constant never used before) and reports the child's own timing of that first launch as
/// the iteration time; without a GPU the child times compile() instead (the label says which).
/// "process_ms" is the whole child process as the parent saw it (start-up, CUDA context, exit).
void BM_first_launch_fresh_process(benchmark::State& state) {
  guarded(state, [](benchmark::State& state) {
    const int seed = fresh_seed();
    int i = 0;
    std::vector<double> total, process, link;
    std::string mode;
    for (auto _ : state) {
      const std::filesystem::path cache = make_temp_dir("cutlet-bench-cache-");
      ChildResult r;
      try {
        r = run_self_child("CUDA_CACHE_DISABLE=1 CUDA_CACHE_PATH='" + cache.string() + "'",
                           "--cutlet-child=compile --cutlet-seed=" + std::to_string(seed + i++));
      } catch (...) {
        std::filesystem::remove_all(cache);
        throw;
      }
      std::filesystem::remove_all(cache);
      state.SetIterationTime(r.values["total_ms"] * 1e-3);
      total.push_back(r.values["total_ms"]);
      process.push_back(r.process_ms);
      link.push_back(r.values["link_ms"]);
      mode = r.mode;
    }
    state.counters["total_ms"] = median(total);
    state.counters["process_ms"] = median(process);
    state.counters["link_ms"] = median(link);
    state.SetLabel(mode == "launch" ? "first launch" : "compile only (no GPU)");
  });
}

}  // namespace

int compile_child_main(int seed) {
  try {
    auto k = make_offset_saxpy(seed);
    if (driver_available()) {
      auto t0 = std::chrono::steady_clock::now();
      Device device(0);
      Stream stream(device);
      Buffer<float> x(kN, device), y(kN, device);
      fill_random(stream, x, 5);
      fill_random(stream, y, 6);
      const double init_ms = ms_since(t0);
      const LaunchConfig config{.grid = ceil_div(kN, 256), .block = 256};
      t0 = std::chrono::steady_clock::now();
      k.launch(stream, config, kA, x, y, kN);
      stream.synchronize();
      const double total_ms = ms_since(t0);
      auto spec = k.last_specialization();
      const CompileTimings& t = spec->compiled->timings;
      std::printf(
          "cutlet-child mode=launch total_ms=%.3f init_ms=%.3f trace_ms=%.3f passes_ms=%.3f lower_ms=%.3f "
          "optimize_ms=%.3f codegen_ms=%.3f link_ms=%.3f load_ms=%.3f\n",
          total_ms, init_ms, spec->trace_ms, spec->passes_ms, t.lower_ms, t.optimize_ms, t.codegen_ms, t.link_ms,
          spec->load_ms);
    } else {
      const auto t0 = std::chrono::steady_clock::now();
      auto compiled = k.compile();
      const double total_ms = ms_since(t0);
      const CompileTimings& t = compiled->timings;
      std::printf("cutlet-child mode=compile total_ms=%.3f lower_ms=%.3f optimize_ms=%.3f codegen_ms=%.3f link_ms=%.3f\n",
                  total_ms, t.lower_ms, t.optimize_ms, t.codegen_ms, t.link_ms);
    }
    std::fflush(stdout);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cutlet_bench child: %s\n", e.what());
    return 1;
  }
}

BENCHMARK(BM_compile_new_kernel)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_first_launch_new_kernel)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_first_launch_fresh_process)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(7);

}  // namespace cutlet::bench
