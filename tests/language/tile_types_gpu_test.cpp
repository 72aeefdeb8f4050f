// Tile kernels over every element type and over 3-D tiles, against CPU references: masked
// loads with a padding value, elementwise arithmetic, reductions along each axis, scans, and
// masked stores of tiles larger than the tensors.
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "gpu_test_support.h"
#include "kernel_test_support.h"

using namespace cutlet;
using namespace cutlet::test;

namespace {

template <class T>
T host(double v) {
  if constexpr (std::is_integral_v<T>) return static_cast<T>(v);
  else return T(static_cast<float>(v));
}

/// A traced constant of T for a load's padding (integers from a whole number).
template <class T>
Value<T> padding(double v) {
  if constexpr (std::is_integral_v<T>) return Value<T>(static_cast<std::int64_t>(v));
  else return Value<T>(v);
}

/// Random inputs of T: integers in [-20, 20] ([0, 40] unsigned), floats in [-1, 1].
template <class T>
std::vector<T> random_of(std::size_t n, std::uint64_t seed) {
  std::vector<T> out;
  if constexpr (std::is_integral_v<T>) {
    for (std::int64_t v : random_vector<std::int64_t>(n, seed, -20, 20)) out.push_back(static_cast<T>(std::is_signed_v<T> ? v : v + 20));
  } else {
    for (double v : random_vector<double>(n, seed, -1.0, 1.0)) out.push_back(host<T>(v));
  }
  return out;
}

/// How far a result of T computed in T may be from the exact one of magnitude `m`.
template <class T>
double tolerance(double m) {
  if constexpr (std::is_integral_v<T>) return 0;
  else if constexpr (std::is_same_v<T, double>) return 1e-12 * (1 + m);
  else if constexpr (std::is_same_v<T, float>) return 1e-5 * (1 + m);
  else if constexpr (std::is_same_v<T, half>) return 4e-3 * (1 + m);
  else return 3e-2 * (1 + m);  // bfloat16: 8 significant bits
}

template <class T>
class TileTypes : public ::testing::Test {};
using ElementTypes = ::testing::Types<std::int8_t, std::uint8_t, std::int16_t, std::uint16_t, std::int32_t, std::uint32_t,
                                      std::int64_t, std::uint64_t, half, bfloat16, float, double>;
TYPED_TEST_SUITE(TileTypes, ElementTypes);

// An 8 x 64 tile over a 5 x 50 tensor: y = x * 3 + 1, the row maxima and minima (masked-off
// columns padded so they never win) and the column sums.
TYPED_TEST(TileTypes, LoadComputeReduceStore) {
  CUTLET_REQUIRE_GPU();
  using T = TypeParam;
  constexpr int R = 8, C = 64;
  const double lo_pad = std::is_unsigned_v<T> ? 0 : -100, hi_pad = 100;
  auto k = tile_kernel([=](Tensor<T, 2> y, Tensor<T, 1> rmax, Tensor<T, 1> rmin, Tensor<T, 1> csum, Tensor<T, 2> x) {
    auto r = expand_dims(arange(R), 1), c = expand_dims(arange(C), 0);
    auto m = (r < x.shape(0)) & (c < x.shape(1));
    auto lo = load(x, {r, c}, m, padding<T>(lo_pad));
    auto hi = load(x, {r, c}, m, padding<T>(hi_pad));
    auto t = load(x, {r, c}, m);
    store(y, {r, c}, t * 3 + 1, m);
    auto rows = arange(R), cols = arange(C);
    store(rmax, {rows}, max(lo, 1), rows < x.shape(0));
    store(rmin, {rows}, min(hi, 1), rows < x.shape(0));
    store(csum, {cols}, sum(t, 0), cols < x.shape(1));
  }, {.name = "tile_types"}, 2);
  Stream st;
  const int rows = 5, cols = 50;
  auto h = random_of<T>(rows * cols, 31);
  Buffer<T> x(st, h);
  auto y = poisoned<T>(st, rows * cols);
  auto rmax = poisoned<T>(st, rows), rmin = poisoned<T>(st, rows), csum = poisoned<T>(st, cols);
  k.launch(st, {.grid = 1}, tensor(y, {rows, cols}), tensor(rmax, {rows}), tensor(rmin, {rows}), tensor(csum, {cols}),
           tensor(x, {rows, cols}));
  auto hy = y.to_host(st), hmax = rmax.to_host(st), hmin = rmin.to_host(st), hsum = csum.to_host(st);
  auto d = [](T v) { return static_cast<double>(v); };
  for (int i = 0; i < rows; ++i) {
    double want_max = -1e300, want_min = 1e300;
    for (int j = 0; j < cols; ++j) {
      const double v = d(h[i * cols + j]);
      want_max = std::max(want_max, v);
      want_min = std::min(want_min, v);
      const double want = std::is_integral_v<T> ? d(static_cast<T>(static_cast<std::int64_t>(v) * 3 + 1)) : v * 3 + 1;
      ASSERT_NEAR(d(hy[i * cols + j]), want, tolerance<T>(std::fabs(want))) << i << "," << j;
    }
    EXPECT_EQ(d(hmax[i]), want_max) << i;
    EXPECT_EQ(d(hmin[i]), want_min) << i;
  }
  for (int j = 0; j < cols; ++j) {
    double want = 0;
    for (int i = 0; i < rows; ++i) want += d(h[i * cols + j]);
    ASSERT_NEAR(d(hsum[j]), want, tolerance<T>(5.0)) << j;
  }
}

/// How far a running sum of `n` terms computed in T may be from the exact one.
template <class T>
double scan_tolerance(int n) {
  if constexpr (std::is_integral_v<T>) return 0;
  else if constexpr (std::is_same_v<T, double>) return 1e-12 * n;
  else if constexpr (std::is_same_v<T, float>) return 1e-6 * n;
  else if constexpr (std::is_same_v<T, half>) return 3e-3 * n;
  else return 1.6e-2 * n;  // bfloat16
}

// Running sums along the rows (integers wrap as in C++: modulo 2^bits) and the first index of
// each row's maximum (integer rows have many ties).
TYPED_TEST(TileTypes, ScanAndArgmaxAlongRows) {
  CUTLET_REQUIRE_GPU();
  using T = TypeParam;
  constexpr int R = 8, C = 64;
  auto k = tile_kernel([=](Tensor<T, 2> run, Tensor<std::int32_t, 1> best, Tensor<T, 2> x) {
    auto r = expand_dims(arange(R), 1), c = expand_dims(arange(C), 0);
    auto m = (r < x.shape(0)) & (c < x.shape(1));
    auto t = load(x, {r, c}, m);
    store(run, {r, c}, cumsum(t, 1), m);
    auto rows = arange(R);
    auto lowest = std::is_unsigned_v<T> ? 0.0 : -100.0;
    store(best, {rows}, argmax(load(x, {r, c}, m, padding<T>(lowest)), 1), rows < x.shape(0));
  }, {.name = "tile_types_scan"}, 2);
  Stream st;
  const int rows = 5, cols = 50;
  auto h = random_of<T>(rows * cols, 37);
  Buffer<T> x(st, h);
  auto run = poisoned<T>(st, rows * cols);
  auto best = poisoned<std::int32_t>(st, rows);
  k.launch(st, {.grid = 1}, tensor(run, {rows, cols}), tensor(best, {rows}), tensor(x, {rows, cols}));
  auto hr = run.to_host(st);
  auto hb = best.to_host(st);
  auto d = [](T v) { return static_cast<double>(v); };
  for (int i = 0; i < rows; ++i) {
    double exact = 0;
    T wrapped = T(0);
    int arg = 0;
    for (int j = 0; j < cols; ++j) {
      const T v = h[i * cols + j];
      exact += d(v);
      if constexpr (std::is_integral_v<T>) {
        wrapped = static_cast<T>(static_cast<std::uint64_t>(wrapped) + static_cast<std::uint64_t>(v));
        ASSERT_EQ(hr[i * cols + j], wrapped) << i << "," << j;
      } else {
        ASSERT_NEAR(d(hr[i * cols + j]), exact, scan_tolerance<T>(j + 1)) << i << "," << j;
      }
      if (d(v) > d(h[i * cols + arg])) arg = j;
    }
    EXPECT_EQ(hb[i], arg) << i;
  }
}

// A 4 x 8 x 32 tile over a 3 x 7 x 30 tensor plus a broadcast bias: a running sum along the
// last axis, a sum along the middle one and a maximum along the last one.
TEST(TileGpu3d, ReduceScanAndBroadcastAlongEachAxis) {
  CUTLET_REQUIRE_GPU();
  constexpr int A = 4, B = 8, C = 32;
  auto k = tile_kernel([](Tensor<float, 3> cs, Tensor<float, 2> s1, Tensor<float, 2> m2, Tensor<float, 3> x,
                          Tensor<float, 1> bias) {
    auto i = expand_dims(expand_dims(arange(A), 1), 2);
    auto j = expand_dims(expand_dims(arange(B), 0), 2);
    auto l = expand_dims(expand_dims(arange(C), 0), 0);
    auto m = (i < x.shape(0)) & (j < x.shape(1)) & (l < x.shape(2));
    auto cb = arange(C);
    auto bb = expand_dims(expand_dims(load(bias, {cb}, cb < bias.shape(0)), 0), 0);
    auto t = load(x, {i, j, l}, m) + bb;
    store(cs, {i, j, l}, cumsum(t, 2), m);
    auto i2 = expand_dims(arange(A), 1), l2 = expand_dims(arange(C), 0), j2 = expand_dims(arange(B), 0);
    store(s1, {i2, l2}, sum(where(m, t, 0.0f), 1), (i2 < x.shape(0)) & (l2 < x.shape(2)));
    store(m2, {i2, j2}, max(where(m, t, -INFINITY), 2), (i2 < x.shape(0)) & (j2 < x.shape(1)));
  }, {.name = "tile_3d"});
  Stream st;
  const int a = 3, b = 7, c = 30;
  auto hx = random_vector<float>(a * b * c, 41, -1.0f, 1.0f);
  auto hb = random_vector<float>(c, 42, -1.0f, 1.0f);
  Buffer<float> x(st, hx), bias(st, hb);
  auto cs = poisoned<float>(st, a * b * c), s1 = poisoned<float>(st, a * c), m2 = poisoned<float>(st, a * b);
  k.launch(st, {.grid = 1}, tensor(cs, {a, b, c}), tensor(s1, {a, c}), tensor(m2, {a, b}), tensor(x, {a, b, c}),
           tensor(bias, {c}));
  auto hcs = cs.to_host(st), hs1 = s1.to_host(st), hm2 = m2.to_host(st);
  auto t = [&](int p, int q, int r) { return double(hx[(p * b + q) * c + r]) + hb[r]; };
  for (int p = 0; p < a; ++p)
    for (int q = 0; q < b; ++q) {
      double run = 0, hi = -1e300;
      for (int r = 0; r < c; ++r) {
        run += t(p, q, r);
        hi = std::max(hi, t(p, q, r));
        ASSERT_NEAR(hcs[(p * b + q) * c + r], run, 1e-4) << p << "," << q << "," << r;
      }
      ASSERT_NEAR(hm2[p * b + q], hi, 1e-6) << p << "," << q;
    }
  for (int p = 0; p < a; ++p)
    for (int r = 0; r < c; ++r) {
      double want = 0;
      for (int q = 0; q < b; ++q) want += t(p, q, r);
      ASSERT_NEAR(hs1[p * c + r], want, 1e-4) << p << "," << r;
    }
}

}  // namespace
