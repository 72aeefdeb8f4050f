// Tile kernels on the GPU against CPU references: masked edges, reductions along each axis,
// softmax and layer norm rows of sizes that are and are not the tile's.
#include <cmath>

#include "dsl/kernel_test_support.h"
#include "gpu_test_support.h"

using namespace cutlet;
using namespace cutlet::test;

namespace {

TEST(TileGpu, VectorAddMasksTheTail) {
  CUTLET_REQUIRE_GPU();
  constexpr int block = 1024;
  auto k = tile_kernel([](Tensor<float, 1> z, Tensor<float, 1> x, Tensor<float, 1> y) {
    auto i = program_id(0) * 1024 + arange(1024);
    auto m = i < x.shape(0);
    store(z, {i}, load(x, {i}, m) + load(y, {i}, m), m);
  }, {.name = "tile_add"});
  Stream st;
  for (int n : {1000003, 4096, 17}) {
    auto hx = random_vector<float>(n, 1, -1.0f, 1.0f), hy = random_vector<float>(n, 2, -1.0f, 1.0f);
    Buffer<float> x(st, hx), y(st, hy);
    auto z = poisoned<float>(st, n + 64);  // the 64 past the end must stay poisoned
    k.launch(st, {.grid = static_cast<int>(ceil_div(n, block))}, tensor(z, {n}), tensor(x, {n}), tensor(y, {n}));
    auto r = z.to_host(st);
    auto poison = poisoned<float>(st, 1).to_host(st)[0];
    for (int i = 0; i < n; ++i) ASSERT_EQ(r[i], hx[i] + hy[i]) << n << " " << i;
    for (int i = n; i < n + 64; ++i) ASSERT_EQ(std::memcmp(&r[i], &poison, 4), 0) << i;
  }
}

TEST(TileGpu, SoftmaxRowsOfAnyWidth) {
  CUTLET_REQUIRE_GPU();
  auto k = tile_kernel([](Tensor<float, 2> out, Tensor<float, 2> in, Const<int> BLOCK) {
    auto row = program_id(0);
    auto cols = arange(BLOCK);
    auto mask = cols < in.shape(1);
    auto x = load(in, {row, cols}, mask, Value<float>(-INFINITY));
    auto e = exp(x - max(x, 0));
    store(out, {row, cols}, e / sum(e, 0), mask);
  }, {.name = "tile_softmax_rows"});
  Stream st;
  for (auto [rows, cols, blk] : {std::tuple{37, 1000, 1024}, std::tuple{64, 4096, 4096}, std::tuple{5, 3, 4}}) {
    auto h = random_vector<float>(std::size_t(rows) * cols, 3, -4.0f, 4.0f);
    Buffer<float> in(st, h);
    auto out = poisoned<float>(st, std::size_t(rows) * cols);
    k.launch(st, {.grid = rows}, tensor(out, {rows, cols}), tensor(in, {rows, cols}), blk);
    auto r = out.to_host(st);
    for (int i = 0; i < rows; ++i) {
      double m = -INFINITY, s = 0;
      for (int j = 0; j < cols; ++j) m = std::max<double>(m, h[i * cols + j]);
      for (int j = 0; j < cols; ++j) s += std::exp(h[i * cols + j] - m);
      for (int j = 0; j < cols; ++j)
        ASSERT_NEAR(r[i * cols + j], std::exp(h[i * cols + j] - m) / s, 1e-6) << rows << "x" << cols << " " << i << "," << j;
    }
  }
}

// One [16 x 64] tile per program; the matrix is not a multiple of it on either side.
TEST(TileGpu, ReductionsAlongBothAxesWithMaskedEdges) {
  CUTLET_REQUIRE_GPU();
  auto k = tile_kernel([](Tensor<float, 1> row_sum, Tensor<float, 1> row_min, Tensor<float, 1> row_prod,
                          Tensor<float, 2> col_max, Tensor<float, 2> a) {
    auto r = program_id(0) * 16 + arange(16);
    auto c = program_id(1) * 64 + arange(64);
    auto rr = expand_dims(r, 1);
    auto cc = expand_dims(c, 0);
    auto m = (rr < a.shape(0)) & (cc < a.shape(1));
    auto x = load(a, {rr, cc}, m);
    auto row_ok = r < a.shape(0);
    // Partial row results of this column block: one slot per (row, column block).
    auto slot = r * num_programs(1) + program_id(1);
    store(row_sum, {slot}, sum(x, 1), row_ok);
    store(row_min, {slot}, min(where(m, x, 1e30f), 1), row_ok);
    store(row_prod, {slot}, prod(where(m, x, 1.0f), 1), row_ok);
    store(col_max, {program_id(0), c}, max(where(m, x, -1e30f), 0), c < a.shape(1));
  }, {.name = "tile_reductions"});
  Stream st;
  const int rows = 77, cols = 200, gr = 5, gc = 4;
  auto h = random_vector<float>(rows * cols, 4, 0.9f, 1.1f);
  Buffer<float> a(st, h);
  auto rs = poisoned<float>(st, rows * gc), rm = poisoned<float>(st, rows * gc), rp = poisoned<float>(st, rows * gc);
  auto cm = poisoned<float>(st, gr * cols);
  k.launch(st, {.grid = {gr, gc}}, tensor(rs, {rows * gc}), tensor(rm, {rows * gc}), tensor(rp, {rows * gc}),
           tensor(cm, {gr, cols}), tensor(a, {rows, cols}));
  auto hs = rs.to_host(st), hm = rm.to_host(st), hp = rp.to_host(st), hc = cm.to_host(st);
  for (int i = 0; i < rows; ++i)
    for (int b = 0; b < gc; ++b) {
      double s = 0, p = 1, mn = 1e30;
      for (int j = b * 64; j < std::min(cols, (b + 1) * 64); ++j) {
        s += h[i * cols + j];
        p *= h[i * cols + j];
        mn = std::min<double>(mn, h[i * cols + j]);
      }
      ASSERT_NEAR(hs[i * gc + b], s, 1e-4) << i << " " << b;
      ASSERT_NEAR(hp[i * gc + b], p, 1e-4 * std::abs(p)) << i << " " << b;
      ASSERT_EQ(hm[i * gc + b], static_cast<float>(mn)) << i << " " << b;
    }
  for (int g = 0; g < gr; ++g)
    for (int j = 0; j < cols; ++j) {
      float mx = -1e30f;
      for (int i = g * 16; i < std::min(rows, (g + 1) * 16); ++i) mx = std::max(mx, h[i * cols + j]);
      ASSERT_EQ(hc[g * cols + j], mx) << g << " " << j;
    }
}

TEST(TileGpu, LayerNormRows) {
  CUTLET_REQUIRE_GPU();
  auto k = tile_kernel([](Tensor<float, 2> y, Tensor<float, 2> x, Tensor<float, 1> w, Tensor<float, 1> b, f32 eps) {
    auto row = program_id(0);
    auto cols = arange(1024);
    auto m = cols < x.shape(1);
    auto v = load(x, {row, cols}, m);
    auto n = cast<float>(x.shape(1));
    auto mean = sum(v, 0).item() / n;
    auto d = where(m, v - mean, 0.0f);
    auto rstd = rsqrt(sum(d * d, 0).item() / n + eps);
    store(y, {row, cols}, d * rstd * load(w, {cols}, m) + load(b, {cols}, m), m);
  }, {.name = "tile_layer_norm"});
  Stream st;
  const int rows = 33, cols = 777;
  auto hx = random_vector<float>(rows * cols, 5, -3.0f, 5.0f);
  auto hw = random_vector<float>(cols, 6, 0.5f, 1.5f), hb = random_vector<float>(cols, 7, -1.0f, 1.0f);
  Buffer<float> x(st, hx), w(st, hw), b(st, hb);
  auto y = poisoned<float>(st, rows * cols);
  k.launch(st, {.grid = rows}, tensor(y, {rows, cols}), tensor(x, {rows, cols}), tensor(w, {cols}), tensor(b, {cols}),
           1e-5f);
  auto r = y.to_host(st);
  for (int i = 0; i < rows; ++i) {
    double mean = 0, var = 0;
    for (int j = 0; j < cols; ++j) mean += hx[i * cols + j];
    mean /= cols;
    for (int j = 0; j < cols; ++j) var += (hx[i * cols + j] - mean) * (hx[i * cols + j] - mean);
    const double rstd = 1 / std::sqrt(var / cols + 1e-5);
    for (int j = 0; j < cols; ++j)
      ASSERT_NEAR(r[i * cols + j], (hx[i * cols + j] - mean) * rstd * hw[j] + hb[j], 2e-5) << i << " " << j;
  }
}

}  // namespace

namespace {

template <class T>
std::vector<T> to_type(const std::vector<float>& v) {
  std::vector<T> r;
  for (float x : v) r.push_back(T(x));
  return r;
}

// C = A @ B with a K loop carrying the accumulator tile: tensor cores for f16/bf16 (and
// tf32), FMA for exact f32; M, N, K not multiples of the tiles, so the edges are masked.
template <class T>
void check_matmul(bool tf32, double tol) {
  constexpr int BM = 64, BN = 32, BK = 32;
  auto k = tile_kernel([=](Tensor<float, 2> c, Tensor<T, 2> a, Tensor<T, 2> b) {
    auto rm = program_id(0) * BM + arange(BM);
    auto rn = program_id(1) * BN + arange(BN);
    auto rk = arange(BK);
    auto acc = for_range(0, a.shape(1), BK, zeros<float>({BM, BN}), [&](i32 k0, Tile<float> acc) {
      auto ka = k0 + rk;
      auto ta = load(a, {expand_dims(rm, 1), expand_dims(ka, 0)}, (expand_dims(rm, 1) < a.shape(0)) & (expand_dims(ka, 0) < a.shape(1)));
      auto tb = load(b, {expand_dims(ka, 1), expand_dims(rn, 0)}, (expand_dims(ka, 1) < b.shape(0)) & (expand_dims(rn, 0) < b.shape(1)));
      return dot(ta, tb, acc, tf32);
    });
    store(c, {expand_dims(rm, 1), expand_dims(rn, 0)}, acc, (expand_dims(rm, 1) < c.shape(0)) & (expand_dims(rn, 0) < c.shape(1)));
  }, {.name = "tile_matmul"});
  Stream st;
  const int M = 150, N = 70, K = 100;
  auto ha = to_type<T>(random_vector<float>(M * K, 8, -1.0f, 1.0f));
  auto hb = to_type<T>(random_vector<float>(K * N, 9, -1.0f, 1.0f));
  Buffer<T> a(st, ha), b(st, hb);
  auto c = poisoned<float>(st, M * N);
  k.launch(st, {.grid = {static_cast<int>(ceil_div(M, BM)), static_cast<int>(ceil_div(N, BN))}}, tensor(c, {M, N}),
           tensor(a, {M, K}), tensor(b, {K, N}));
  auto r = c.to_host(st);
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double want = 0;
      for (int kk = 0; kk < K; ++kk) want += double(float(ha[i * K + kk])) * double(float(hb[kk * N + j]));
      ASSERT_NEAR(r[i * N + j], want, tol) << i << "," << j;
    }
}

TEST(TileGpu, MatmulBf16OnTensorCores) {
  CUTLET_REQUIRE_GPU();
  check_matmul<bfloat16>(false, 1e-3);
}
TEST(TileGpu, MatmulF16OnTensorCores) {
  CUTLET_REQUIRE_GPU();
  check_matmul<half>(false, 1e-3);
}
TEST(TileGpu, MatmulTf32OnTensorCores) {
  CUTLET_REQUIRE_GPU();
  check_matmul<float>(true, 3e-2);  // tf32 keeps 10 mantissa bits
}
TEST(TileGpu, MatmulExactF32) {
  CUTLET_REQUIRE_GPU();
  check_matmul<float>(false, 1e-4);
}

TEST(TileGpu, IfChoosesATileUniformly) {
  CUTLET_REQUIRE_GPU();
  auto k = tile_kernel([](Tensor<float, 1> y, Tensor<float, 1> x) {
    auto i = program_id(0) * 256 + arange(256);
    auto m = i < x.shape(0);
    auto v = load(x, {i}, m);
    auto r = if_((program_id(0) % 2) == 0, [&] { return v * 2.0f; }, [&] { return v - 1.0f; });
    store(y, {i}, r, m);
  }, {.name = "tile_if"});
  Stream st;
  const int n = 1000;
  auto h = random_vector<float>(n, 10, -1.0f, 1.0f);
  Buffer<float> x(st, h);
  auto y = poisoned<float>(st, n);
  k.launch(st, {.grid = static_cast<int>(ceil_div(n, 256))}, tensor(y, {n}), tensor(x, {n}));
  auto r = y.to_host(st);
  for (int i = 0; i < n; ++i) ASSERT_EQ(r[i], (i / 256) % 2 == 0 ? h[i] * 2.0f : h[i] - 1.0f) << i;
}

}  // namespace
