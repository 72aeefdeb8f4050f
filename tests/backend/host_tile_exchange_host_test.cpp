// Tile kernels traced for the host run in phases, the ops that move elements between threads
// (reductions and scans across threads, argmax's combine region, transposes, reshapes, dots
// with a transposed operand, several exchanges in a row and in a loop) as phases of their own.
// Against C++ references on random data with ragged edges, outputs poisoned first, on 1 and
// 4 warps.
#include <gtest/gtest.h>

#include <cutlet/backend/host_kernel.h>
#include <cutlet/cutlet.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

using namespace cutlet;

namespace {

constexpr float kPoison = -7777.0f;
constexpr int kRows = 37, kCols = 50;  // in tiles of 64 x 64

std::vector<float> random_floats(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

template <class T>
auto tensor_of(std::vector<T>& v, std::int64_t rows, std::int64_t cols) {
  TensorArg<T, 2> t;
  t.data = reinterpret_cast<std::uint64_t>(v.data());
  t.shape[0] = rows;
  t.shape[1] = cols;
  t.strides[0] = cols;
  t.strides[1] = 1;
  return t.generic();
}

KernelOptions host_options(const char* name) { return {.name = name, .target = Target::host_cpu()}; }

/// out[0, r] = sum of row r, out[1, c] = max of column c, out[2, r] = argmax of row r (as
/// float), each a 64-wide row of a 3 x 64 output.
auto reductions(int warps) {
  return tile_kernel(
      [](Tensor<float, 2> out, Tensor<float, 2> in) {
        auto r = arange(64);
        auto rr = expand_dims(r, 1), cc = expand_dims(r, 0);
        auto m = (rr < in.shape(0)) & (cc < in.shape(1));
        auto x = load(in, {rr, cc}, m, Value<float>(-INFINITY));
        auto z = zeros<std::int32_t>({64});
        store(out, {z, r}, sum(where(m, x, 0.0f), 1), r < in.shape(0));
        store(out, {z + 1, r}, max(x, 0), r < in.shape(1));
        store(out, {z + 2, r}, cast<float>(argmax(x, 1)), r < in.shape(0));
      },
      host_options("exchange_reductions"), warps);
}

TEST(HostTileExchange, ReductionsAcrossThreadsRunInPhases) {
  for (const int warps : {1, 4}) {
    const HostKernel k = HostKernel::compile(reductions(warps).trace_ir<Tensor<float, 2>, Tensor<float, 2>>());
    EXPECT_TRUE(k.runs_in_phases());
    std::vector<float> in = random_floats(std::size_t(kRows) * kCols, 1), out(3 * 64, kPoison);
    auto to = tensor_of(out, 3, 64), ti = tensor_of(in, kRows, kCols);
    void* args[] = {&to, &ti};
    k.run({1}, {static_cast<std::uint32_t>(32 * warps)}, args);
    for (int r = 0; r < kRows; ++r) {
      double s = 0;
      int best = 0;
      for (int c = 0; c < kCols; ++c) {
        s += in[r * kCols + c];
        if (in[r * kCols + c] > in[r * kCols + best]) best = c;
      }
      EXPECT_NEAR(out[r], s, 1e-4) << "row sum " << r << " on " << warps << " warps";
      EXPECT_EQ(out[2 * 64 + r], best) << "argmax of row " << r << " on " << warps << " warps";
    }
    for (int c = 0; c < kCols; ++c) {
      float m = -INFINITY;
      for (int r = 0; r < kRows; ++r) m = std::max(m, in[r * kCols + c]);
      EXPECT_EQ(out[64 + c], m) << "column max " << c << " on " << warps << " warps";
    }
    EXPECT_EQ(out[kRows], kPoison) << "a row past the input was stored";
  }
}

/// out = cumsum(cumsum(x, 0), 1) of the transposed input tile, then reshaped 64x64 -> 4096 ->
/// 64x64 (which moves nothing but goes through the exchange): out[c, r] = the inclusive 2-D
/// prefix sum of in up to (r, c).
auto scans_and_moves(int warps) {
  return tile_kernel(
      [](Tensor<float, 2> out, Tensor<float, 2> in) {
        auto rr = expand_dims(arange(64), 1), cc = expand_dims(arange(64), 0);
        auto x = load(in, {rr, cc}, (rr < in.shape(0)) & (cc < in.shape(1)), Value<float>(0.0f));
        auto p = cumsum(cumsum(x, 0), 1);
        auto t = reshape(reshape(transpose(p), {4096}), {64, 64});
        store(out, {rr, cc}, t, (rr < in.shape(1)) & (cc < in.shape(0)));
      },
      host_options("exchange_scans_and_moves"), warps);
}

TEST(HostTileExchange, ScansTransposesAndReshapesRunInPhases) {
  for (const int warps : {1, 4}) {
    const HostKernel k = HostKernel::compile(scans_and_moves(warps).trace_ir<Tensor<float, 2>, Tensor<float, 2>>());
    EXPECT_TRUE(k.runs_in_phases());
    std::vector<float> in = random_floats(std::size_t(kRows) * kCols, 2), out(std::size_t(kCols) * kRows, kPoison);
    auto to = tensor_of(out, kCols, kRows), ti = tensor_of(in, kRows, kCols);
    void* args[] = {&to, &ti};
    k.run({1}, {static_cast<std::uint32_t>(32 * warps)}, args);
    std::vector<double> prefix(std::size_t(kRows) * kCols);
    for (int r = 0; r < kRows; ++r)
      for (int c = 0; c < kCols; ++c)
        prefix[r * kCols + c] = in[r * kCols + c] + (r ? prefix[(r - 1) * kCols + c] : 0) + (c ? prefix[r * kCols + c - 1] : 0) -
                                (r && c ? prefix[(r - 1) * kCols + c - 1] : 0);
    for (int r = 0; r < kRows; ++r)
      for (int c = 0; c < kCols; ++c)
        ASSERT_NEAR(out[c * kRows + r], prefix[r * kCols + c], 1e-3) << r << ", " << c << " on " << warps << " warps";
  }
}

/// c = a (M x K) times b^T (b given N x K), accumulated over K in steps of 16 in a loop, with
/// a row softmax of the product after it: dots and reductions in a loop and after it.
auto dot_then_softmax(int warps) {
  return tile_kernel(
      [](Tensor<float, 2> c, Tensor<float, 2> a, Tensor<float, 2> b) {
        auto rm = arange(32), rn = arange(32), rk = arange(16);
        auto M = a.shape(0), N = b.shape(0), K = a.shape(1);
        auto acc = for_range(0, K, 16, zeros<float>({32, 32}), [&](i32 k0, Tile<float> acc) {
          auto ka = k0 + rk;
          auto ta = load(a, {expand_dims(rm, 1), expand_dims(ka, 0)}, (expand_dims(rm, 1) < M) & (expand_dims(ka, 0) < K));
          auto tb = load(b, {expand_dims(rn, 1), expand_dims(ka, 0)}, (expand_dims(rn, 1) < N) & (expand_dims(ka, 0) < K));
          return dot(ta, transpose(tb), acc);
        });
        auto cols = expand_dims(rn, 0) < N;
        auto logits = where(cols & (expand_dims(rm, 1) >= 0), acc, -INFINITY);
        auto e = exp(logits - expand_dims(max(logits, 1), 1));
        auto p = e / expand_dims(sum(e, 1), 1);
        store(c, {expand_dims(rm, 1), expand_dims(rn, 0)}, p, (expand_dims(rm, 1) < M) & cols);
      },
      host_options("exchange_dot_then_softmax"), warps);
}

TEST(HostTileExchange, DotsInALoopThenASoftmaxRunInPhases) {
  const int M = 29, N = 27, K = 40;
  for (const int warps : {1, 4}) {
    const HostKernel k =
        HostKernel::compile(dot_then_softmax(warps).trace_ir<Tensor<float, 2>, Tensor<float, 2>, Tensor<float, 2>>());
    EXPECT_TRUE(k.runs_in_phases());
    std::vector<float> a = random_floats(std::size_t(M) * K, 3), b = random_floats(std::size_t(N) * K, 4);
    std::vector<float> c(std::size_t(M) * N, kPoison);
    auto tc = tensor_of(c, M, N), ta = tensor_of(a, M, K), tb = tensor_of(b, N, K);
    void* args[] = {&tc, &ta, &tb};
    k.run({1}, {static_cast<std::uint32_t>(32 * warps)}, args);
    for (int i = 0; i < M; ++i) {
      std::vector<double> row(N);
      double most = -INFINITY, total = 0;
      for (int j = 0; j < N; ++j) {
        for (int kk = 0; kk < K; ++kk) row[j] += double(a[i * K + kk]) * b[j * K + kk];
        most = std::max(most, row[j]);
      }
      for (double& x : row) total += (x = std::exp(x - most));
      for (int j = 0; j < N; ++j) ASSERT_NEAR(c[i * N + j], row[j] / total, 1e-5) << i << ", " << j << " on " << warps << " warps";
    }
  }
}

/// Rows of 256: an even row's prefix sums, an odd row's maximum broadcast to every element;
/// the exchanges inside an if whose condition is the block's.
auto exchanges_in_branches(int warps) {
  return tile_kernel(
      [](Tensor<float, 2> out, Tensor<float, 2> in) {
        auto row = program_id(0);
        auto c = arange(256);
        auto m = c < in.shape(1);
        auto x = load(in, {row, c}, m, Value<float>(0.0f));
        auto y = if_((row % 2) == 0, [&] { return cumsum(x, 0); },
                     [&] { return zeros<float>({256}) + max(where(m, x, -INFINITY), 0); });
        store(out, {row, c}, y, m);
      },
      host_options("exchange_in_branches"), warps);
}

TEST(HostTileExchange, ExchangesInsideBranchesRunInPhases) {
  const int rows = 7, cols = 201;
  for (const int warps : {1, 4}) {
    const HostKernel k = HostKernel::compile(exchanges_in_branches(warps).trace_ir<Tensor<float, 2>, Tensor<float, 2>>());
    EXPECT_TRUE(k.runs_in_phases());
    std::vector<float> in = random_floats(std::size_t(rows) * cols, 5), out(in.size(), kPoison);
    auto to = tensor_of(out, rows, cols), ti = tensor_of(in, rows, cols);
    void* args[] = {&to, &ti};
    k.run({rows}, {static_cast<std::uint32_t>(32 * warps)}, args);
    for (int r = 0; r < rows; ++r) {
      double s = 0;
      float m = -INFINITY;
      for (int c = 0; c < cols; ++c) m = std::max(m, in[r * cols + c]);
      for (int c = 0; c < cols; ++c) {
        s += in[r * cols + c];
        if (r % 2 == 0) ASSERT_NEAR(out[r * cols + c], s, 1e-4) << r << ", " << c << " on " << warps << " warps";
        else ASSERT_EQ(out[r * cols + c], m) << r << ", " << c << " on " << warps << " warps";
      }
    }
  }
}

}  // namespace
