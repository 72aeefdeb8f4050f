// cutlet::algorithms against CUB at 2^28 floats (1 GiB), timed in the same iterations:
// BM_algorithms_reduce (algorithms::reduce with plus vs cub::DeviceReduce::Sum) and
// BM_algorithms_scan (algorithms::inclusive_scan with plus vs cub::DeviceScan::InclusiveSum).
// Both results are checked against the CPU before timing.
#include <cmath>
#include <memory>

#include <cutlet/algorithms.h>

#include "simt_bench_support.h"

namespace cutlet::bench {
namespace {

namespace alg = cutlet::algorithms;

constexpr int kN = 1 << 28;
constexpr int kReps = 10;
constexpr int kIterations = 30;
constexpr double kReduceBytes = sizeof(float) * double(kN);        // read once
constexpr double kScanBytes = 2.0 * sizeof(float) * double(kN);    // read and written once

struct Env {
  Device device{0};
  Stream stream{device};
  Buffer<float> x{kN, device}, y{kN, device}, out{1, device};
  std::vector<float> hx;

  Env() {
    fill_random(stream, x, 47);
    hx = x.to_host(stream);
    check_reduce("cutlet::algorithms::reduce", [&] { run_reduce(); });
    check_reduce("cub::DeviceReduce::Sum", [&] { run_cub_reduce(); });
    check_scan("cutlet::algorithms::inclusive_scan", [&] { run_scan(); });
    check_scan("cub::DeviceScan::InclusiveSum", [&] { run_cub_scan(); });
  }

  void run_reduce() { alg::reduce(stream, x, out, alg::plus{}, 0.0f); }
  void run_cub_reduce() {
    check_cub(cutlet_cub_reduce_sum(reinterpret_cast<const float*>(x.data()), reinterpret_cast<float*>(out.data()), kN,
                                    stream.handle()),
              "cub::DeviceReduce::Sum");
  }
  void run_scan() { alg::inclusive_scan(stream, x, y, alg::plus{}); }
  void run_cub_scan() {
    check_cub(cutlet_cub_inclusive_sum(reinterpret_cast<const float*>(x.data()), reinterpret_cast<float*>(y.data()),
                                       kN, stream.handle()),
              "cub::DeviceScan::InclusiveSum");
  }

  /// Throws cutlet::Error naming `who` unless out[0] is the CPU's sum within 1e-6 of the sum of |x|.
  template <class F>
  void check_reduce(const char* who, F&& run) {
    out.fill_bytes(stream, 0xff);  // NaN: a run that writes nothing fails
    run();
    const float got = out.to_host(stream)[0];
    double want = 0, magnitude = 0;
    for (float v : hx) {
      want += v;
      magnitude += std::fabs(v);
    }
    if (!(std::fabs(got - want) <= 1e-6 * magnitude))
      throw Error(std::string("cutlet_bench: ") + who + " is wrong: got " + std::to_string(got) + ", want " +
                  std::to_string(want));
  }
  /// Throws cutlet::Error naming `who` unless every 4096th prefix and the last one are the
  /// CPU's within 1e-5 of the prefix's sum of |x|.
  template <class F>
  void check_scan(const char* who, F&& run) {
    y.fill_bytes(stream, 0xff);
    run();
    const std::vector<float> got = y.to_host(stream);
    double want = 0, magnitude = 0;
    for (int i = 0; i < kN; ++i) {
      want += hx[i];
      magnitude += std::fabs(hx[i]);
      if ((i % 4096 == 0 || i == kN - 1) && !(std::fabs(got[i] - want) <= 1e-5 * magnitude + 1e-6))
        throw Error(std::string("cutlet_bench: ") + who + " is wrong at " + std::to_string(i) + ": got " +
                    std::to_string(got[i]) + ", want " + std::to_string(want));
    }
  }
};

Env& env() {
  static auto e = std::make_unique<Env>();
  return *e;
}

/// Times `run` and `cub_run`, moving `bytes` each, in the same iterations: counters GB/s,
/// cub_GB/s, vs_cub, and the registers of `kernel`.
template <class K, class Run, class CubRun>
void time_against_cub(benchmark::State& state, double bytes, const K& kernel, Run&& run, CubRun&& cub_run) {
  Env& e = env();
  SameRun runs;
  runs.add("cutlet", run);
  runs.add("cub", cub_run);
  std::vector<double> ms;
  for (auto _ : state) {
    ms.push_back(runs.iterate(e.stream, kReps));
    state.SetIterationTime(ms.back() * 1e-3);
  }
  set_bandwidth_counters(state, ms, bytes);
  const double cub = bytes / (runs.median_ms("cub") * 1e-3) / 1e9;
  state.counters["cub_GB/s"] = cub;
  state.counters["vs_cub"] = state.counters["GB/s"] / cub;
  state.counters["regs"] = registers_of(kernel);
}

/// algorithms::reduce (two passes, deterministic) against CUB's DeviceReduce::Sum (bytes read).
void BM_algorithms_reduce(benchmark::State& state) {
  if (!require_gpu(state)) return;
  guarded(state, [](benchmark::State& state) {
    Env& e = env();
    time_against_cub(state, kReduceBytes, alg::reduce_kernels<float, alg::plus>().partials, [&] { e.run_reduce(); },
                     [&] { e.run_cub_reduce(); });
  });
}

/// algorithms::inclusive_scan (single pass, decoupled look-back) against CUB's
/// DeviceScan::InclusiveSum (bytes read and written).
void BM_algorithms_scan(benchmark::State& state) {
  if (!require_gpu(state)) return;
  guarded(state, [](benchmark::State& state) {
    Env& e = env();
    time_against_cub(state, kScanBytes, alg::scan_kernel<false, float, alg::plus>(), [&] { e.run_scan(); },
                     [&] { e.run_cub_scan(); });
  });
}

}  // namespace

BENCHMARK(BM_algorithms_reduce)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(kIterations);
BENCHMARK(BM_algorithms_scan)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(kIterations);

}  // namespace cutlet::bench
