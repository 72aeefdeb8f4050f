// Host cost of one kernel launch on a cache hit: cutlet's Kernel::launch against raw
// cuLaunchKernel of the same compiled function, and against nvcc-built kernels.
#include <chrono>
#include <memory>

#include "bench_support.h"
#include "kernels.h"

namespace cutlet::bench {
namespace {

constexpr int kBatch = 256;   ///< launches per timed batch (one benchmark iteration); small
                              ///< enough that the driver's launch queue never fills
constexpr int kBatches = 400; ///< benchmark iterations
constexpr int kN = 1024;      ///< elements: the GPU work per launch is a few microseconds at most
constexpr float kA = 1e-3f;   ///< small, so y stays far from overflow over millions of launches

/// Everything the launch benchmarks share, made once per process: a stream, small inputs,
/// the cutlet saxpy (compiled and loaded by a first launch) and the nvcc baselines.
struct LaunchEnv {
  Device device{0};
  Stream stream{device};
  Buffer<float> x{kN, device}, y{kN, device};
  SaxpyKernel saxpy = make_saxpy();
  Module baseline = load_baseline_module(device);
  Function nvcc_saxpy = baseline.function("saxpy");
  Function nvcc_empty = baseline.function("empty");
  LaunchConfig config{.grid = ceil_div(kN, 256), .block = 256};
  CUfunction cutlet_function = nullptr;  ///< the CUfunction behind saxpy's specialization
  PFN_cuLaunchKernel_v4000 cu_launch = driver_fn<PFN_cuLaunchKernel_v4000>("cuLaunchKernel");
  // Argument values for the raw launches, as the kernels' parameters hold them.
  float a = kA;
  CUdeviceptr xp = 0, yp = 0;
  int n = kN;
  void* args[4] = {&a, &xp, &yp, &n};

  LaunchEnv() {
    fill_random(stream, x, 1);
    fill_random(stream, y, 2);
    saxpy.launch(stream, config, kA, x, y, kN);  // compiles and loads: later launches hit
    stream.synchronize();
    cutlet_function = static_cast<CUfunction>(saxpy.last_specialization()->function.handle());
    xp = x.data();
    yp = y.data();
    device.set_current();  // raw cuLaunchKernel needs the context current on this thread
  }

  /// One raw cuLaunchKernel of `f` with this environment's arguments and geometry.
  void raw_launch(CUfunction f) {
    check_cu(cu_launch(f, static_cast<unsigned>(config.grid.x), 1, 1, static_cast<unsigned>(config.block.x), 1, 1, 0,
                       static_cast<CUstream>(stream.handle()), args, nullptr),
             "cuLaunchKernel");
  }
};

LaunchEnv& env() {
  static auto e = std::make_unique<LaunchEnv>();  // a failed construction is retried by the next caller
  return *e;
}

/// The common loop: each iteration is one batch, whose host time divided by kBatch is the
/// iteration's manual time (so the time column reads as microseconds per launch, the mean
/// over batches); "us_per_launch" is the median over batches.
template <class F>
void run_launch_loop(benchmark::State& state, const Stream& stream, F&& launch_one) {
  std::vector<double> us;
  for (auto _ : state) {
    const double per = host_us_per_call(stream, kBatch, launch_one);
    state.SetIterationTime(per * 1e-6);
    us.push_back(per);
  }
  state.counters["us_per_launch"] = median(us);
}

/// (a) Kernel::launch on a cache hit. Each iteration also times one batch of raw
/// cuLaunchKernel of the same CUfunction with the same arguments, alternating with the
/// cutlet batch, so "vs_raw" is a same-run, same-conditions ratio (target: <= 1.10).
void BM_launch_cutlet_kernel(benchmark::State& state) {
  if (!require_gpu(state)) return;
  guarded(state, [](benchmark::State& state) {
    LaunchEnv& e = env();
    std::vector<double> cutlet_us, raw_us;
    for (auto _ : state) {
      const double c =
          host_us_per_call(e.stream, kBatch, [&] { e.saxpy.launch(e.stream, e.config, kA, e.x, e.y, kN); });
      state.SetIterationTime(c * 1e-6);
      cutlet_us.push_back(c);
      raw_us.push_back(host_us_per_call(e.stream, kBatch, [&] { e.raw_launch(e.cutlet_function); }));
    }
    const double c = median(cutlet_us), r = median(raw_us);
    state.counters["us_per_launch"] = c;
    state.counters["raw_us_per_launch"] = r;
    state.counters["vs_raw"] = r > 0 ? c / r : 0;
  });
}

/// (b) Raw cuLaunchKernel of the cutlet-compiled CUfunction (the floor for (a)).
void BM_launch_raw_cutlet_function(benchmark::State& state) {
  if (!require_gpu(state)) return;
  guarded(state, [](benchmark::State& state) {
    LaunchEnv& e = env();
    run_launch_loop(state, e.stream, [&] { e.raw_launch(e.cutlet_function); });
  });
}

/// cutlet::launch (the runtime layer alone: limit checks, current context) of the nvcc saxpy.
void BM_launch_runtime_nvcc_saxpy(benchmark::State& state) {
  if (!require_gpu(state)) return;
  guarded(state, [](benchmark::State& state) {
    LaunchEnv& e = env();
    run_launch_loop(state, e.stream, [&] { cutlet::launch(e.stream, e.nvcc_saxpy, e.config, e.args); });
  });
}

/// (c) Raw cuLaunchKernel of the nvcc saxpy.
void BM_launch_raw_nvcc_saxpy(benchmark::State& state) {
  if (!require_gpu(state)) return;
  guarded(state, [](benchmark::State& state) {
    LaunchEnv& e = env();
    CUfunction f = static_cast<CUfunction>(e.nvcc_saxpy.handle());
    run_launch_loop(state, e.stream, [&] { e.raw_launch(f); });
  });
}

/// (c) Raw cuLaunchKernel of the nvcc empty kernel: the driver's own launch cost.
void BM_launch_raw_nvcc_empty(benchmark::State& state) {
  if (!require_gpu(state)) return;
  guarded(state, [](benchmark::State& state) {
    LaunchEnv& e = env();
    CUfunction f = static_cast<CUfunction>(e.nvcc_empty.handle());
    run_launch_loop(state, e.stream, [&] { e.raw_launch(f); });
  });
}

}  // namespace

BENCHMARK(BM_launch_cutlet_kernel)->UseManualTime()->Unit(benchmark::kMicrosecond)->Iterations(kBatches);
BENCHMARK(BM_launch_raw_cutlet_function)->UseManualTime()->Unit(benchmark::kMicrosecond)->Iterations(kBatches);
BENCHMARK(BM_launch_runtime_nvcc_saxpy)->UseManualTime()->Unit(benchmark::kMicrosecond)->Iterations(kBatches);
BENCHMARK(BM_launch_raw_nvcc_saxpy)->UseManualTime()->Unit(benchmark::kMicrosecond)->Iterations(kBatches);
BENCHMARK(BM_launch_raw_nvcc_empty)->UseManualTime()->Unit(benchmark::kMicrosecond)->Iterations(kBatches);

}  // namespace cutlet::bench
