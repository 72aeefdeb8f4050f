// bf16 GEMM, 8192^3, f32 accumulate and output: a cutlet tile kernel (dot on wgmma on the
// H200) against cublasGemmEx in the same run. cuBLAS measured 788 TFLOP/s on the H200 (GPU.md).
//
// BM_tile_gemm/bm:M/bn:N/bk:K/warps:W/stages:S: M x N output tiles per program, K-deep
// steps, S shared-memory stages of cp.async copies. BM_tile_gemm_gelu: the same GEMM with a
// fused epilogue (bias + exact GELU, bf16 output), against cuBLAS's plain GEMM (cublas) and
// against that GEMM followed by one nvcc-built bias + GELU kernel (cublas_epilogue).
// BM_tile_gemm_mma_sync and BM_tile_gemm_gelu_mma_sync: the same kernels built for sm_90
// instead of the H200's sm_90a, so that their dots run on mma.sync (as on sm_80 and sm_89)
// rather than wgmma. BM_tile_gemm_shape/m:M/n:N/k:K: the plain GEMM at other shapes.
#include <cmath>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <type_traits>

#include "tile_gemm_support.h"

namespace cutlet::bench {
namespace {

constexpr int kSize = 8192;
constexpr double kFlops = 2.0 * kSize * kSize * kSize;
constexpr int kReps = 5;
constexpr int kIterations = 5;

/// The GEMM of Triton's matmul tutorial: program ids walk the output tiles in groups of 8
/// tile rows (for L2 reuse of b's columns), bf16 loads, f32 accumulation in a loop over K.
/// With `Epilogue`, the tile gets bias[column] added and exact GELU applied and is stored as
/// bf16 (the fused epilogue users write after a dot); without, it is stored as f32.
/// `target`: the architecture to build for; none, the launching device's.
template <int BM, int BN, int BK, bool Epilogue>
auto make_gemm(int warps, int stages, std::optional<Target> target) {
  using Out = std::conditional_t<Epilogue, bfloat16, float>;
  return tile_kernel([](Tensor<Out, 2> c, Tensor<bfloat16, 2> a, Tensor<bfloat16, 2> b, Tensor<float, 1> bias) {
    const GemmTile tile = grouped_gemm_tile(a.shape(0) / BM, b.shape(1) / BN);
    auto rm = tile.m * BM + arange(BM);
    auto rn = tile.n * BN + arange(BN);
    auto rk = arange(BK);
    auto acc = for_range(0, a.shape(1), BK, zeros<float>({BM, BN}), [&](i32 k0, Tile<float> acc) {
      auto ka = k0 + rk;
      return dot(load(a, {expand_dims(rm, 1), expand_dims(ka, 0)}), load(b, {expand_dims(ka, 1), expand_dims(rn, 0)}), acc);
    });
    if constexpr (Epilogue) {
      auto x = acc + expand_dims(load(bias, {rn}), 0);
      store(c, {expand_dims(rm, 1), expand_dims(rn, 0)}, cast<bfloat16>(x * 0.5f * (1.0f + erf(x * 0.70710678f))));
    } else {
      store(c, {expand_dims(rm, 1), expand_dims(rn, 0)}, acc);
    }
  }, {.name = Epilogue ? "bench_tile_gemm_gelu" : "bench_tile_gemm", .target = target, .tile_stages = stages}, warps);
}

struct Env {
  Device device{0};
  Stream stream{device};
  std::vector<bfloat16> ha, hb;
  Buffer<bfloat16> a, b;
  Buffer<float> c{std::size_t(kSize) * kSize, device};
  Buffer<bfloat16> c16{std::size_t(kSize) * kSize, device};
  std::vector<float> hbias;
  Buffer<float> bias;

  Env() {
    std::mt19937 rng(41);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    ha.resize(std::size_t(kSize) * kSize);
    hb.resize(std::size_t(kSize) * kSize);
    for (auto& x : ha) x = bfloat16(dist(rng));
    for (auto& x : hb) x = bfloat16(dist(rng));
    a = Buffer<bfloat16>(stream, ha);
    b = Buffer<bfloat16>(stream, hb);
    hbias.resize(kSize);
    for (auto& x : hbias) x = dist(rng);
    bias = Buffer<float>(stream, hbias);
  }
  /// cuBLAS's C[m, n] = A[m, k] B[k, n] over the first elements of a, b and c (row-major).
  void run_cublas(int m = kSize, int n = kSize, int k = kSize) {
    int e = cutlet_cublas_gemm_bf16(m, n, k, reinterpret_cast<const void*>(a.data()),
                                    reinterpret_cast<const void*>(b.data()), reinterpret_cast<float*>(c.data()),
                                    stream.handle());
    if (e != 0) throw Error("cutlet_bench: cublasGemmEx failed with status " + std::to_string(e - 1000));
  }
  /// The bias + GELU epilogue of c into c16 (bf16), as one nvcc-built kernel.
  void run_epilogue() {
    int e = cutlet_bias_gelu_bf16(reinterpret_cast<const float*>(c.data()), reinterpret_cast<const float*>(bias.data()),
                                  reinterpret_cast<void*>(c16.data()), kSize, kSize, stream.handle());
    if (e != 0) throw Error(std::string("cutlet_bench: the bias + GELU epilogue kernel failed: ") + cutlet_cub_error_string(e));
  }
  /// Checks 32 scattered elements of c (or, with `epilogue`, of gelu(c + bias) in c16) against
  /// the CPU, for the product of a as [m, kk] and b as [kk, n].
  void verify(const std::string& who, bool epilogue = false, int m = kSize, int n = kSize, int kk = kSize) {
    std::mt19937 rng(5);
    for (int t = 0; t < 32; ++t) {
      const int i = static_cast<int>(rng() % m), j = static_cast<int>(rng() % n);
      double want = 0;
      for (int k = 0; k < kk; ++k) want += double(float(ha[std::size_t(i) * kk + k])) * double(float(hb[std::size_t(k) * n + j]));
      float got = 0;
      if (epilogue) {
        want += hbias[j];
        want = 0.5 * want * (1.0 + std::erf(want / std::sqrt(2.0)));
        bfloat16 g;
        c16.memory().copy_to_host(stream, &g, 2, (std::size_t(i) * n + j) * 2);
        stream.synchronize();
        got = float(g);
      } else {
        c.memory().copy_to_host(stream, &got, 4, (std::size_t(i) * n + j) * 4);
        stream.synchronize();
      }
      if (!(std::fabs(got - want) <= (epilogue ? 1e-2 : 0.0) * std::fabs(want) + 1e-2 * (1 + std::fabs(want))))
        throw Error("cutlet_bench: " + who + " GEMM is wrong at (" + std::to_string(i) + ", " + std::to_string(j) +
                    "): got " + std::to_string(got) + ", want " + std::to_string(want));
    }
  }
};

Env& env() {
  static auto e = std::make_unique<Env>();
  return *e;
}

/// BM_tile_gemm, and with `Epilogue` BM_tile_gemm_gelu (bias + GELU, bf16 out), each against
/// cuBLAS's plain GEMM (f32 out) in the same iterations. With `MmaSync`, built for sm_90.
template <int BM, int BN, int BK, bool Epilogue = false, bool MmaSync = false>
void BM_tile_gemm(benchmark::State& state) {
  if (!require_gpu(state)) return;
  guarded(state, [](benchmark::State& state) {
    Env& e = env();
    std::optional<Target> target;
    if constexpr (MmaSync) target = Target::from_string("sm_90");
    auto k = make_gemm<BM, BN, BK, Epilogue>(static_cast<int>(state.range(0)), static_cast<int>(state.range(1)), target);
    auto run = [&] {
      if constexpr (Epilogue)
        k.launch(e.stream, {.grid = (kSize / BM) * (kSize / BN)}, tensor(e.c16, {kSize, kSize}), tensor(e.a, {kSize, kSize}),
                 tensor(e.b, {kSize, kSize}), tensor(e.bias, {kSize}));
      else
        k.launch(e.stream, {.grid = (kSize / BM) * (kSize / BN)}, tensor(e.c, {kSize, kSize}), tensor(e.a, {kSize, kSize}),
                 tensor(e.b, {kSize, kSize}), tensor(e.bias, {kSize}));
    };
    run();
    e.verify("cutlet", Epilogue);
    e.run_cublas();
    e.verify("cuBLAS");
    if constexpr (Epilogue) {
      e.run_epilogue();
      e.verify("cuBLAS + epilogue kernel", true);
    }
    std::vector<Peer> peers{{"cublas", [&] { e.run_cublas(); }}};
    // What a user without a fused kernel runs: cuBLAS's GEMM, then one epilogue kernel over its output.
    if constexpr (Epilogue) peers.push_back({"cublas_epilogue", [&] {
                                               e.run_cublas();
                                               e.run_epilogue();
                                             }});
    time_gemm_against(state, e.stream, kReps, kFlops, k, run, peers);
  });
}

/// BM_tile_gemm_shape/m:M/n:N/k:K: the plain GEMM (f32 out) at other shapes (a [M, K], b [K,
/// N], M and N multiples of the tile), against cuBLAS at the same shape in the same iterations.
template <int BM, int BN, int BK>
void BM_tile_gemm_shape(benchmark::State& state) {
  if (!require_gpu(state)) return;
  guarded(state, [](benchmark::State& state) {
    Env& e = env();
    const int m = static_cast<int>(state.range(0)), n = static_cast<int>(state.range(1)), kk = static_cast<int>(state.range(2));
    auto k = make_gemm<BM, BN, BK, false>(static_cast<int>(state.range(3)), static_cast<int>(state.range(4)), std::nullopt);
    auto run = [&] {
      k.launch(e.stream, {.grid = (m / BM) * (n / BN)}, tensor(e.c, {m, n}), tensor(e.a, {m, kk}), tensor(e.b, {kk, n}),
               tensor(e.bias, {n}));
    };
    run();
    e.verify("cutlet", false, m, n, kk);
    e.run_cublas(m, n, kk);
    e.verify("cuBLAS", false, m, n, kk);
    time_gemm_against(state, e.stream, kReps, 2.0 * m * n * kk, k, run, {{"cublas", [&] { e.run_cublas(m, n, kk); }}});
  });
}

}  // namespace

BENCHMARK(BM_tile_gemm_shape<128, 256, 64>)->Name("BM_tile_gemm_shape/bm:128/bn:256/bk:64")
    ->ArgNames({"m", "n", "k", "warps", "stages"})
    ->Args({4096, 4096, 4096, 8, 3})->Args({65536, 1024, 1024, 8, 3})->Args({128, 8192, 8192, 8, 3})
    ->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(kIterations);
BENCHMARK(BM_tile_gemm_shape<128, 128, 64>)->Name("BM_tile_gemm_shape/bm:128/bn:128/bk:64")
    ->ArgNames({"m", "n", "k", "warps", "stages"})
    ->Args({4096, 4096, 4096, 4, 4})->Args({128, 8192, 8192, 4, 4})
    ->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(kIterations);
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
    ->Args({8, 2})->Args({8, 3})->Args({8, 4})
    ->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(kIterations);
BENCHMARK(BM_tile_gemm<256, 128, 64>)->Name("BM_tile_gemm/bm:256/bn:128/bk:64")->ArgNames({"warps", "stages"})
    ->Args({8, 3})
    ->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(kIterations);
BENCHMARK(BM_tile_gemm<128, 256, 32, true>)->Name("BM_tile_gemm_gelu/bm:128/bn:256/bk:32")->ArgNames({"warps", "stages"})
    ->Args({8, 3})->Args({8, 4})
    ->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(kIterations);
BENCHMARK(BM_tile_gemm<128, 256, 64, true>)->Name("BM_tile_gemm_gelu/bm:128/bn:256/bk:64")->ArgNames({"warps", "stages"})
    ->Args({8, 3})->Args({8, 4})
    ->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(kIterations);
BENCHMARK(BM_tile_gemm<256, 128, 64, true>)->Name("BM_tile_gemm_gelu/bm:256/bn:128/bk:64")->ArgNames({"warps", "stages"})
    ->Args({8, 3})
    ->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(kIterations);
BENCHMARK(BM_tile_gemm<128, 256, 64, false, true>)->Name("BM_tile_gemm_mma_sync/bm:128/bn:256/bk:64")
    ->ArgNames({"warps", "stages"})->Args({8, 3})
    ->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(kIterations);
BENCHMARK(BM_tile_gemm<128, 256, 32, false, true>)->Name("BM_tile_gemm_mma_sync/bm:128/bn:256/bk:32")
    ->ArgNames({"warps", "stages"})->Args({8, 3})->Args({8, 4})->Args({16, 3})
    ->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(kIterations);
BENCHMARK(BM_tile_gemm<128, 256, 32, true, true>)->Name("BM_tile_gemm_gelu_mma_sync/bm:128/bn:256/bk:32")
    ->ArgNames({"warps", "stages"})->Args({8, 3})->Args({8, 4})->Args({16, 3})
    ->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(kIterations);
BENCHMARK(BM_tile_gemm<128, 256, 64, true, true>)->Name("BM_tile_gemm_gelu_mma_sync/bm:128/bn:256/bk:64")
    ->ArgNames({"warps", "stages"})->Args({8, 3})
    ->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(kIterations);
// 128x128 tiles on 4 warps: two blocks fit an SM, so one block's epilogue could overlap the
// other's main loop (measured slower than 128x256 on 8 warps: bench/RESULTS.md).
BENCHMARK(BM_tile_gemm<128, 128, 32, false, true>)->Name("BM_tile_gemm_mma_sync/bm:128/bn:128/bk:32")
    ->ArgNames({"warps", "stages"})->Args({4, 3})
    ->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(kIterations);
BENCHMARK(BM_tile_gemm<128, 128, 32, true, true>)->Name("BM_tile_gemm_gelu_mma_sync/bm:128/bn:128/bk:32")
    ->ArgNames({"warps", "stages"})->Args({4, 3})
    ->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(kIterations);
BENCHMARK(BM_tile_gemm<256, 128, 32, false, true>)->Name("BM_tile_gemm_mma_sync/bm:256/bn:128/bk:32")
    ->ArgNames({"warps", "stages"})->Args({8, 3})->Args({8, 4})->Args({16, 3})
    ->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(kIterations);
BENCHMARK(BM_tile_gemm<256, 128, 64, false, true>)->Name("BM_tile_gemm_mma_sync/bm:256/bn:128/bk:64")
    ->ArgNames({"warps", "stages"})->Args({8, 3})
    ->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(kIterations);
BENCHMARK(BM_tile_gemm<256, 128, 32, true, true>)->Name("BM_tile_gemm_gelu_mma_sync/bm:256/bn:128/bk:32")
    ->ArgNames({"warps", "stages"})->Args({8, 3})->Args({8, 4})->Args({16, 3})
    ->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(kIterations);
BENCHMARK(BM_tile_gemm<256, 128, 64, true, true>)->Name("BM_tile_gemm_gelu_mma_sync/bm:256/bn:128/bk:64")
    ->ArgNames({"warps", "stages"})->Args({8, 3})
    ->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(kIterations);

}  // namespace cutlet::bench
