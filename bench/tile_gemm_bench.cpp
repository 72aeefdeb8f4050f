// bf16 GEMM, 8192^3, f32 accumulate and output: a cutlet tile kernel (dot on mma.sync) against
// cublasGemmEx in the same run. cuBLAS measured 788 TFLOP/s on the H200 (GPU.md).
//
// BM_tile_gemm/bm:M/bn:N/bk:K/warps:W/stages:S: M x N output tiles per program, K-deep
// steps, S shared-memory stages of cp.async copies.
#include <cmath>
#include <map>
#include <memory>
#include <random>

#include "simt_bench_support.h"

namespace cutlet::bench {
namespace {

constexpr int kSize = 8192;
constexpr double kFlops = 2.0 * kSize * kSize * kSize;
constexpr int kReps = 5;
constexpr int kIterations = 5;

/// The GEMM of Triton's matmul tutorial: program ids walk the output tiles in groups of 8
/// tile rows (for L2 reuse of b's columns), bf16 loads, f32 accumulation in a loop over K.
template <int BM, int BN, int BK>
auto make_gemm(int warps, int stages) {
  return tile_kernel([](Tensor<float, 2> c, Tensor<bfloat16, 2> a, Tensor<bfloat16, 2> b) {
    constexpr int kGroup = 8;
    auto pid = program_id(0);
    auto tiles_m = a.shape(0) / BM, tiles_n = b.shape(1) / BN;
    auto in_group = kGroup * tiles_n;
    auto first_m = pid / in_group * kGroup;
    auto group_m = min(tiles_m - first_m, i32(kGroup));
    auto pid_m = first_m + pid % in_group % group_m;
    auto pid_n = pid % in_group / group_m;
    auto rm = pid_m * BM + arange(BM);
    auto rn = pid_n * BN + arange(BN);
    auto rk = arange(BK);
    auto acc = for_range(0, a.shape(1), BK, zeros<float>({BM, BN}), [&](i32 k0, Tile<float> acc) {
      auto ka = k0 + rk;
      return dot(load(a, {expand_dims(rm, 1), expand_dims(ka, 0)}), load(b, {expand_dims(ka, 1), expand_dims(rn, 0)}), acc);
    });
    store(c, {expand_dims(rm, 1), expand_dims(rn, 0)}, acc);
  }, {.name = "bench_tile_gemm", .tile_stages = stages}, warps);
}

struct Env {
  Device device{0};
  Stream stream{device};
  std::vector<bfloat16> ha, hb;
  Buffer<bfloat16> a, b;
  Buffer<float> c{std::size_t(kSize) * kSize, device};

  Env() {
    std::mt19937 rng(41);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    ha.resize(std::size_t(kSize) * kSize);
    hb.resize(std::size_t(kSize) * kSize);
    for (auto& x : ha) x = bfloat16(dist(rng));
    for (auto& x : hb) x = bfloat16(dist(rng));
    a = Buffer<bfloat16>(stream, ha);
    b = Buffer<bfloat16>(stream, hb);
  }
  void run_cublas() {
    int e = cutlet_cublas_gemm_bf16(kSize, kSize, kSize, reinterpret_cast<const void*>(a.data()),
                                    reinterpret_cast<const void*>(b.data()), reinterpret_cast<float*>(c.data()),
                                    stream.handle());
    if (e != 0) throw Error("cutlet_bench: cublasGemmEx failed with status " + std::to_string(e - 1000));
  }
  /// Checks 32 scattered elements of c against the CPU.
  void verify(const std::string& who) {
    std::mt19937 rng(5);
    for (int t = 0; t < 32; ++t) {
      const int i = static_cast<int>(rng() % kSize), j = static_cast<int>(rng() % kSize);
      double want = 0;
      for (int k = 0; k < kSize; ++k) want += double(float(ha[std::size_t(i) * kSize + k])) * double(float(hb[std::size_t(k) * kSize + j]));
      float got = 0;
      c.memory().copy_to_host(stream, &got, 4, (std::size_t(i) * kSize + j) * 4);
      stream.synchronize();
      if (!(std::fabs(got - want) <= 1e-2 * (1 + std::fabs(want))))
        throw Error("cutlet_bench: " + who + " GEMM is wrong at (" + std::to_string(i) + ", " + std::to_string(j) +
                    "): got " + std::to_string(got) + ", want " + std::to_string(want));
    }
  }
};

Env& env() {
  static auto e = std::make_unique<Env>();
  return *e;
}

template <int BM, int BN, int BK>
void BM_tile_gemm(benchmark::State& state) {
  if (!require_gpu(state)) return;
  guarded(state, [](benchmark::State& state) {
    Env& e = env();
    auto k = make_gemm<BM, BN, BK>(static_cast<int>(state.range(0)), static_cast<int>(state.range(1)));
    auto run = [&] {
      k.launch(e.stream, {.grid = (kSize / BM) * (kSize / BN)}, tensor(e.c, {kSize, kSize}), tensor(e.a, {kSize, kSize}),
               tensor(e.b, {kSize, kSize}));
    };
    run();
    e.verify("cutlet");
    e.run_cublas();
    e.verify("cuBLAS");
    SameRun runs;
    runs.add("cutlet", run);
    runs.add("cublas", [&] { e.run_cublas(); });
    std::vector<double> ms;
    for (auto _ : state) {
      ms.push_back(runs.iterate(e.stream, kReps));
      state.SetIterationTime(ms.back() * 1e-3);
    }
    const double med = median(ms);
    state.counters["TFLOP/s"] = kFlops / (med * 1e-3) / 1e12;
    state.counters["cublas_TFLOP/s"] = kFlops / (runs.median_ms("cublas") * 1e-3) / 1e12;
    state.counters["vs_cublas"] = runs.median_ms("cublas") / med;
    state.counters["regs"] = registers_of(k);
  });
}

}  // namespace

BENCHMARK(BM_tile_gemm<128, 128, 32>)->Name("BM_tile_gemm/bm:128/bn:128/bk:32")->ArgNames({"warps", "stages"})
    ->Args({4, 4})
    ->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(kIterations);
BENCHMARK(BM_tile_gemm<128, 128, 64>)->Name("BM_tile_gemm/bm:128/bn:128/bk:64")->ArgNames({"warps", "stages"})
    ->Args({4, 3})
    ->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(kIterations);
BENCHMARK(BM_tile_gemm<128, 256, 32>)->Name("BM_tile_gemm/bm:128/bn:256/bk:32")->ArgNames({"warps", "stages"})
    ->Args({8, 3})->Args({8, 4})
    ->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(kIterations);
BENCHMARK(BM_tile_gemm<128, 256, 64>)->Name("BM_tile_gemm/bm:128/bn:256/bk:64")->ArgNames({"warps", "stages"})
    ->Args({8, 2})->Args({8, 3})
    ->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(kIterations);
BENCHMARK(BM_tile_gemm<256, 128, 64>)->Name("BM_tile_gemm/bm:256/bn:128/bk:64")->ArgNames({"warps", "stages"})
    ->Args({8, 3})
    ->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(kIterations);

}  // namespace cutlet::bench
