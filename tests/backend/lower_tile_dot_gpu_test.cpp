// Dots of transposed operands on the GPU against the CPU: a, b or both given transposed, on
// tensor cores (f16, bf16, tf32) and on FMA (exact f32), in one step and in a K loop whose
// transposed loads are copied with cp.async; and attention's P fed to the next dot from
// registers.
#include <cmath>
#include <string>

#include "dot_check.h"
#include "gpu_test_support.h"
#include "kernel_test_support.h"

using namespace cutlet;
using namespace cutlet::test;

namespace {

/// A K loop of BM x BN x BK blocks with the given transposes; `tol` absolute.
template <class T, int BM, int BN, int BK>
void check_transposed(bool at, bool bt, bool tf32, double tol, int M, int N, int K, int warps = 4) {
  run_dot_check<T, BM, BN, BK>({.at = at, .bt = bt, .tf32 = tf32, .M = M, .N = N, .K = K, .warps = warps, .abs_tol = tol,
                                .rel_tol = 0, .name = "dot_transposed"});
}

TEST(TileDotGpu, TransposedOperandsOnTensorCores) {
  CUTLET_REQUIRE_GPU();
  for (bool at : {false, true})
    for (bool bt : {false, true}) {
      check_transposed<half, 64, 64, 32>(at, bt, false, 1e-3, 200, 136, 96);
      check_transposed<bfloat16, 64, 64, 32>(at, bt, false, 2e-3, 130, 72, 160, 8);
      check_transposed<float, 64, 64, 32>(at, bt, true, 3e-2, 96, 80, 64);
    }
}

TEST(TileDotGpu, TransposedOperandsOnFma) {
  CUTLET_REQUIRE_GPU();
  for (bool at : {false, true})
    for (bool bt : {false, true}) check_transposed<float, 32, 32, 16>(at, bt, false, 1e-4, 70, 45, 40);
}

// Attention's shape: S = Q K^T, then P = S cast to bf16 times V, with P's accumulator
// registers read as the a fragments (whole rows per warp): against the CPU.
TEST(TileDotGpu, AccumulatorFeedsTheNextDotFromRegisters) {
  CUTLET_REQUIRE_GPU();
  constexpr int M = 128, N = 64, D = 64;
  for (int warps : {4, 8}) {
    auto kern = tile_kernel([](Tensor<float, 2> o, Tensor<bfloat16, 2> q, Tensor<bfloat16, 2> k, Tensor<bfloat16, 2> v) {
      auto rows = expand_dims(arange(M), 1), cols = expand_dims(arange(D), 0), keys = expand_dims(arange(N), 1);
      auto s = dot(load(q, {rows, cols}), transpose(load(k, {keys, cols})));
      auto p = s - expand_dims(max(s, 1), 1);  // the row max, taken within warps
      store(o, {rows, cols}, dot(cast<bfloat16>(p), load(v, {keys, cols})));
    }, {.name = "dot_chain"}, warps);
    Stream st;
    auto hq = random_vector<float>(M * D, 61, -1.0f, 1.0f), hk = random_vector<float>(N * D, 62, -1.0f, 1.0f),
         hv = random_vector<float>(N * D, 63, -1.0f, 1.0f);
    std::vector<bfloat16> q(hq.begin(), hq.end()), k(hk.begin(), hk.end()), v(hv.begin(), hv.end());
    Buffer<bfloat16> dq(st, q), dk(st, k), dv(st, v);
    auto o = poisoned<float>(st, M * D);
    kern.launch(st, {.grid = 1}, tensor(o, {M, D}), tensor(dq, {M, D}), tensor(dk, {N, D}), tensor(dv, {N, D}));
    auto r = o.to_host(st);
    for (int i = 0; i < M; ++i) {
      std::vector<float> srow(N);
      float mx = -INFINITY;
      for (int j = 0; j < N; ++j) {
        double acc = 0;
        for (int d = 0; d < D; ++d) acc += double(float(q[i * D + d])) * double(float(k[j * D + d]));
        srow[j] = float(acc);
        mx = std::max(mx, srow[j]);
      }
      for (int d = 0; d < D; ++d) {
        double want = 0;
        for (int j = 0; j < N; ++j) want += double(float(bfloat16(srow[j] - mx))) * double(float(v[j * D + d]));
        ASSERT_NEAR(r[i * D + d], want, 0.1 + 0.01 * std::fabs(want)) << i << "," << d << " on " << warps << " warps";
      }
    }
  }
}

}  // namespace
