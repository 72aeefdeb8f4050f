// A tile matmul against the CPU, for the dot tests of every path (mma.sync, wgmma, FMA):
// C [M, N] = A @ B with A held as [K, M] and B as [N, K] when asked (B's element type may differ
// from A's where dot takes that: FP8 of two formats), over K in steps of BK
// (the loads pipelined) or in one dot of whole tiles, masked edges, the output poisoned first.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <type_traits>
#include <vector>

#include "gpu_test_support.h"
#include "kernel_test_support.h"

namespace cutlet::test {

/// One matmul to check: its transposes, sizes, launch and tolerance.
struct DotCase {
  bool at = false, bt = false;  ///< A read as [K, M], B as [N, K]
  bool loop = true;             ///< over K in steps of BK, else one dot of the whole (BK = K) tiles
  bool tf32 = false;            ///< f32 operands on tf32 tensor cores
  int M = 0, N = 0, K = 0;
  int warps = 4;
  int stages = 0;  ///< tile_stages (0: the default)
  double abs_tol = 1e-3, rel_tol = 1e-3;
  const char* name = "dot_check";
  const char* target = nullptr;  ///< KernelOptions::target ("sm_90"), or the device's

  /// "128x256x64 a^T loop 250x300x200 on 8 warps" (the block sizes given by the caller).
  std::string str(int bm, int bn, int bk) const {
    return std::to_string(bm) + "x" + std::to_string(bn) + "x" + std::to_string(bk) + (at ? " a^T" : "") + (bt ? " b^T" : "") +
           (loop ? " loop" : "") + " " + std::to_string(M) + "x" + std::to_string(N) + "x" + std::to_string(K) + " on " +
           std::to_string(warps) + " warps";
  }
};

/// Builds and launches the matmul of `c` with BM x BN x BK blocks of T and checks every element
/// (stopping at the first that is off). Returns the kernel's PTX, or "" if a check failed.
template <class T, int BM, int BN, int BK, class TB = T>
std::string run_dot_check(const DotCase& c) {
  const bool at = c.at, bt = c.bt, loop = c.loop, tf32 = c.tf32;
  const int M = c.M, N = c.N, K = c.K;
  KernelOptions options{.name = c.name, .tile_stages = loop ? c.stages : 0};
  if (c.target) options.target = Target::from_string(c.target);
  auto kern = tile_kernel([=](Tensor<float, 2> out, Tensor<T, 2> a, Tensor<TB, 2> b) {
    auto rm = program_id(0) * BM + arange(BM), rn = program_id(1) * BN + arange(BN);
    auto step = [&](i32 k0, Tile<float> acc) {
      auto ka = k0 + arange(BK);
      Tile<T> ta = at ? transpose(load(a, {expand_dims(ka, 1), expand_dims(rm, 0)}, (expand_dims(ka, 1) < K) & (expand_dims(rm, 0) < M)))
                      : load(a, {expand_dims(rm, 1), expand_dims(ka, 0)}, (expand_dims(rm, 1) < M) & (expand_dims(ka, 0) < K));
      Tile<TB> tb = bt ? transpose(load(b, {expand_dims(rn, 1), expand_dims(ka, 0)}, (expand_dims(rn, 1) < N) & (expand_dims(ka, 0) < K)))
                      : load(b, {expand_dims(ka, 1), expand_dims(rn, 0)}, (expand_dims(ka, 1) < K) & (expand_dims(rn, 0) < N));
      if constexpr (std::is_same_v<T, TB>)
        return dot(ta, tb, acc, tf32);
      else
        return dot(ta, tb, acc);  // FP8 of two formats
    };
    auto acc = loop ? for_range(0, K, BK, zeros<float>({BM, BN}), step) : step(Value<int>(0), zeros<float>({BM, BN}));
    store(out, {expand_dims(rm, 1), expand_dims(rn, 0)}, acc, (expand_dims(rm, 1) < M) & (expand_dims(rn, 0) < N));
  }, options, c.warps);
  Stream st;
  auto ha = random_vector<float>(std::size_t(M) * K, 71, -1.0f, 1.0f);
  auto hb = random_vector<float>(std::size_t(K) * N, 72, -1.0f, 1.0f);
  std::vector<T> a(std::size_t(M) * K);
  std::vector<TB> b(std::size_t(K) * N);
  auto a_at = [&](int i, int k) { return at ? std::size_t(k) * M + i : std::size_t(i) * K + k; };
  auto b_at = [&](int k, int j) { return bt ? std::size_t(j) * K + k : std::size_t(k) * N + j; };
  for (int i = 0; i < M; ++i)
    for (int k = 0; k < K; ++k) a[a_at(i, k)] = T(ha[std::size_t(i) * K + k]);
  for (int k = 0; k < K; ++k)
    for (int j = 0; j < N; ++j) b[b_at(k, j)] = TB(hb[std::size_t(k) * N + j]);
  Buffer<T> da(st, a);
  Buffer<TB> db(st, b);
  auto out = poisoned<float>(st, std::size_t(M) * N);
  kern.launch(st, {.grid = {static_cast<int>(ceil_div(M, BM)), static_cast<int>(ceil_div(N, BN))}}, tensor(out, {M, N}),
              at ? tensor(da, {K, M}) : tensor(da, {M, K}), bt ? tensor(db, {N, K}) : tensor(db, {K, N}));
  auto r = out.to_host(st);
  const std::string what = c.str(BM, BN, BK);
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double want = 0;
      for (int k = 0; k < K; ++k) want += double(float(a[a_at(i, k)])) * double(float(b[b_at(k, j)]));
      const double got = r[std::size_t(i) * N + j];
      if (!(std::fabs(got - want) <= c.abs_tol + c.rel_tol * std::fabs(want))) {
        ADD_FAILURE() << "at " << i << "," << j << ": " << got << ", want " << want << " (" << what << ")";
        return "";
      }
    }
  return kern.last_specialization()->compiled->ptx;
}

}  // namespace cutlet::test
