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
