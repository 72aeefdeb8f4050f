// 256-bin histogram of 2^28 32-bit values (1 GiB) uniform in [0, 256): cutlet kernels
// (simt_kernels.h) against cub::DeviceHistogram::HistogramEven with levels 0, 1, ..., 256 (bin
// v for v < 256, other values not counted: what the cutlet kernels compute too) and the same
// kernels built by nvcc (baseline_kernels.cu), in one run.
//
// BM_histogram/copies:C/unroll:U/blocks_per_sm:B:
//   C = 0: per-thread 8-bit counters in shared memory, flushed before they can overflow
//          (make_histogram_counters); 65 KiB of shared memory per block, so B <= 3;
//   C > 0: CUB's algorithm, C privatized histograms per block updated with shared-memory
//          atomics (make_histogram_atomic);
//   U 16-byte loads (4 values each) per thread and tile, B blocks of 256 threads per SM.
// Both kinds of kernel add into a zeroed histogram, so their times include the 1 KiB memset,
// as CUB's include its own initialization kernel.
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <tuple>

#include "simt_bench_support.h"
#include "simt_kernels.h"

namespace cutlet::bench {
namespace {

constexpr int kN = 1 << 28;
constexpr int kCheckN = 1'000'003;  ///< an odd size: a partial tile and a scalar tail
constexpr int kReps = 10;
constexpr int kIterations = 30;

using AtomicKernel = decltype(make_histogram_atomic(1, 1));
using CountersKernel = decltype(make_histogram_counters(1));

struct Env {
  Device device{0};
  Stream stream{device};
  Buffer<std::uint32_t> data{kN, device}, hist{kBins, device};
  Module baseline = load_baseline_module(device);
  std::vector<std::uint32_t> want_check = std::vector<std::uint32_t>(kBins),
                             want_full = std::vector<std::uint32_t>(kBins);

  struct Variant {
    std::unique_ptr<AtomicKernel> atomic;      // copies > 0
    std::unique_ptr<CountersKernel> counters;  // copies == 0
    std::optional<Function> nvcc;
    int copies, unroll, blocks_per_sm;
  };
  std::map<std::tuple<int, int, int>, std::unique_ptr<Variant>> variants;

  Env() {
    // Uniform values in [0, 256) from splitmix64 (random, never all zero), with the CPU's
    // histograms of the first kCheckN values and of all of them.
    constexpr std::size_t kChunk = std::size_t{1} << 22;
    std::vector<std::uint32_t> host(kChunk);
    std::uint64_t s = 0x51ed270b7a3c9e11ull;
    for (std::size_t off = 0; off < std::size_t(kN); off += kChunk) {
      for (std::size_t i = 0; i < kChunk; ++i) {
        std::uint64_t z = (s += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        z ^= z >> 31;
        host[i] = static_cast<std::uint32_t>(z >> 56);
        ++want_full[host[i]];
        if (off + i < std::size_t(kCheckN)) ++want_check[host[i]];
      }
      auto part = Buffer<std::uint32_t>::wrap(data.data() + off * sizeof(std::uint32_t), kChunk, device);
      part.copy_from_host(stream, std::span<const std::uint32_t>(host));
      stream.synchronize();  // the host chunk is reused
    }
    for (int n : {kCheckN, kN}) verify("cub::DeviceHistogram::HistogramEven", n, [&] { run_cub(n); });
  }

  void run_cub(int n) {
    check_cub(cutlet_cub_histogram256(reinterpret_cast<const unsigned*>(data.data()),
                                      reinterpret_cast<unsigned*>(hist.data()), n, stream.handle()),
              "cub::DeviceHistogram::HistogramEven");
  }
  LaunchConfig config(const Variant& v, int n) const {
    return {.grid = stream_grid(device, n / 4, v.unroll, v.blocks_per_sm),
            .block = kBlock,
            .shared_bytes = v.copies == 0 ? std::size_t{kCounterBytes} : 0};
  }
  void run_cutlet(Variant& v, int n) {
    hist.fill_bytes(stream, 0);
    auto ds = Buffer<std::uint32_t>::wrap(data.data(), n, device);
    if (v.atomic) v.atomic->launch(stream, config(v, n), hist, ds, n);
    else v.counters->launch(stream, config(v, n), hist, ds, n);
  }
  void run_nvcc(Variant& v, int n) {
    hist.fill_bytes(stream, 0);
    CUdeviceptr h = hist.data(), d = data.data();
    void* args[] = {&h, &d, &n, nullptr};
    cutlet::launch(stream, *v.nvcc, config(v, n), args);
  }

  Variant& variant(int copies, int unroll, int blocks_per_sm) {
    auto& slot = variants[{copies, unroll, blocks_per_sm}];
    if (!slot) {
      auto v = std::make_unique<Variant>();
      v->copies = copies;
      v->unroll = unroll;
      v->blocks_per_sm = blocks_per_sm;
      if (copies == 0) {
        v->counters = std::make_unique<CountersKernel>(make_histogram_counters(unroll));
        v->nvcc = baseline.function("histogram_counters_u" + std::to_string(unroll));
      } else {
        v->atomic = std::make_unique<AtomicKernel>(make_histogram_atomic(copies, unroll));
        v->nvcc = baseline.function("histogram_atomic_c" + std::to_string(copies) + "_u" + std::to_string(unroll));
      }
      for (int n : {kCheckN, kN}) {
        verify("cutlet histogram", n, [&] { run_cutlet(*v, n); });
        verify("nvcc histogram", n, [&] { run_nvcc(*v, n); });
      }
      slot = std::move(v);
    }
    return *slot;
  }

  /// Runs `run` (a histogram of the first n values into hist) and compares every bin with the
  /// CPU's. Throws cutlet::Error naming `who` and the first wrong bin otherwise.
  template <class F>
  void verify(const std::string& who, int n, F&& run) {
    hist.fill_bytes(stream, 0xff);  // a run that does not write every bin fails
    run();
    std::vector<std::uint32_t> got = hist.to_host(stream);
    const auto& want = n == kN ? want_full : want_check;
    for (int b = 0; b < kBins; ++b)
      if (got[b] != want[b])
        throw Error("cutlet_bench: the " + who + " (n = " + std::to_string(n) + ") is wrong in bin " +
                    std::to_string(b) + ": got " + std::to_string(got[b]) + ", want " + std::to_string(want[b]));
  }
};

Env& env() {
  static auto e = std::make_unique<Env>();
  return *e;
}

/// A cutlet histogram, with its nvcc twin and CUB's HistogramEven timed in the same iterations:
/// counters Gelem/s, GB/s (bytes read), cub_Gelem/s, nvcc_Gelem/s, vs_cub, vs_nvcc, registers.
void BM_histogram(benchmark::State& state) {
  if (!require_gpu(state)) return;
  guarded(state, [](benchmark::State& state) {
    Env& e = env();
    Env::Variant& v = e.variant(static_cast<int>(state.range(0)), static_cast<int>(state.range(1)),
                                static_cast<int>(state.range(2)));
    SameRun runs;
    runs.add("cutlet", [&] { e.run_cutlet(v, kN); });
    runs.add("nvcc", [&] { e.run_nvcc(v, kN); });
    runs.add("cub", [&] { e.run_cub(kN); });
    std::vector<double> ms;
    for (auto _ : state) {
      ms.push_back(runs.iterate(e.stream, kReps));
      state.SetIterationTime(ms.back() * 1e-3);
    }
    set_bandwidth_counters(state, ms, sizeof(std::uint32_t) * double(kN));
    auto gelems = [](double ms) { return kN / (ms * 1e-3) / 1e9; };
    const double g = gelems(median(ms)), cub = gelems(runs.median_ms("cub")), nvcc = gelems(runs.median_ms("nvcc"));
    state.counters["Gelem/s"] = g;
    state.counters["cub_Gelem/s"] = cub;
    state.counters["nvcc_Gelem/s"] = nvcc;
    state.counters["vs_cub"] = g / cub;
    state.counters["vs_nvcc"] = g / nvcc;
    state.counters["regs"] = v.atomic ? registers_of(*v.atomic) : registers_of(*v.counters);
    state.counters["nvcc_regs"] = v.nvcc->attributes().num_regs;
  });
}

}  // namespace

// The first is the configuration RESULTS.md reports; the atomic ones are CUB's algorithm.
// Every (copies, unroll) here has an nvcc twin in baseline_kernels.cu.
BENCHMARK(BM_histogram)
    ->ArgNames({"copies", "unroll", "blocks_per_sm"})
    ->Args({0, 4, 3})
    ->Args({0, 2, 3})
    ->Args({0, 1, 3})
    ->Args({0, 4, 6})
    ->Args({1, 4, 8})
    ->Args({2, 4, 8})
    ->Args({4, 4, 8})
    ->Args({1, 2, 8})
    ->Args({2, 2, 8})
    ->Args({4, 2, 8})
    ->Args({1, 1, 8})
    ->Args({1, 4, 16})
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond)
    ->Iterations(kIterations);

}  // namespace cutlet::bench
