// Dots of transposed operands on the GPU against the CPU: a, b or both given transposed, on
// tensor cores (f16, bf16, tf32) and on FMA (exact f32), in one step and in a K loop whose
// transposed loads are copied with cp.async; and attention's P fed to the next dot from
// registers.
#include <cmath>
#include <string>

#include "kernel_test_support.h"
#include "gpu_test_support.h"

using namespace cutlet;
using namespace cutlet::test;

namespace {

/// C [M, N] = A @ B where the kernel reads A as [K, M] (at) and B as [N, K] (bt) when asked,
/// looping over K in steps of BK; masked edges.
template <class T, int BM, int BN, int BK>
void check_transposed(bool at, bool bt, bool tf32, double tol, int M, int N, int K, int warps = 4) {
  auto kern = tile_kernel([=](Tensor<float, 2> c, Tensor<T, 2> a, Tensor<T, 2> b) {
    auto rm = program_id(0) * BM + arange(BM), rn = program_id(1) * BN + arange(BN), rk = arange(BK);
    auto acc = for_range(0, K, BK, zeros<float>({BM, BN}), [&](i32 k0, Tile<float> acc) {
      auto ka = k0 + rk;
      Tile<T> ta = at ? transpose(load(a, {expand_dims(ka, 1), expand_dims(rm, 0)}, (expand_dims(ka, 1) < K) & (expand_dims(rm, 0) < M)))
                      : load(a, {expand_dims(rm, 1), expand_dims(ka, 0)}, (expand_dims(rm, 1) < M) & (expand_dims(ka, 0) < K));
      Tile<T> tb = bt ? transpose(load(b, {expand_dims(rn, 1), expand_dims(ka, 0)}, (expand_dims(rn, 1) < N) & (expand_dims(ka, 0) < K)))
                      : load(b, {expand_dims(ka, 1), expand_dims(rn, 0)}, (expand_dims(ka, 1) < K) & (expand_dims(rn, 0) < N));
      return dot(ta, tb, acc, tf32);
    });
    store(c, {expand_dims(rm, 1), expand_dims(rn, 0)}, acc, (expand_dims(rm, 1) < M) & (expand_dims(rn, 0) < N));
  }, {.name = "dot_transposed"}, warps);
  Stream st;
  auto ha = random_vector<float>(std::size_t(M) * K, 51, -1.0f, 1.0f);
  auto hb = random_vector<float>(std::size_t(K) * N, 52, -1.0f, 1.0f);
  std::vector<T> a(std::size_t(M) * K), b(std::size_t(K) * N);
  for (int i = 0; i < M; ++i)
    for (int k = 0; k < K; ++k) a[at ? std::size_t(k) * M + i : std::size_t(i) * K + k] = T(ha[std::size_t(i) * K + k]);
  for (int k = 0; k < K; ++k)
    for (int j = 0; j < N; ++j) b[bt ? std::size_t(j) * K + k : std::size_t(k) * N + j] = T(hb[std::size_t(k) * N + j]);
  Buffer<T> da(st, a), db(st, b);
  auto c = poisoned<float>(st, std::size_t(M) * N);
  kern.launch(st, {.grid = {static_cast<int>(ceil_div(M, BM)), static_cast<int>(ceil_div(N, BN))}}, tensor(c, {M, N}),
              at ? tensor(da, {K, M}) : tensor(da, {M, K}), bt ? tensor(db, {N, K}) : tensor(db, {K, N}));
  auto r = c.to_host(st);
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double want = 0;
      for (int k = 0; k < K; ++k)
        want += double(float(T(ha[std::size_t(i) * K + k]))) * double(float(T(hb[std::size_t(k) * N + j])));
      ASSERT_NEAR(r[std::size_t(i) * N + j], want, tol) << i << "," << j << (at ? " a^T" : "") << (bt ? " b^T" : "") << " "
                                                        << M << "x" << N << "x" << K;
    }
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
