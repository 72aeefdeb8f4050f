// Matmuls at the tile sizes users pick: every configuration of Triton's matmul tutorial
// autotune list, and the large 8-warp tiles, with the tutorial's grouped program order and
// with fused epilogues (bias, exact GELU, a cast to bf16), on shapes with and without
// 16-byte rows, against a CPU reference.
#include <cmath>
#include <string>

#include "gpu_test_support.h"
#include "kernel_test_support.h"

using namespace cutlet;
using namespace cutlet::test;

namespace {

struct Config {
  int bm, bn, bk, warps, stages;
};

std::string str(const Config& c) {
  return std::to_string(c.bm) + "x" + std::to_string(c.bn) + "x" + std::to_string(c.bk) + ", " + std::to_string(c.warps) +
         " warps, " + std::to_string(c.stages) + " stages";
}

// Triton's tutorial list (03-matrix-multiplication, CUDA), then the 8-warp tiles.
constexpr Config kConfigs[] = {
    {128, 256, 64, 8, 3}, {64, 256, 32, 4, 4}, {128, 128, 32, 4, 4}, {128, 64, 32, 4, 4}, {64, 128, 32, 4, 4},
    {128, 32, 32, 4, 4},  {64, 32, 32, 2, 5},  {32, 64, 32, 2, 5},   {128, 128, 32, 8, 3}, {128, 128, 64, 8, 3},
    {128, 128, 64, 8, 4}, {128, 256, 64, 8, 4}, {256, 128, 64, 8, 3}, {256, 128, 64, 8, 4}, {64, 64, 32, 4, 4},
};

struct Epilogue {
  bool bias = false, gelu = false;
};

/// C = epilogue(A @ B) with A [M, K] and B [K, N] in bf16, the program order grouped by 8 rows
/// of tiles as in Triton's tutorial; Out is float or bfloat16.
template <class Out>
auto grouped_matmul(Config cfg, Epilogue ep) {
  return tile_kernel(
      [=](Tensor<Out, 2> c, Tensor<bfloat16, 2> a, Tensor<bfloat16, 2> b, Tensor<float, 1> bias) {
        const int BM = cfg.bm, BN = cfg.bn, BK = cfg.bk, GROUP = 8;
        auto M = a.shape(0), N = b.shape(1), K = a.shape(1);
        auto pid = program_id(0);
        auto num_pid_m = (M + (BM - 1)) / BM, num_pid_n = (N + (BN - 1)) / BN;
        auto in_group = num_pid_n * GROUP;
        auto first_m = (pid / in_group) * GROUP;
        auto group_m = min(num_pid_m - first_m, Value<int>(GROUP));
        auto pid_m = first_m + (pid % in_group) % group_m;
        auto pid_n = (pid % in_group) / group_m;
        auto rm = pid_m * BM + arange(BM), rn = pid_n * BN + arange(BN), rk = arange(BK);
        auto acc = for_range(0, K, BK, zeros<float>({BM, BN}), [&](i32 k0, Tile<float> acc) {
          auto ka = k0 + rk;
          auto ta = load(a, {expand_dims(rm, 1), expand_dims(ka, 0)}, (expand_dims(rm, 1) < M) & (expand_dims(ka, 0) < K));
          auto tb = load(b, {expand_dims(ka, 1), expand_dims(rn, 0)}, (expand_dims(ka, 1) < K) & (expand_dims(rn, 0) < N));
          return dot(ta, tb, acc);
        });
        if (ep.bias) acc = acc + expand_dims(load(bias, {rn}, rn < N), 0);
        if (ep.gelu) acc = acc * 0.5f * (1.0f + erf(acc * 0.70710678f));
        auto mask = (expand_dims(rm, 1) < M) & (expand_dims(rn, 0) < N);
        store(c, {expand_dims(rm, 1), expand_dims(rn, 0)}, cast<Out>(acc), mask);
      },
      {.name = "grouped_matmul", .tile_stages = cfg.stages}, cfg.warps);
}

template <class Out>
void check(Config cfg, Epilogue ep, int M, int N, int K) {
  auto k = grouped_matmul<Out>(cfg, ep);
  Stream st;
  auto ha = random_vector<float>(std::size_t(M) * K, 31, -1.0f, 1.0f);
  auto hb = random_vector<float>(std::size_t(K) * N, 32, -1.0f, 1.0f);
  auto hbias = random_vector<float>(N, 33, -2.0f, 2.0f);
  std::vector<bfloat16> a16(ha.begin(), ha.end()), b16(hb.begin(), hb.end());
  Buffer<bfloat16> a(st, a16), b(st, b16);
  Buffer<float> bias(st, hbias);
  auto c = poisoned<Out>(st, std::size_t(M) * N);
  const int grid = static_cast<int>(ceil_div(M, cfg.bm) * ceil_div(N, cfg.bn));
  k.launch(st, {.grid = grid}, tensor(c, {M, N}), tensor(a, {M, K}), tensor(b, {K, N}), tensor(bias, {N}));
  auto r = c.to_host(st);
  const double rel = std::is_same_v<Out, float> ? 1e-5 : 8e-3;
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double want = 0;
      for (int kk = 0; kk < K; ++kk) want += double(float(a16[i * K + kk])) * double(float(b16[kk * N + j]));
      if (ep.bias) want += hbias[j];
      if (ep.gelu) want = 0.5 * want * (1.0 + std::erf(want / std::sqrt(2.0)));
      const double got = float(r[std::size_t(i) * N + j]);
      ASSERT_NEAR(got, want, 2e-3 + rel * std::fabs(want))
          << i << "," << j << " of " << M << "x" << N << "x" << K << " at " << str(cfg) << (ep.bias ? ", bias" : "")
          << (ep.gelu ? ", gelu" : "");
    }
}

// Every configuration, plain (f32 out) and with the whole epilogue (bf16 out), on a shape
// whose rows are 16-byte multiples (cp.async stage rings) and on one whose are not.
TEST(TileMatmulConfigs, TritonTutorialConfigurationsWithAndWithoutEpilogues) {
  CUTLET_REQUIRE_GPU();
  for (const Config& cfg : kConfigs) {
    check<float>(cfg, {}, 300, 264, 200);
    check<bfloat16>(cfg, {true, true}, 300, 264, 200);
    check<bfloat16>(cfg, {true, true}, 333, 517, 129);
  }
}

// Each part of the epilogue alone, at the sizes of the failures users met first.
TEST(TileMatmulConfigs, EachEpilogueAlone) {
  CUTLET_REQUIRE_GPU();
  for (const Config& cfg : {Config{128, 128, 32, 8, 3}, Config{128, 256, 64, 8, 3}, Config{64, 128, 32, 4, 3}}) {
    check<bfloat16>(cfg, {}, 260, 392, 160);
    check<float>(cfg, {true, false}, 260, 392, 160);
    check<float>(cfg, {false, true}, 260, 392, 160);
  }
}

}  // namespace
