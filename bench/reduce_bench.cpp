// Sum of 2^28 floats (1 GiB): the cutlet block+warp reduction (simt_kernels.h: 16-byte loads,
// warp shuffles, one partial per block and a last-block pass, all in one launch) against
// cub::DeviceReduce::Sum and the same kernel built by nvcc (baseline_kernels.cu), in one run.
//
// BM_reduce_sum/unroll:U/blocks_per_sm:B: U float4s per thread and tile; B blocks of 256
// threads per SM with a grid-stride loop (0: one block per tile).
#include <cmath>
#include <map>
#include <memory>
#include <utility>

#include "simt_bench_support.h"
#include "simt_kernels.h"

namespace cutlet::bench {
namespace {

constexpr int kN = 1 << 28;
constexpr int kCheckN = 1'000'003;  ///< an odd size: a partial tile and a scalar tail
constexpr int kReps = 10;
constexpr int kIterations = 30;
constexpr double kBytes = sizeof(float) * double(kN);
constexpr long long kMaxGrid = 1 << 20;  ///< partial sums held (blocks of the largest grid)

using ReduceKernel = decltype(make_reduce_sum(1));

struct Env {
  Device device{0};
  Stream stream{device};
  Buffer<float> x{kN, device}, out{1, device}, partials{kMaxGrid, device};
  Buffer<std::uint32_t> ticket{1, device};
  Module baseline = load_baseline_module(device);
  double want_check = 0, want_full = 0;    ///< sums of x[0, kCheckN) and x[0, kN) on the CPU
  double mag_check = 0, mag_full = 0;      ///< sums of |x| over the same ranges

  struct Variant {
    ReduceKernel kernel;
    Function nvcc;
    int unroll;
    int blocks_per_sm;
  };
  std::map<std::pair<int, int>, std::unique_ptr<Variant>> variants;

  Env() {
    fill_random(stream, x, 31);
    ticket.fill_bytes(stream, 0);
    std::vector<float> hx = x.to_host(stream);
    for (int i = 0; i < kN; ++i) {
      if (i == kCheckN) {
        want_check = want_full;
        mag_check = mag_full;
      }
      want_full += hx[i];
      mag_full += std::fabs(hx[i]);
    }
    for (int n : {kCheckN, kN}) verify("cub::DeviceReduce::Sum", n, [&] { run_cub(n); }, false);
  }

  void run_cub(int n) {
    check_cub(cutlet_cub_reduce_sum(reinterpret_cast<const float*>(x.data()), reinterpret_cast<float*>(out.data()),
                                    n, stream.handle()),
              "cub::DeviceReduce::Sum");
  }
  LaunchConfig config(const Variant& v, int n) const {
    LaunchConfig c{.grid = stream_grid(device, n / 4, v.unroll, v.blocks_per_sm), .block = kBlock};
    if (c.grid.x > kMaxGrid) throw Error("cutlet_bench: reduce grid larger than the partials buffer");
    return c;
  }
  void run_cutlet(Variant& v, int n) {
    if (n == kN) {
      v.kernel.launch(stream, config(v, n), out, partials, ticket, x, n);
    } else {
      auto xs = Buffer<float>::wrap(x.data(), n, device);
      v.kernel.launch(stream, config(v, n), out, partials, ticket, xs, n);
    }
  }
  void run_nvcc(Variant& v, int n) {
    CUdeviceptr o = out.data(), p = partials.data(), t = ticket.data(), xd = x.data();
    void* args[] = {&o, &p, &t, &xd, &n, nullptr};
    cutlet::launch(stream, v.nvcc, config(v, n), args);
  }

  Variant& variant(int unroll, int blocks_per_sm) {
    auto& slot = variants[{unroll, blocks_per_sm}];
    if (!slot) {
      slot = std::make_unique<Variant>(Variant{make_reduce_sum(unroll),
                                               baseline.function("reduce_sum_u" + std::to_string(unroll)), unroll,
                                               blocks_per_sm});
      Variant& v = *slot;
      for (int n : {kCheckN, kN}) {
        verify("cutlet reduction", n, [&] { run_cutlet(v, n); });
        verify("nvcc reduction", n, [&] { run_nvcc(v, n); });
      }
    }
    return *slot;
  }

  /// Runs `run` (a sum of the first n floats into out[0]) twice and compares each result with
  /// the CPU's sum: within 1e-6 of the sum of |x| (float rounding in another order). With
  /// `deterministic` (the cutlet kernel and its twin) the two runs must agree exactly, which
  /// also checks that the ticket was reset. Throws cutlet::Error naming `who` otherwise.
  template <class F>
  void verify(const std::string& who, int n, F&& run, bool deterministic = true) {
    const double want = n == kN ? want_full : want_check, mag = n == kN ? mag_full : mag_check;
    float got[2];
    for (float& g : got) {
      out.fill_bytes(stream, 0xff);  // NaN: a run that writes nothing fails
      run();
      g = out.to_host(stream)[0];
    }
    if (!(std::fabs(got[0] - want) <= 1e-6 * mag) || !(std::fabs(got[1] - want) <= 1e-6 * mag) ||
        (deterministic && got[0] != got[1]))
      throw Error("cutlet_bench: the " + who + " (n = " + std::to_string(n) + ") is wrong: got " +
                  std::to_string(got[0]) + " then " + std::to_string(got[1]) + ", want " + std::to_string(want));
  }
};

Env& env() {
  static auto e = std::make_unique<Env>();
  return *e;
}

/// The cutlet reduction, with the nvcc twin and CUB's DeviceReduce::Sum timed in the same
/// iterations: counters GB/s (bytes read), cub_GB/s, nvcc_GB/s, vs_cub, vs_nvcc, registers.
void BM_reduce_sum(benchmark::State& state) {
  if (!require_gpu(state)) return;
  guarded(state, [](benchmark::State& state) {
    Env& e = env();
    Env::Variant& v = e.variant(static_cast<int>(state.range(0)), static_cast<int>(state.range(1)));
    SameRun runs;
    runs.add("cutlet", [&] { e.run_cutlet(v, kN); });
    runs.add("nvcc", [&] { e.run_nvcc(v, kN); });
    runs.add("cub", [&] { e.run_cub(kN); });
    std::vector<double> ms;
    for (auto _ : state) {
      ms.push_back(runs.iterate(e.stream, kReps));
      state.SetIterationTime(ms.back() * 1e-3);
    }
    set_bandwidth_counters(state, ms, kBytes);
    const double gbs = state.counters["GB/s"];
    const double cub = kBytes / (runs.median_ms("cub") * 1e-3) / 1e9;
    const double nvcc = kBytes / (runs.median_ms("nvcc") * 1e-3) / 1e9;
    state.counters["cub_GB/s"] = cub;
    state.counters["nvcc_GB/s"] = nvcc;
    state.counters["vs_cub"] = gbs / cub;
    state.counters["vs_nvcc"] = gbs / nvcc;
    state.counters["regs"] = registers_of(v.kernel);
    state.counters["nvcc_regs"] = v.nvcc.attributes().num_regs;
  });
}

}  // namespace

// The first is the configuration RESULTS.md reports.
BENCHMARK(BM_reduce_sum)
    ->ArgNames({"unroll", "blocks_per_sm"})
    ->Args({4, 8})
    ->Args({2, 8})
    ->Args({8, 8})
    ->Args({4, 4})
    ->Args({8, 4})
    ->Args({4, 16})
    ->Args({4, 0})
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond)
    ->Iterations(kIterations);

}  // namespace cutlet::bench
