// FP8 e4m3 GEMM, 8192^3, f32 accumulate, bf16 output: a cutlet tile kernel (a [M, K] and b held
// as [N, K], K-major, the layout FP8 GEMMs take; its dot on FP8 wgmma on the H200) against
// cuBLASLt's FP8 matmul on the same data in the same run.
//
// BM_tile_gemm_fp8/bm:M/bn:N/bk:K/warps:W/stages:S: M x N output tiles per program, K-deep
// steps, S shared-memory stages of cp.async copies.
#include <cmath>
#include <memory>
#include <random>

#include "tile_gemm_support.h"

namespace cutlet::bench {
namespace {

constexpr int kSize = 8192;
constexpr double kFlops = 2.0 * kSize * kSize * kSize;
constexpr int kReps = 5;
constexpr int kIterations = 5;

/// The GEMM of Triton's matmul tutorial (grouped program order) on FP8 operands, b read as
/// [N, K] rows and transposed into the dot, the result stored as bf16.
template <int BM, int BN, int BK>
auto make_fp8_gemm(int warps, int stages) {
  return tile_kernel([](Tensor<bfloat16, 2> c, Tensor<float8_e4m3, 2> a, Tensor<float8_e4m3, 2> bt) {
    const GemmTile tile = grouped_gemm_tile(a.shape(0) / BM, bt.shape(0) / BN);
    auto rm = tile.m * BM + arange(BM);
    auto rn = tile.n * BN + arange(BN);
    auto rk = arange(BK);
    auto acc = for_range(0, a.shape(1), BK, zeros<float>({BM, BN}), [&](i32 k0, Tile<float> acc) {
      auto ka = k0 + rk;
      return dot(load(a, {expand_dims(rm, 1), expand_dims(ka, 0)}), transpose(load(bt, {expand_dims(rn, 1), expand_dims(ka, 0)})),
                 acc);
    });
    store(c, {expand_dims(rm, 1), expand_dims(rn, 0)}, cast<bfloat16>(acc));
  }, {.name = "bench_tile_gemm_fp8", .tile_stages = stages}, warps);
}

struct Fp8Env {
  Device device{0};
  Stream stream{device};
  std::vector<float8_e4m3> ha, hbt;
  Buffer<float8_e4m3> a, bt;
  Buffer<bfloat16> c{std::size_t(kSize) * kSize, device};

  Fp8Env() {
    std::mt19937 rng(43);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    ha.resize(std::size_t(kSize) * kSize);
    hbt.resize(std::size_t(kSize) * kSize);
    for (auto& x : ha) x = float8_e4m3(dist(rng));
    for (auto& x : hbt) x = float8_e4m3(dist(rng));
    a = Buffer<float8_e4m3>(stream, ha);
    bt = Buffer<float8_e4m3>(stream, hbt);
  }
  void run_cublaslt() {
    int e = cutlet_cublaslt_gemm_fp8(kSize, kSize, kSize, reinterpret_cast<const void*>(a.data()),
                                     reinterpret_cast<const void*>(bt.data()), reinterpret_cast<void*>(c.data()), stream.handle());
    if (e != 0) throw Error("cutlet_bench: cublasLtMatmul (FP8) failed with status " + std::to_string(e - 1000));
  }
  /// Checks 32 scattered elements of c against the CPU (bf16 output: 1% and a little).
  void verify(const std::string& who) {
    std::mt19937 rng(7);
    for (int t = 0; t < 32; ++t) {
      const int i = static_cast<int>(rng() % kSize), j = static_cast<int>(rng() % kSize);
      double want = 0;
      for (int k = 0; k < kSize; ++k)
        want += double(float(ha[std::size_t(i) * kSize + k])) * double(float(hbt[std::size_t(j) * kSize + k]));
      bfloat16 g;
      c.memory().copy_to_host(stream, &g, 2, (std::size_t(i) * kSize + j) * 2);
      stream.synchronize();
      const float got = float(g);
      if (!(std::fabs(got - want) <= 1e-2 * std::fabs(want) + 5e-2))
        throw Error("cutlet_bench: " + who + " FP8 GEMM is wrong at (" + std::to_string(i) + ", " + std::to_string(j) +
                    "): got " + std::to_string(got) + ", want " + std::to_string(want));
    }
  }
};

Fp8Env& fp8_env() {
  static auto e = std::make_unique<Fp8Env>();
  return *e;
}

template <int BM, int BN, int BK>
void BM_tile_gemm_fp8(benchmark::State& state) {
  if (!require_gpu(state)) return;
  guarded(state, [](benchmark::State& state) {
    Fp8Env& e = fp8_env();
    auto k = make_fp8_gemm<BM, BN, BK>(static_cast<int>(state.range(0)), static_cast<int>(state.range(1)));
    auto run = [&] {
      k.launch(e.stream, {.grid = (kSize / BM) * (kSize / BN)}, tensor(e.c, {kSize, kSize}), tensor(e.a, {kSize, kSize}),
               tensor(e.bt, {kSize, kSize}));
    };
    run();
    e.verify("cutlet");
    e.run_cublaslt();
    e.verify("cuBLASLt");
    time_gemm_against(state, e.stream, kReps, kFlops, k, run, {{"cublaslt", [&] { e.run_cublaslt(); }}});
  });
}

}  // namespace

BENCHMARK(BM_tile_gemm_fp8<128, 128, 128>)->Name("BM_tile_gemm_fp8/bm:128/bn:128/bk:128")->ArgNames({"warps", "stages"})
    ->Args({4, 3})->Args({4, 4})
    ->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(kIterations);
BENCHMARK(BM_tile_gemm_fp8<128, 256, 128>)->Name("BM_tile_gemm_fp8/bm:128/bn:256/bk:128")->ArgNames({"warps", "stages"})
    ->Args({8, 3})->Args({8, 4})
    ->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(kIterations);
BENCHMARK(BM_tile_gemm_fp8<256, 128, 128>)->Name("BM_tile_gemm_fp8/bm:256/bn:128/bk:128")->ArgNames({"warps", "stages"})
    ->Args({8, 3})
    ->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(kIterations);

}  // namespace cutlet::bench
