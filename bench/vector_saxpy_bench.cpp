// saxpy with 16-byte vector access on 2^28 floats (1 GiB per array): the cutlet kernel
// (simt_kernels.h) against cub::DeviceTransform::Transform doing the same saxpy, the same
// kernel built by nvcc (baseline_kernels.cu), and a device-to-device copy, in one run.
//
// BM_vector_saxpy/unroll:U/blocks_per_sm:B: U float4s of x and of y per thread and tile;
// B blocks of 256 threads per SM with a grid-stride loop, or B = 0 for one block per tile.
#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <span>
#include <utility>

#include "simt_bench_support.h"
#include "simt_kernels.h"

namespace cutlet::bench {
namespace {

constexpr int kN = 1 << 28;          ///< floats per array, far beyond the 60 MB L2
constexpr int kCheckN = 1'000'003;   ///< an odd size checked in full: a partial tile and a scalar tail
constexpr int kReps = 10;            ///< event-timed calls per implementation and iteration (median)
constexpr int kIterations = 30;
constexpr float kA = 0.75f;
constexpr double kSaxpyBytes = 3.0 * sizeof(float) * kN;  ///< read x, read y, write y
constexpr double kCopyBytes = 2.0 * sizeof(float) * kN;   ///< one array read + written

using VectorSaxpyKernel = decltype(make_vector_saxpy(1));

struct Env {
  Device device{0};
  Stream stream{device};
  Buffer<float> x{kN, device}, y{kN, device}, copy_out{kN, device};
  Module baseline = load_baseline_module(device);
  PFN_cuMemcpyDtoDAsync_v3020 cu_memcpy_dtod = driver_fn<PFN_cuMemcpyDtoDAsync_v3020>("cuMemcpyDtoDAsync");

  struct Variant {
    VectorSaxpyKernel kernel;
    Function nvcc;
    int unroll;
    int blocks_per_sm;
  };
  std::map<std::pair<int, int>, std::unique_ptr<Variant>> variants;

  Env() {
    fill_random(stream, x, 21);
    fill_random(stream, y, 22);
    for (int n : {kCheckN, kN}) verify("cub::DeviceTransform", n, [&] { run_cub(n); });
  }

  float* xp() const { return reinterpret_cast<float*>(x.data()); }
  float* yp() const { return reinterpret_cast<float*>(y.data()); }

  void run_cub(int n) {
    check_cub(cutlet_cub_saxpy(kA, xp(), yp(), n, stream.handle()), "cub::DeviceTransform::Transform");
  }
  void run_copy() {
    check_cu(cu_memcpy_dtod(copy_out.data(), x.data(), x.bytes(), static_cast<CUstream>(stream.handle())),
             "cuMemcpyDtoDAsync");
  }
  LaunchConfig config(const Variant& v, int n) const {
    return {.grid = stream_grid(device, n / 4, v.unroll, v.blocks_per_sm), .block = kBlock};
  }
  void run_cutlet(Variant& v, int n) {
    if (n == kN) {
      v.kernel.launch(stream, config(v, n), kA, x, y, n);
    } else {
      auto xs = Buffer<float>::wrap(x.data(), n, device), ys = Buffer<float>::wrap(y.data(), n, device);
      v.kernel.launch(stream, config(v, n), kA, xs, ys, n);
    }
  }
  void run_nvcc(Variant& v, int n) {
    float a = kA;
    CUdeviceptr xd = x.data(), yd = y.data();
    void* args[] = {&a, &xd, &yd, &n, nullptr};
    cutlet::launch(stream, v.nvcc, config(v, n), args);
  }

  /// The variant (made, checked on kCheckN and kN elements, on first use).
  Variant& variant(int unroll, int blocks_per_sm) {
    auto& slot = variants[{unroll, blocks_per_sm}];
    if (!slot) {
      slot = std::make_unique<Variant>(Variant{make_vector_saxpy(unroll),
                                               baseline.function("vector_saxpy_u" + std::to_string(unroll)), unroll,
                                               blocks_per_sm});
      Variant& v = *slot;
      for (int n : {kCheckN, kN}) {
        verify("cutlet vector saxpy", n, [&] { run_cutlet(v, n); });
        verify("nvcc vector saxpy", n, [&] { run_nvcc(v, n); });
      }
    }
    return *slot;
  }

  /// Runs `run` (a saxpy of the first n elements) once and compares y with a*x+y on the CPU:
  /// every element for small n, else the first and last 2^16; also that the 64 elements after
  /// y[n) are untouched. Throws cutlet::Error naming `who` on a mismatch.
  template <class F>
  void verify(const std::string& who, int n, F&& run) {
    constexpr int kEdge = 1 << 16;
    struct Segment {
      int begin, end;
      bool written;  // inside [0, n): y = a*x + y; after it: unchanged
      std::vector<float> x, before, after;
    };
    std::vector<Segment> segments;
    if (n <= 4 * kEdge) segments.push_back({0, n, true, {}, {}, {}});
    else segments = {{0, kEdge, true, {}, {}, {}}, {n - kEdge, n, true, {}, {}, {}}};
    if (n < kN) segments.push_back({n, std::min(n + 64, kN), false, {}, {}, {}});
    auto read = [&](const Buffer<float>& b, const Segment& s, std::vector<float>& out) {
      out.resize(s.end - s.begin);
      b.memory().copy_to_host(stream, out.data(), out.size() * sizeof(float), std::size_t(s.begin) * sizeof(float));
    };
    for (auto& s : segments) {
      read(x, s, s.x);
      read(y, s, s.before);
    }
    run();
    for (auto& s : segments) read(y, s, s.after);
    stream.synchronize();
    for (const auto& s : segments)
      for (int i = s.begin; i < s.end; ++i) {
        const int k = i - s.begin;
        const float want = s.written ? std::fma(kA, s.x[k], s.before[k]) : s.before[k];
        const float got = s.after[k];
        if (!(std::fabs(got - want) <= 1e-5f * (1.0f + std::fabs(want))))
          throw Error("cutlet_bench: the " + who + " (n = " + std::to_string(n) + ") is wrong at element " +
                      std::to_string(i) + ": got " + std::to_string(got) + ", want " + std::to_string(want));
      }
  }
};

Env& env() {
  static auto e = std::make_unique<Env>();
  return *e;
}

/// The cutlet vector saxpy, with the nvcc twin, CUB's DeviceTransform and the copy timed in
/// the same iterations: counters GB/s (cutlet), cub_GB/s, nvcc_GB/s, copy_GB/s (bytes read +
/// written by the copy), vs_cub, vs_nvcc, vs_copy, and the registers of both kernels.
void BM_vector_saxpy(benchmark::State& state) {
  if (!require_gpu(state)) return;
  guarded(state, [](benchmark::State& state) {
    Env& e = env();
    Env::Variant& v = e.variant(static_cast<int>(state.range(0)), static_cast<int>(state.range(1)));
    SameRun runs;
    runs.add("cutlet", [&] { e.run_cutlet(v, kN); });
    runs.add("nvcc", [&] { e.run_nvcc(v, kN); });
    runs.add("cub", [&] { e.run_cub(kN); });
    runs.add("copy", [&] { e.run_copy(); });
    std::vector<double> ms;
    for (auto _ : state) {
      ms.push_back(runs.iterate(e.stream, kReps));
      state.SetIterationTime(ms.back() * 1e-3);
    }
    set_bandwidth_counters(state, ms, kSaxpyBytes);
    const double gbs = state.counters["GB/s"];
    const double cub = kSaxpyBytes / (runs.median_ms("cub") * 1e-3) / 1e9;
    const double nvcc = kSaxpyBytes / (runs.median_ms("nvcc") * 1e-3) / 1e9;
    const double copy = kCopyBytes / (runs.median_ms("copy") * 1e-3) / 1e9;
    state.counters["cub_GB/s"] = cub;
    state.counters["nvcc_GB/s"] = nvcc;
    state.counters["copy_GB/s"] = copy;
    state.counters["vs_cub"] = gbs / cub;
    state.counters["vs_nvcc"] = gbs / nvcc;
    state.counters["vs_copy"] = gbs / copy;
    state.counters["regs"] = registers_of(v.kernel);
    state.counters["nvcc_regs"] = v.nvcc.attributes().num_regs;
  });
}

}  // namespace

// The first is the configuration RESULTS.md reports; the others show the effect of unrolling
// and of grid-stride loops.
BENCHMARK(BM_vector_saxpy)
    ->ArgNames({"unroll", "blocks_per_sm"})
    ->Args({4, 0})
    ->Args({1, 0})
    ->Args({2, 0})
    ->Args({8, 0})
    ->Args({2, 8})
    ->Args({4, 8})
    ->Args({8, 8})
    ->Args({4, 16})
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond)
    ->Iterations(kIterations);

}  // namespace cutlet::bench
