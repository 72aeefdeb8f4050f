// The math library on the GPU against the C++ standard library on random inputs (within
// the CUDA math library's documented error bounds), and the integer intrinsics exactly.
#include <bit>
#include <cmath>

#include "gpu_test_support.h"
#include "kernel_test_support.h"

using namespace cutlet;
using namespace cutlet::test;

namespace {

/// Relative-or-absolute closeness in units suited to `T`.
template <class T>
bool close(T got, T want, double ulps) {
  if (std::isnan(want)) return std::isnan(got);
  if (std::isinf(want)) return got == want;
  double eps = std::is_same_v<T, float> ? 1.2e-7 : 2.3e-16;
  return std::fabs(static_cast<double>(got) - want) <= ulps * eps * std::max(1.0, std::fabs(static_cast<double>(want)));
}

template <class T>
void check_unary_functions() {
  constexpr int nf = 20;
  auto k = kernel([=](Ptr<T> out, Ptr<T> x, Ptr<T> pos, i32 n) {
    i32 i = block_idx().x * block_dim().x + thread_idx().x;
    if_(i < n, [&] {
      Value<T> v = x[i], p = pos[i];
      Value<T> r[nf] = {sqrt(p), rsqrt(p), cbrt(v), exp(v), exp2(v), expm1(v), log(p), log2(p), log10(p), log1p(p),
                        sin(v), cos(v), tan(v), atan(v), sinh(v), tanh(v), erf(v), erfc(v), floor(v), round(v)};
      for (int f = 0; f < nf; ++f) out[i * nf + f] = r[f];
    });
  }, {.name = "unary_math"});
  Stream st;
  const int n = 4001;
  auto hx = random_vector<T>(n, 31, T(-4), T(4));
  auto hp = random_vector<T>(n, 32, T(1e-3), T(100));
  Buffer<T> x(st, hx), pos(st, hp);
  auto out = poisoned<T>(st, n * nf);
  k.launch(st, {.grid = ceil_div(n, 128), .block = 128}, out, x, pos, n);
  auto r = out.to_host(st);
  const char* names[nf] = {"sqrt", "rsqrt", "cbrt", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p",
                           "sin",  "cos",   "tan",  "atan", "sinh", "tanh", "erf", "erfc", "floor", "round"};
  for (int i = 0; i < n; ++i) {
    T v = hx[i], p = hp[i];
    T want[nf] = {std::sqrt(p), T(1) / std::sqrt(p), std::cbrt(v), std::exp(v), std::exp2(v), std::expm1(v),
                  std::log(p), std::log2(p), std::log10(p), std::log1p(p), std::sin(v), std::cos(v), std::tan(v),
                  std::atan(v), std::sinh(v), std::tanh(v), std::erf(v), std::erfc(v), std::floor(v), std::round(v)};
    for (int f = 0; f < nf; ++f)
      ASSERT_TRUE(close(r[i * nf + f], want[f], 8)) << names[f] << "(" << (f < 1 || (f >= 6 && f <= 9) || f == 1 ? p : v)
                                                    << ") = " << r[i * nf + f] << ", want " << want[f];
  }
}

TEST(MathGpu, UnaryFunctionsFloat) {
  CUTLET_REQUIRE_GPU();
  check_unary_functions<float>();
}

TEST(MathGpu, UnaryFunctionsDouble) {
  CUTLET_REQUIRE_GPU();
  check_unary_functions<double>();
}

TEST(MathGpu, BinaryTernaryAndClassification) {
  CUTLET_REQUIRE_GPU();
  auto k = kernel([](Ptr<float> out, Ptr<int> flags, Ptr<float> a, Ptr<float> b, i32 n) {
    i32 i = block_idx().x * block_dim().x + thread_idx().x;
    if_(i < n, [&] {
      f32 x = a[i], y = b[i];
      out[6 * i] = pow(fabs(x), y);
      out[6 * i + 1] = atan2(x, y);
      out[6 * i + 2] = fma(x, y, 0.5f);
      out[6 * i + 3] = fmin(x, y) + fmax(x, y);
      out[6 * i + 4] = copysign(y, x);
      out[6 * i + 5] = fmod(x, y);
      flags[i] = cast<int>(isnan(x / y)) + 2 * cast<int>(isinf(x / y)) + 4 * cast<int>(isfinite(x));
    });
  }, {.name = "binary_math"});
  Stream st;
  const int n = 2003;
  auto ha = random_vector<float>(n, 33, -10.0f, 10.0f), hb = random_vector<float>(n, 34, -3.0f, 3.0f);
  ha[0] = 0.0f, hb[0] = 0.0f;   // 0/0 = NaN
  ha[1] = 1.0f, hb[1] = 0.0f;   // 1/0 = inf
  Buffer<float> a(st, ha), b(st, hb);
  auto out = poisoned<float>(st, 6 * n);
  auto flags = poisoned<int>(st, n);
  k.launch(st, {.grid = ceil_div(n, 128), .block = 128}, out, flags, a, b, n);
  auto r = out.to_host(st);
  auto f = flags.to_host(st);
  for (int i = 0; i < n; ++i) {
    float x = ha[i], y = hb[i];
    EXPECT_TRUE(close(r[6 * i], std::pow(std::fabs(x), y), 8)) << i;
    EXPECT_TRUE(close(r[6 * i + 1], std::atan2(x, y), 8)) << i;
    EXPECT_TRUE(close(r[6 * i + 2], std::fma(x, y, 0.5f), 1)) << i;
    EXPECT_EQ(r[6 * i + 3], std::fmin(x, y) + std::fmax(x, y)) << i;
    EXPECT_EQ(r[6 * i + 4], std::copysign(y, x)) << i;
    if (y != 0) {
      EXPECT_EQ(r[6 * i + 5], std::fmod(x, y)) << i;
    }
    float q = x / y;
    EXPECT_EQ(f[i], (std::isnan(q) ? 1 : 0) + (std::isinf(q) ? 2 : 0) + (std::isfinite(x) ? 4 : 0)) << i;
  }
}

TEST(MathGpu, IntegerIntrinsics) {
  CUTLET_REQUIRE_GPU();
  auto k = kernel([](Ptr<std::uint32_t> out, Ptr<std::uint32_t> u, Ptr<std::int64_t> w, i32 n) {
    i32 i = block_idx().x * block_dim().x + thread_idx().x;
    if_(i < n, [&] {
      u32 x = u[i];
      i32 s = cast<std::int32_t>(x);
      out[8 * i] = cast<std::uint32_t>(popc(x));
      out[8 * i + 1] = cast<std::uint32_t>(clz(x));
      out[8 * i + 2] = cast<std::uint32_t>(ffs(s));
      out[8 * i + 3] = brev(x);
      out[8 * i + 4] = mulhi(x, 0x9e3779b9u);
      out[8 * i + 5] = funnel_shift_left(x, x ^ 0xffffu, 7u);
      out[8 * i + 6] = cast<std::uint32_t>(abs(s));
      out[8 * i + 7] = cast<std::uint32_t>(popc(w[i]) + clz(w[i]));
    });
  }, {.name = "int_math"});
  Stream st;
  const int n = 3333;
  auto hu = random_vector<std::uint32_t>(n, 35, 0, 0xffffffffu);
  auto hw = random_vector<std::int64_t>(n, 36, 1, std::numeric_limits<std::int64_t>::max());
  hu[0] = 0;
  Buffer<std::uint32_t> u(st, hu);
  Buffer<std::int64_t> w(st, hw);
  auto out = poisoned<std::uint32_t>(st, 8 * n);
  k.launch(st, {.grid = ceil_div(n, 128), .block = 128}, out, u, w, n);
  auto r = out.to_host(st);
  for (int i = 0; i < n; ++i) {
    std::uint32_t x = hu[i];
    std::int32_t s = static_cast<std::int32_t>(x);
    std::uint32_t rev = 0;
    for (int b = 0; b < 32; ++b) rev |= ((x >> b) & 1u) << (31 - b);
    std::uint64_t hi = (static_cast<std::uint64_t>(x ^ 0xffffu) << 32) | x;
    ASSERT_EQ(r[8 * i], static_cast<std::uint32_t>(std::popcount(x))) << i;
    ASSERT_EQ(r[8 * i + 1], static_cast<std::uint32_t>(std::countl_zero(x))) << i;
    ASSERT_EQ(r[8 * i + 2], x == 0 ? 0u : static_cast<std::uint32_t>(std::countr_zero(x) + 1)) << i;
    ASSERT_EQ(r[8 * i + 3], rev) << i;
    ASSERT_EQ(r[8 * i + 4], static_cast<std::uint32_t>((static_cast<std::uint64_t>(x) * 0x9e3779b9u) >> 32)) << i;
    ASSERT_EQ(r[8 * i + 5], static_cast<std::uint32_t>((hi << 7) >> 32)) << i;
    ASSERT_EQ(r[8 * i + 6], static_cast<std::uint32_t>(s == std::numeric_limits<int>::min() ? s : std::abs(s))) << i;
    auto uw = static_cast<std::uint64_t>(hw[i]);
    ASSERT_EQ(r[8 * i + 7], static_cast<std::uint32_t>(std::popcount(uw) + std::countl_zero(uw))) << i;
  }
}

}  // namespace
