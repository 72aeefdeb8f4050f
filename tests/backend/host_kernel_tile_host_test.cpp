// Tile kernels run on the host CPU (HostKernel) where their ops have host lowerings: a row
// softmax (reductions across warps through shared memory and shuffles, masked loads and
// stores at the row's end) and a matmul of f32 tiles (dot as FMAs), with ragged edges,
// against C++ references on random data with the outputs poisoned first.
#include <gtest/gtest.h>

#include <cutlet/backend/host_kernel.h>
#include <cutlet/cutlet.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

using namespace cutlet;

namespace {

/// A row-major rank-2 TensorArg over host memory, without specialization facts.
template <class T>
TensorArg<T, 2> host_tensor(T* data, int rows, int cols) {
  TensorArg<T, 2> t;
  t.data = reinterpret_cast<std::uint64_t>(data);
  t.shape[0] = rows;
  t.shape[1] = cols;
  t.strides[0] = cols;
  t.strides[1] = 1;
  return t.generic();
}

TEST(HostKernelTile, ARowSoftmaxMatchesTheCpp) {
  auto softmax = tile_kernel([](Tensor<float, 2> out, Tensor<float, 2> in, Const<int> BLOCK) {
    auto row = program_id(0);
    auto cols = arange(BLOCK);
    auto mask = cols < in.shape(1);
    auto x = load(in, {row, cols}, mask, Value<float>(-INFINITY));
    auto e = exp(x - max(x, 0));
    store(out, {row, cols}, e / sum(e, 0), mask);
  }, {.name = "host_tile_softmax"}, 4);
  const HostKernel k = HostKernel::compile(softmax.trace_ir<Tensor<float, 2>, Tensor<float, 2>, Const<int>>(1024));
  const int rows = 7, cols = 1000;
  std::vector<float> in(rows * cols), out(rows * cols, -1.0f);
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> dist(-3.0f, 3.0f);
  for (float& v : in) v = dist(rng);
  auto to = host_tensor(out.data(), rows, cols), ti = host_tensor(in.data(), rows, cols);
  void* args[] = {&to, &ti};
  k.run({rows}, {128}, args);
  for (int r = 0; r < rows; ++r) {
    double m = -INFINITY, s = 0;
    for (int c = 0; c < cols; ++c) m = std::max<double>(m, in[r * cols + c]);
    for (int c = 0; c < cols; ++c) s += std::exp(in[r * cols + c] - m);
    for (int c = 0; c < cols; ++c) ASSERT_NEAR(out[r * cols + c], std::exp(in[r * cols + c] - m) / s, 1e-6) << r << ", " << c;
  }
}

TEST(HostKernelTile, AnF32MatmulWithRaggedEdgesMatchesTheCpp) {
  static constexpr int BM = 32, BN = 32, BK = 16;
  auto matmul = tile_kernel([](Tensor<float, 2> c, Tensor<float, 2> a, Tensor<float, 2> b) {
    auto rm = program_id(0) * BM + arange(BM);
    auto rn = program_id(1) * BN + arange(BN);
    auto rk = arange(BK);
    auto acc = for_range(0, a.shape(1), BK, zeros<float>({BM, BN}), [&](i32 k0, Tile<float> acc) {
      auto ka = k0 + rk;
      auto am = (expand_dims(rm, 1) < a.shape(0)) & (expand_dims(ka, 0) < a.shape(1));
      auto bm = (expand_dims(ka, 1) < b.shape(0)) & (expand_dims(rn, 0) < b.shape(1));
      return dot(load(a, {expand_dims(rm, 1), expand_dims(ka, 0)}, am, Value<float>(0.0f)),
                 load(b, {expand_dims(ka, 1), expand_dims(rn, 0)}, bm, Value<float>(0.0f)), acc);
    });
    store(c, {expand_dims(rm, 1), expand_dims(rn, 0)}, acc, (expand_dims(rm, 1) < c.shape(0)) & (expand_dims(rn, 0) < c.shape(1)));
  }, {.name = "host_tile_matmul"}, 4);
  const HostKernel k = HostKernel::compile(matmul.trace_ir<Tensor<float, 2>, Tensor<float, 2>, Tensor<float, 2>>());
  const int M = 45, N = 70, K = 50;
  std::vector<float> a(M * K), b(K * N), c(M * N, -7.0f);
  std::mt19937 rng(2);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (float& v : a) v = dist(rng);
  for (float& v : b) v = dist(rng);
  auto tc = host_tensor(c.data(), M, N), ta = host_tensor(a.data(), M, K), tb = host_tensor(b.data(), K, N);
  void* args[] = {&tc, &ta, &tb};
  k.run({(M + BM - 1) / BM, (N + BN - 1) / BN}, {128}, args);
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double want = 0;
      for (int kk = 0; kk < K; ++kk) want += double(a[i * K + kk]) * double(b[kk * N + j]);
      ASSERT_NEAR(c[i * N + j], want, 1e-4) << i << ", " << j;
    }
}

}  // namespace
