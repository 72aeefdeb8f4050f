// Autotuning a tile matmul as Triton users do: block sizes as Const parameters, warps and
// stages as options. Every candidate compiles, launches and is right, except those whose
// shared memory no block can have, which are refused before linking with the buffers named.
#include <gtest/gtest.h>

#include <cutlet/cutlet.h>

#include <cmath>
#include <string>
#include <vector>

#include "cutlet/jit/autotune.h"
#include "gpu_test_support.h"
#include "isolated_cache_dir.h"
#include "kernel_test_support.h"

using namespace cutlet;
using namespace cutlet::test;

static const bool kIsolated = cutlet::test::isolate_kernel_cache();

namespace {

auto make_matmul() {
  return tile_kernel(
      [](Tensor<float, 2> c, Tensor<bfloat16, 2> a, Tensor<bfloat16, 2> b, Const<int> BM_, Const<int> BN_, Const<int> BK_) {
        const int BM = BM_, BN = BN_, BK = BK_;
        auto M = a.shape(0), N = b.shape(1), K = a.shape(1);
        auto tiles_n = (N + (BN - 1)) / BN;
        auto rm = program_id(0) / tiles_n * BM + arange(BM), rn = program_id(0) % tiles_n * BN + arange(BN);
        auto rk = arange(BK);
        auto acc = for_range(0, K, BK, zeros<float>({BM, BN}), [&](i32 k0, Tile<float> acc) {
          auto ka = k0 + rk;
          auto ta = load(a, {expand_dims(rm, 1), expand_dims(ka, 0)}, (expand_dims(rm, 1) < M) & (expand_dims(ka, 0) < K));
          auto tb = load(b, {expand_dims(ka, 1), expand_dims(rn, 0)}, (expand_dims(ka, 1) < K) & (expand_dims(rn, 0) < N));
          return dot(ta, tb, acc);
        });
        store(c, {expand_dims(rm, 1), expand_dims(rn, 0)}, acc, (expand_dims(rm, 1) < M) & (expand_dims(rn, 0) < N));
      },
      {.name = "tuned_matmul"}, 4);
}

// The widest candidate of the list below (one warpgroup holding a 128x256 accumulator, more
// registers than a thread may have) on its own, outside any tuning run, built with `options`.
void check_widest_candidate(KernelOptions options) {
  const int M = 1000, N = 1032, K = 520;
  Stream st;
  auto ha = random_vector<float>(std::size_t(M) * K, 43, -1.0f, 1.0f);
  auto hb = random_vector<float>(std::size_t(K) * N, 44, -1.0f, 1.0f);
  std::vector<bfloat16> a16(ha.begin(), ha.end()), b16(hb.begin(), hb.end());
  Buffer<bfloat16> a(st, a16), b(st, b16);
  auto c = poisoned<float>(st, std::size_t(M) * N);
  auto k = make_matmul().with_options(std::move(options));
  k.launch(st, {.grid = static_cast<int>(ceil_div(M, 128) * ceil_div(N, 256))}, tensor(c, {M, N}), tensor(a, {M, K}),
           tensor(b, {K, N}), 128, 256, 64);
  auto out = c.to_host(st);
  for (int i = 0; i < M; i += 3)
    for (int j = 0; j < N; j += 7) {
      double want = 0;
      for (int kk = 0; kk < K; ++kk) want += double(float(a16[i * K + kk])) * double(float(b16[kk * N + j]));
      ASSERT_NEAR(out[std::size_t(i) * N + j], want, 2e-3 + 1e-5 * std::fabs(want)) << i << "," << j;
    }
}

TEST(AutotuneTileGpu, WidestCandidateAloneIsRight) {
  CUTLET_REQUIRE_GPU();
  check_widest_candidate({.tile_warps = 4, .tile_stages = 3});
}

// The same on mma.sync (an sm_90 build of the same source): as many registers, no wgmma.
TEST(AutotuneTileGpu, WidestCandidateOnMmaSyncIsRight) {
  CUTLET_REQUIRE_GPU();
  if (Device(0).compute_capability().major != 9) GTEST_SKIP() << "compares with the sm_90a build of an sm_90 device";
  check_widest_candidate({.target = Target::from_string("sm_90"), .tile_warps = 4, .tile_stages = 3});
}

TEST(AutotuneTileGpu, BlockSizesWarpsAndStagesWithoutFailedCandidates) {
  CUTLET_REQUIRE_GPU();
  const int M = 1000, N = 1032, K = 520;
  Stream st;
  auto ha = random_vector<float>(std::size_t(M) * K, 41, -1.0f, 1.0f);
  auto hb = random_vector<float>(std::size_t(K) * N, 42, -1.0f, 1.0f);
  std::vector<bfloat16> a16(ha.begin(), ha.end()), b16(hb.begin(), hb.end());
  Buffer<bfloat16> a(st, a16), b(st, b16);
  auto c = poisoned<float>(st, std::size_t(M) * N);
  auto k = make_matmul();
  TuningSpace space;
  space.constant("BM", {64, 128, 256}).constant("BN", {64, 128, 256}).constant("BK", {32, 64});
  space.option("tile_warps", {4, 8}).option("tile_stages", {3, 4});
  // 256 x 256 accumulators do not fit a block's registers; a user's tuning list leaves them out.
  space.prune([](const Config& cfg) { return cfg.get<int>("BM") * cfg.get<int>("BN") > 128 * 256 ? "too large" : ""; });
  AutotuneOptions o;
  o.persist = false;
  o.repeats = 3;
  o.warmup = 1;
  auto shape = [](const Config& cfg, const auto&, const auto&, const auto&) {
    return LaunchConfig{.grid = static_cast<int>(ceil_div(1000, cfg.get<int>("BM")) * ceil_div(1032, cfg.get<int>("BN")))};
  };
  auto tuner = autotune(k, space, shape, o);
  const TuneReport r = tuner.tune(st, tensor(c, {M, N}), tensor(a, {M, K}), tensor(b, {K, N}));
  SCOPED_TRACE(r.table());
  int timed = 0, refused = 0;
  for (const TuneTrial& t : r.trials) {
    if (t.status == TuneTrial::Status::Timed) {
      ++timed;
    } else if (t.status == TuneTrial::Status::CompileFailed) {
      // Only shared memory beyond a block's, said before linking with what to lower.
      ++refused;
      EXPECT_NE(t.reason.find("bytes of shared memory per block"), std::string::npos) << t.config.str() << ": " << t.reason;
      EXPECT_NE(t.reason.find("tile_stages"), std::string::npos) << t.reason;
    } else {
      EXPECT_EQ(t.status, TuneTrial::Status::Pruned) << t.config.str() << ": " << to_string(t.status) << " " << t.reason;
    }
  }
  EXPECT_GE(timed, 40);
  ASSERT_TRUE(r.best_config());
  // The best configuration's result is right.
  tuner.launch(st, tensor(c, {M, N}), tensor(a, {M, K}), tensor(b, {K, N}));
  auto out = c.to_host(st);
  for (int i = 0; i < M; i += 7)
    for (int j = 0; j < N; j += 5) {
      double want = 0;
      for (int kk = 0; kk < K; ++kk) want += double(float(a16[i * K + kk])) * double(float(b16[kk * N + j]));
      ASSERT_NEAR(out[std::size_t(i) * N + j], want, 2e-3 + 1e-5 * std::fabs(want)) << i << "," << j << " " << r.best_config()->str();
    }
}

}  // namespace
