// Bandwidth of saxpy on 2^28 floats (1 GiB per array): the cutlet kernel against the same
// kernel built by nvcc, and a device-to-device copy of the same size, in one run.
#include <cmath>
#include <memory>
#include <span>

#include "bench_support.h"
#include "kernels.h"

namespace cutlet::bench {
namespace {

constexpr int kN = 1 << 28;    ///< elements per array: 1 GiB of floats, far beyond the 60 MB L2
constexpr int kBlock = 256;    ///< threads per block for both saxpy kernels
constexpr int kReps = 10;      ///< event-timed repeats per benchmark iteration (median taken)
constexpr int kIterations = 30;
constexpr float kA = 0.75f;
/// Bytes a saxpy moves: read x, read y, write y.
constexpr double kSaxpyBytes = 3.0 * sizeof(float) * kN;
/// Bytes a copy of one array moves, counted read + written as for the copy figure in GPU.md.
constexpr double kCopyBytes = 2.0 * sizeof(float) * kN;

/// The arrays, kernels and driver entry points of the saxpy benchmarks, made once per
/// process; both saxpy kernels are checked against the CPU on a prefix before any timing.
struct SaxpyEnv {
  Device device{0};
  Stream stream{device};
  Buffer<float> x{kN, device}, y{kN, device}, copy_out{kN, device};
  SaxpyKernel saxpy = make_saxpy();
  Module baseline = load_baseline_module(device);
  Function nvcc_saxpy = baseline.function("saxpy");
  LaunchConfig config{.grid = ceil_div(kN, kBlock), .block = kBlock};
  PFN_cuMemcpyDtoDAsync_v3020 cu_memcpy_dtod = driver_fn<PFN_cuMemcpyDtoDAsync_v3020>("cuMemcpyDtoDAsync");
  float a = kA;
  CUdeviceptr xp = 0, yp = 0;
  int n = kN;
  void* args[4] = {&a, &xp, &yp, &n};

  SaxpyEnv() {
    fill_random(stream, x, 11);
    fill_random(stream, y, 12);
    xp = x.data();
    yp = y.data();
    verify("cutlet", [this] { run_cutlet(); });
    verify("nvcc", [this] { run_nvcc(); });
  }

  void run_cutlet() { saxpy.launch(stream, config, kA, x, y, kN); }
  void run_nvcc() { cutlet::launch(stream, nvcc_saxpy, config, args); }
  void run_copy() {
    check_cu(cu_memcpy_dtod(copy_out.data(), x.data(), x.bytes(), static_cast<CUstream>(stream.handle())),
             "cuMemcpyDtoDAsync");
  }

  /// Runs `run` once and compares the first 2^16 elements of y with a*x+y on the CPU;
  /// throws cutlet::Error naming `who` on a mismatch.
  template <class F>
  void verify(const char* who, F&& run) {
    constexpr std::size_t kCheck = std::size_t{1} << 16;
    std::vector<float> hx(kCheck), before(kCheck), after(kCheck);
    x.copy_to_host(stream, std::span<float>(hx));
    y.copy_to_host(stream, std::span<float>(before));
    run();
    y.copy_to_host(stream, std::span<float>(after));
    stream.synchronize();
    for (std::size_t i = 0; i < kCheck; ++i) {
      const float want = std::fma(kA, hx[i], before[i]);
      if (!(std::fabs(after[i] - want) <= 1e-5f * (1.0f + std::fabs(want))))
        throw Error(std::string("cutlet_bench: the ") + who + " saxpy is wrong at element " + std::to_string(i) +
                    ": got " + std::to_string(after[i]) + ", want " + std::to_string(want));
    }
  }
};

SaxpyEnv& env() {
  static auto e = std::make_unique<SaxpyEnv>();
  return *e;
}

/// Each iteration: the median GPU time of kReps event-timed calls of `run` (after a warm-up
/// call); counters "ms" and "GB/s" from the median over iterations.
template <class F>
void run_bandwidth(benchmark::State& state, const Stream& stream, F&& run, double bytes) {
  std::vector<double> ms;
  for (auto _ : state) {
    const double m = gpu_median_ms(stream, run, kReps, 1);
    state.SetIterationTime(m * 1e-3);
    ms.push_back(m);
  }
  set_bandwidth_counters(state, ms, bytes);
}

/// cutlet saxpy, with the nvcc saxpy and the copy timed in the same iterations, alternating,
/// so "vs_nvcc" and "vs_copy" (ratios of GB/s) are same-run ratios.
void BM_saxpy_cutlet(benchmark::State& state) {
  if (!require_gpu(state)) return;
  guarded(state, [](benchmark::State& state) {
    SaxpyEnv& e = env();
    std::vector<double> cutlet_ms, nvcc_ms, copy_ms;
    for (auto _ : state) {
      const double m = gpu_median_ms(e.stream, [&] { e.run_cutlet(); }, kReps, 1);
      state.SetIterationTime(m * 1e-3);
      cutlet_ms.push_back(m);
      nvcc_ms.push_back(gpu_median_ms(e.stream, [&] { e.run_nvcc(); }, kReps, 1));
      copy_ms.push_back(gpu_median_ms(e.stream, [&] { e.run_copy(); }, kReps, 1));
    }
    set_bandwidth_counters(state, cutlet_ms, kSaxpyBytes);
    const double gbs = state.counters["GB/s"];
    const double nvcc_gbs = kSaxpyBytes / (median(nvcc_ms) * 1e-3) / 1e9;
    const double copy_gbs = kCopyBytes / (median(copy_ms) * 1e-3) / 1e9;
    state.counters["nvcc_GB/s"] = nvcc_gbs;
    state.counters["copy_GB/s"] = copy_gbs;
    state.counters["vs_nvcc"] = gbs / nvcc_gbs;
    state.counters["vs_copy"] = gbs / copy_gbs;
  });
}

/// The nvcc-built saxpy (baseline_kernels.cu) from the cubin, launched with cutlet::launch.
void BM_saxpy_nvcc(benchmark::State& state) {
  if (!require_gpu(state)) return;
  guarded(state, [](benchmark::State& state) {
    SaxpyEnv& e = env();
    run_bandwidth(state, e.stream, [&] { e.run_nvcc(); }, kSaxpyBytes);
  });
}

/// cuMemcpyDtoDAsync of one 1 GiB array: the bandwidth ceiling (bytes read + written).
void BM_copy_dtod(benchmark::State& state) {
  if (!require_gpu(state)) return;
  guarded(state, [](benchmark::State& state) {
    SaxpyEnv& e = env();
    run_bandwidth(state, e.stream, [&] { e.run_copy(); }, kCopyBytes);
  });
}

}  // namespace

BENCHMARK(BM_saxpy_cutlet)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(kIterations);
BENCHMARK(BM_saxpy_nvcc)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(kIterations);
BENCHMARK(BM_copy_dtod)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(kIterations);

}  // namespace cutlet::bench
