// Tile kernels on 32768 x 4096 f32 (512 MiB per matrix): row softmax and layer norm forward,
// each against a device-to-device copy of the same bytes (read + written once) in one run.
// Triton's tutorial softmax measured 3959 GB/s on the H200 (peers' figure, not rerun here).
#include <cmath>
#include <memory>

#include "simt_bench_support.h"

namespace cutlet::bench {
namespace {

constexpr int kRows = 32768, kCols = 4096;
constexpr double kBytes = 2.0 * sizeof(float) * kRows * kCols;  ///< the matrix read + written once
constexpr int kReps = 10;
constexpr int kIterations = 20;

auto make_softmax(int warps) {
  return tile_kernel([](Tensor<float, 2> out, Tensor<float, 2> in) {
    auto row = program_id(0);
    auto cols = arange(kCols);
    auto mask = cols < in.shape(1);
    auto x = load(in, {row, cols}, mask, Value<float>(-INFINITY));
    auto e = exp(x - max(x, 0));
    store(out, {row, cols}, e / sum(e, 0), mask);
  }, {.name = "bench_tile_softmax"}, warps);
}

auto make_layer_norm(int warps) {
  return tile_kernel([](Tensor<float, 2> y, Tensor<float, 2> x, Tensor<float, 1> w, Tensor<float, 1> b, f32 eps) {
    auto row = program_id(0);
    auto cols = arange(kCols);
    auto m = cols < x.shape(1);
    auto v = load(x, {row, cols}, m);
    auto n = cast<float>(x.shape(1));
    auto mean = sum(v, 0).item() / n;
    auto d = where(m, v - mean, 0.0f);
    auto rstd = rsqrt(sum(d * d, 0).item() / n + eps);
    store(y, {row, cols}, d * rstd * load(w, {cols}, m) + load(b, {cols}, m), m);
  }, {.name = "bench_tile_layer_norm"}, warps);
}

struct Env {
  Device device{0};
  Stream stream{device};
  Buffer<float> in{std::size_t(kRows) * kCols, device}, out{std::size_t(kRows) * kCols, device};
  Buffer<float> w{kCols, device}, b{kCols, device};
  PFN_cuMemcpyDtoDAsync_v3020 cu_memcpy_dtod = driver_fn<PFN_cuMemcpyDtoDAsync_v3020>("cuMemcpyDtoDAsync");

  Env() {
    fill_random(stream, in, 31);
    fill_random(stream, w, 32);
    fill_random(stream, b, 33);
  }
  void run_copy() {
    check_cu(cu_memcpy_dtod(out.data(), in.data(), in.bytes(), static_cast<CUstream>(stream.handle())), "cuMemcpyDtoDAsync");
  }
  /// Checks rows 0, 1 and the last against the CPU (softmax when `softmax`, else layer norm).
  void verify(bool softmax) {
    for (int r : {0, 1, kRows - 1}) {
      std::vector<float> x(kCols), y(kCols), hw(kCols), hb(kCols);
      in.memory().copy_to_host(stream, x.data(), kCols * 4, std::size_t(r) * kCols * 4);
      out.memory().copy_to_host(stream, y.data(), kCols * 4, std::size_t(r) * kCols * 4);
      w.memory().copy_to_host(stream, hw.data(), kCols * 4, 0);
      b.memory().copy_to_host(stream, hb.data(), kCols * 4, 0);
      stream.synchronize();
      double m = -INFINITY, s = 0, mean = 0, var = 0;
      for (float v : x) m = std::max<double>(m, v), mean += v;
      mean /= kCols;
      for (float v : x) s += std::exp(v - m), var += (v - mean) * (v - mean);
      const double rstd = 1 / std::sqrt(var / kCols + 1e-5);
      for (int j = 0; j < kCols; ++j) {
        const double want = softmax ? std::exp(x[j] - m) / s : (x[j] - mean) * rstd * hw[j] + hb[j];
        if (!(std::fabs(y[j] - want) <= 1e-4 * (1 + std::fabs(want))))
          throw Error(std::string("cutlet_bench: tile ") + (softmax ? "softmax" : "layer norm") + " is wrong at row " +
                      std::to_string(r) + " column " + std::to_string(j));
      }
    }
  }
};

Env& env() {
  static auto e = std::make_unique<Env>();
  return *e;
}

template <class K, class Run>
void time_against_copy(benchmark::State& state, K& kernel, Run&& run) {
  Env& e = env();
  SameRun runs;
  runs.add("cutlet", run);
  runs.add("copy", [&] { e.run_copy(); });
  std::vector<double> ms;
  for (auto _ : state) {
    ms.push_back(runs.iterate(e.stream, kReps));
    state.SetIterationTime(ms.back() * 1e-3);
  }
  set_bandwidth_counters(state, ms, kBytes);
  const double copy = kBytes / (runs.median_ms("copy") * 1e-3) / 1e9;
  state.counters["copy_GB/s"] = copy;
  state.counters["vs_copy"] = state.counters["GB/s"] / copy;
  state.counters["vs_triton"] = state.counters["GB/s"] / 3959.0;
  state.counters["regs"] = registers_of(kernel);
}

/// BM_tile_softmax/warps:W: one 4096-float row per program on W warps.
void BM_tile_softmax(benchmark::State& state) {
  if (!require_gpu(state)) return;
  guarded(state, [](benchmark::State& state) {
    Env& e = env();
    auto k = make_softmax(static_cast<int>(state.range(0)));
    auto run = [&] { k.launch(e.stream, {.grid = kRows}, tensor(e.out, {kRows, kCols}), tensor(e.in, {kRows, kCols})); };
    run();
    e.verify(true);
    time_against_copy(state, k, run);
  });
}

/// BM_tile_layer_norm/warps:W: one 4096-float row per program on W warps, with weight and bias.
void BM_tile_layer_norm(benchmark::State& state) {
  if (!require_gpu(state)) return;
  guarded(state, [](benchmark::State& state) {
    Env& e = env();
    auto k = make_layer_norm(static_cast<int>(state.range(0)));
    auto run = [&] {
      k.launch(e.stream, {.grid = kRows}, tensor(e.out, {kRows, kCols}), tensor(e.in, {kRows, kCols}),
               tensor(e.w, {kCols}), tensor(e.b, {kCols}), 1e-5f);
    };
    run();
    e.verify(false);
    time_against_copy(state, k, run);
  });
}

}  // namespace

BENCHMARK(BM_tile_softmax)->ArgName("warps")->Arg(4)->Arg(8)->Arg(16)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(kIterations);
BENCHMARK(BM_tile_layer_norm)->ArgName("warps")->Arg(4)->Arg(8)->Arg(16)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(kIterations);

}  // namespace cutlet::bench
