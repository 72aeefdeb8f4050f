// Every math function of ir/math.def on tiles, on the GPU: the float ones on random f32 inputs
// from each function's domain against the C++ standard library in double, within a few ulps
// (erf, erfc, lgamma, tgamma and pow within the larger bounds libdevice documents), with
// scalar operands broadcast; the classifications on special values; the integer functions
// exactly. Tiles of 256 over 5003 elements, so the last program's tile is masked.
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "gpu_test_support.h"
#include "kernel_test_support.h"

using namespace cutlet;
using namespace cutlet::test;

namespace {

constexpr int kBlock = 256;
constexpr int kN = 5003;

// The input rows of the float kernel: each function reads the rows of its domain.
enum Input { kAny, kPos, kUnit, kAtLeast1, kGamma, kOther, kSpecial, kInputs };

// The float kernel's result rows.
enum Result {
  kSqrt, kRsqrt, kCbrt, kExp, kExp2, kExpm1, kLog, kLog2, kLog10, kLog1p, kPow,
  kSin, kCos, kTan, kAsin, kAcos, kAtan, kAtan2, kSinh, kCosh, kTanh, kAsinh, kAcosh, kAtanh,
  kErf, kErfc, kLgamma, kTgamma,
  kFma, kFmin, kFmax, kFabs, kFloor, kCeil, kTrunc, kRound, kRint, kCopysign, kFmod, kAbs,
  // Scalar operands broadcast against the tile, on either side.
  kPowScalar, kAtan2Scalar, kFminScalar, kFmaScalars, kCopysignScalar,
  kResults
};

// The classification rows (of the special values).
enum Flag { kIsnan, kIsinf, kIsfinite, kFlags };

struct Case {
  const char* name = nullptr;
  double ulps = 0;   ///< the error allowed, in f32 ulps of the exact result; 0: exactly the result
  double floor = 0;  ///< results smaller than this are held to ulps of `floor` (near a function's zeros)
  double (*want)(const double* x) = nullptr;  ///< the exact result for one element's inputs
};

/// The float cases, by result row. The bounds are twice libdevice's documented maximum ulp
/// errors for single precision, at least 1 (CUDA Math API, "Single Precision Mathematical
/// Functions"); exact functions are compared exactly.
std::vector<Case> float_cases() {
  std::vector<Case> c(kResults);
  c[kSqrt] = {"sqrt(p)", 1, 0, [](const double* x) { return std::sqrt(x[kPos]); }};
  c[kRsqrt] = {"rsqrt(p)", 4, 0, [](const double* x) { return 1 / std::sqrt(x[kPos]); }};
  c[kCbrt] = {"cbrt(v)", 2, 0, [](const double* x) { return std::cbrt(x[kAny]); }};
  c[kExp] = {"exp(v)", 4, 0, [](const double* x) { return std::exp(x[kAny]); }};
  c[kExp2] = {"exp2(v)", 4, 0, [](const double* x) { return std::exp2(x[kAny]); }};
  c[kExpm1] = {"expm1(v)", 2, 0, [](const double* x) { return std::expm1(x[kAny]); }};
  c[kLog] = {"log(p)", 2, 0, [](const double* x) { return std::log(x[kPos]); }};
  c[kLog2] = {"log2(p)", 2, 0, [](const double* x) { return std::log2(x[kPos]); }};
  c[kLog10] = {"log10(p)", 4, 0, [](const double* x) { return std::log10(x[kPos]); }};
  c[kLog1p] = {"log1p(p)", 2, 0, [](const double* x) { return std::log1p(x[kPos]); }};
  c[kPow] = {"pow(p, y)", 8, 0, [](const double* x) { return std::pow(x[kPos], x[kOther]); }};
  c[kSin] = {"sin(v)", 4, 0, [](const double* x) { return std::sin(x[kAny]); }};
  c[kCos] = {"cos(v)", 4, 0, [](const double* x) { return std::cos(x[kAny]); }};
  c[kTan] = {"tan(v)", 8, 0, [](const double* x) { return std::tan(x[kAny]); }};
  c[kAsin] = {"asin(u)", 8, 0, [](const double* x) { return std::asin(x[kUnit]); }};
  c[kAcos] = {"acos(u)", 8, 0, [](const double* x) { return std::acos(x[kUnit]); }};
  c[kAtan] = {"atan(v)", 4, 0, [](const double* x) { return std::atan(x[kAny]); }};
  c[kAtan2] = {"atan2(v, y)", 6, 0, [](const double* x) { return std::atan2(x[kAny], x[kOther]); }};
  c[kSinh] = {"sinh(v)", 6, 0, [](const double* x) { return std::sinh(x[kAny]); }};
  c[kCosh] = {"cosh(v)", 4, 0, [](const double* x) { return std::cosh(x[kAny]); }};
  c[kTanh] = {"tanh(v)", 4, 0, [](const double* x) { return std::tanh(x[kAny]); }};
  c[kAsinh] = {"asinh(v)", 6, 0, [](const double* x) { return std::asinh(x[kAny]); }};
  c[kAcosh] = {"acosh(g)", 8, 0, [](const double* x) { return std::acosh(x[kAtLeast1]); }};
  c[kAtanh] = {"atanh(u)", 6, 0, [](const double* x) { return std::atanh(x[kUnit]); }};
  c[kErf] = {"erf(v)", 4, 0, [](const double* x) { return std::erf(x[kAny]); }};
  c[kErfc] = {"erfc(v)", 8, 0, [](const double* x) { return std::erfc(x[kAny]); }};
  // lgamma has zeros at 1 and 2, inside the domain: there its error is held to ulps of 1/64.
  c[kLgamma] = {"lgamma(s)", 12, 1.0 / 64, [](const double* x) { return std::lgamma(x[kGamma]); }};
  c[kTgamma] = {"tgamma(s)", 12, 0, [](const double* x) { return std::tgamma(x[kGamma]); }};
  c[kFma] = {"fma(v, y, p)", 0, 0, [](const double* x) {
               return static_cast<double>(std::fma(static_cast<float>(x[kAny]), static_cast<float>(x[kOther]),
                                                   static_cast<float>(x[kPos])));
             }};
  c[kFmin] = {"fmin(v, y)", 0, 0, [](const double* x) { return std::fmin(x[kAny], x[kOther]); }};
  c[kFmax] = {"fmax(v, y)", 0, 0, [](const double* x) { return std::fmax(x[kAny], x[kOther]); }};
  c[kFabs] = {"fabs(v)", 0, 0, [](const double* x) { return std::fabs(x[kAny]); }};
  c[kFloor] = {"floor(v)", 0, 0, [](const double* x) { return std::floor(x[kAny]); }};
  c[kCeil] = {"ceil(v)", 0, 0, [](const double* x) { return std::ceil(x[kAny]); }};
  c[kTrunc] = {"trunc(v)", 0, 0, [](const double* x) { return std::trunc(x[kAny]); }};
  c[kRound] = {"round(v)", 0, 0, [](const double* x) { return std::round(x[kAny]); }};
  c[kRint] = {"rint(v)", 0, 0, [](const double* x) { return std::rint(x[kAny]); }};
  c[kCopysign] = {"copysign(v, y)", 0, 0, [](const double* x) { return std::copysign(x[kAny], x[kOther]); }};
  c[kFmod] = {"fmod(v, y)", 0, 0, [](const double* x) { return std::fmod(x[kAny], x[kOther]); }};
  c[kAbs] = {"abs(v)", 0, 0, [](const double* x) { return std::fabs(x[kAny]); }};
  c[kPowScalar] = {"pow(p, 2.0f)", 8, 0, [](const double* x) { return x[kPos] * x[kPos]; }};
  c[kAtan2Scalar] = {"atan2(1.0f, v)", 6, 0, [](const double* x) { return std::atan2(1.0, x[kAny]); }};
  c[kFminScalar] = {"fmin(v, f32(0.5f))", 0, 0, [](const double* x) { return std::fmin(x[kAny], 0.5); }};
  c[kFmaScalars] = {"fma(2.0f, v, y)", 0, 0, [](const double* x) {
                      return static_cast<double>(std::fma(2.0f, static_cast<float>(x[kAny]), static_cast<float>(x[kOther])));
                    }};
  c[kCopysignScalar] = {"copysign(3, y)", 0, 0, [](const double* x) { return std::copysign(3.0, x[kOther]); }};
  return c;
}

/// The f32 ulp at magnitude |w| (the spacing of floats there; the smallest subnormal at 0).
double f32_ulp(double w) {
  w = std::fabs(w);
  if (w < std::numeric_limits<float>::min()) return std::ldexp(1.0, -149);
  return std::ldexp(1.0, std::ilogb(w) - 23);
}

/// Whether `got` is within the case's bound of the exact `want`.
bool close(float got, double want, const Case& c) {
  if (std::isnan(want)) return std::isnan(got);
  if (std::isinf(want)) return static_cast<double>(got) == want;
  if (c.ulps == 0) return static_cast<double>(got) == want;
  return std::fabs(static_cast<double>(got) - want) <= c.ulps * f32_ulp(std::max(std::fabs(want), c.floor));
}

/// Every float function on rows of `in` (one row per domain), into one row of `out` each; the
/// classifications of the special row into `flags`.
auto float_math_kernel() {
  return tile_kernel([](Tensor<float, 2> out, Tensor<std::int32_t, 2> flags, Tensor<float, 2> in) {
    auto i = program_id(0) * kBlock + arange(kBlock);
    auto m = i < in.shape(1);
    auto row = [&](int r) { return load(in, {r, i}, m); };
    auto v = row(kAny), p = row(kPos), u = row(kUnit), g = row(kAtLeast1), s = row(kGamma), y = row(kOther);
    auto put = [&](int r, const Tile<float>& t) { store(out, {r, i}, t, m); };
    put(kSqrt, sqrt(p));
    put(kRsqrt, rsqrt(p));
    put(kCbrt, cbrt(v));
    put(kExp, exp(v));
    put(kExp2, exp2(v));
    put(kExpm1, expm1(v));
    put(kLog, log(p));
    put(kLog2, log2(p));
    put(kLog10, log10(p));
    put(kLog1p, log1p(p));
    put(kPow, pow(p, y));
    put(kSin, sin(v));
    put(kCos, cos(v));
    put(kTan, tan(v));
    put(kAsin, asin(u));
    put(kAcos, acos(u));
    put(kAtan, atan(v));
    put(kAtan2, atan2(v, y));
    put(kSinh, sinh(v));
    put(kCosh, cosh(v));
    put(kTanh, tanh(v));
    put(kAsinh, asinh(v));
    put(kAcosh, acosh(g));
    put(kAtanh, atanh(u));
    put(kErf, erf(v));
    put(kErfc, erfc(v));
    put(kLgamma, lgamma(s));
    put(kTgamma, tgamma(s));
    put(kFma, fma(v, y, p));
    put(kFmin, fmin(v, y));
    put(kFmax, fmax(v, y));
    put(kFabs, fabs(v));
    put(kFloor, floor(v));
    put(kCeil, ceil(v));
    put(kTrunc, trunc(v));
    put(kRound, round(v));
    put(kRint, rint(v));
    put(kCopysign, copysign(v, y));
    put(kFmod, fmod(v, y));
    put(kAbs, abs(v));
    put(kPowScalar, pow(p, 2.0f));
    put(kAtan2Scalar, atan2(1.0f, v));
    put(kFminScalar, fmin(v, f32(0.5f)));
    put(kFmaScalars, fma(2.0f, v, y));
    put(kCopysignScalar, copysign(3, y));
    auto c = row(kSpecial);
    auto flag = [&](int r, const Tile<bool>& t) { store(flags, {r, i}, cast<std::int32_t>(t), m); };
    flag(kIsnan, isnan(c));
    flag(kIsinf, isinf(c));
    flag(kIsfinite, isfinite(c));
  }, {.name = "tile_math_float"});
}

TEST(TileMathGpu, EveryFloatFunctionOnRandomInputs) {
  CUTLET_REQUIRE_GPU();
  auto k = float_math_kernel();

  // Inputs: each row random over its function's domain.
  std::vector<float> h(std::size_t(kInputs) * kN);
  auto fill = [&](Input r, float lo, float hi, std::uint64_t seed) {
    auto v = random_vector<float>(kN, seed, lo, hi);
    std::copy(v.begin(), v.end(), h.begin() + std::size_t(r) * kN);
  };
  fill(kAny, -4.0f, 4.0f, 41);
  fill(kPos, 1e-3f, 100.0f, 42);
  fill(kUnit, -0.99f, 0.99f, 43);
  fill(kAtLeast1, 1.0f, 50.0f, 44);
  fill(kGamma, 0.1f, 8.0f, 45);
  fill(kOther, -3.0f, 3.0f, 46);
  fill(kSpecial, -10.0f, 10.0f, 47);
  const float specials[] = {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(),
                            -std::numeric_limits<float>::infinity(), 0.0f, -0.0f,
                            std::numeric_limits<float>::denorm_min(), std::numeric_limits<float>::max()};
  for (int e = 0; e < kN; e += 5) h[std::size_t(kSpecial) * kN + e] = specials[(e / 5) % 7];
  h[std::size_t(kAny) * kN] = 0.0f;  // a zero, and values halfway between integers for round/rint
  h[std::size_t(kAny) * kN + 1] = 2.5f;
  h[std::size_t(kAny) * kN + 2] = -1.5f;

  Stream st;
  Buffer<float> in(st, h);
  auto out = poisoned<float>(st, std::size_t(kResults) * kN);
  auto flags = poisoned<std::int32_t>(st, std::size_t(kFlags) * kN);
  k.launch(st, {.grid = static_cast<int>(ceil_div(kN, kBlock))}, tensor(out, {int(kResults), kN}),
           tensor(flags, {int(kFlags), kN}), tensor(in, {int(kInputs), kN}));
  auto r = out.to_host(st);
  auto f = flags.to_host(st);

  const auto cases = float_cases();
  for (int c = 0; c < kResults; ++c) ASSERT_NE(cases[c].name, nullptr) << "result row " << c << " has no case";
  for (int e = 0; e < kN; ++e) {
    double x[kInputs];
    for (int in_row = 0; in_row < kInputs; ++in_row) x[in_row] = h[std::size_t(in_row) * kN + e];
    for (int c = 0; c < kResults; ++c) {
      const float got = r[std::size_t(c) * kN + e];
      const double want = cases[c].want(x);
      ASSERT_TRUE(close(got, want, cases[c]))
          << cases[c].name << " at element " << e << " (v " << x[kAny] << ", p " << x[kPos] << ", u " << x[kUnit]
          << ", g " << x[kAtLeast1] << ", s " << x[kGamma] << ", y " << x[kOther] << "): got " << got << ", want "
          << want << " (" << (static_cast<double>(got) - want) / f32_ulp(want) << " ulps)";
    }
    const float special = h[std::size_t(kSpecial) * kN + e];
    ASSERT_EQ(f[std::size_t(kIsnan) * kN + e], std::isnan(special) ? 1 : 0) << "isnan(" << special << ")";
    ASSERT_EQ(f[std::size_t(kIsinf) * kN + e], std::isinf(special) ? 1 : 0) << "isinf(" << special << ")";
    ASSERT_EQ(f[std::size_t(kIsfinite) * kN + e], std::isfinite(special) ? 1 : 0) << "isfinite(" << special << ")";
  }
}

constexpr int kIntRows = 10;

/// The integer functions of u32 (and i32, i64) elements, one row of `out` each.
auto int_math_kernel() {
  return tile_kernel([](Tensor<std::uint32_t, 2> out, Tensor<std::uint32_t, 1> u, Tensor<std::int64_t, 1> w) {
    auto i = program_id(0) * kBlock + arange(kBlock);
    auto m = i < u.shape(0);
    auto x = load(u, {i}, m);
    auto s = cast<std::int32_t>(x);
    auto wide = load(w, {i}, m);
    auto put = [&](int r, const Tile<std::uint32_t>& t) { store(out, {r, i}, t, m); };
    put(0, cast<std::uint32_t>(popc(x)));
    put(1, cast<std::uint32_t>(clz(x)));
    put(2, cast<std::uint32_t>(ffs(s)));
    put(3, brev(x));
    put(4, mulhi(x, 0x9e3779b9u));
    put(5, funnel_shift_left(x, x ^ 0xffffu, 7u));
    put(6, funnel_shift_right(x, x ^ 0xffffu, 7u));
    put(7, cast<std::uint32_t>(abs(s)));
    put(8, cast<std::uint32_t>(popc(wide) + clz(wide)));
    put(9, cast<std::uint32_t>(mulhi(s, -7)));
  }, {.name = "tile_math_int"});
}

// The integer functions of math.def on i32, u32 and i64 tiles, exactly.
TEST(TileMathGpu, IntegerFunctionsExactly) {
  CUTLET_REQUIRE_GPU();
  auto k = int_math_kernel();
  Stream st;
  auto hu = random_vector<std::uint32_t>(kN, 48, 0, 0xffffffffu);
  auto hw = random_vector<std::int64_t>(kN, 49, 1, std::numeric_limits<std::int64_t>::max());
  hu[0] = 0;
  hu[1] = 0x80000000u;  // abs(INT_MIN) wraps
  Buffer<std::uint32_t> u(st, hu);
  Buffer<std::int64_t> w(st, hw);
  auto out = poisoned<std::uint32_t>(st, std::size_t(kIntRows) * kN);
  k.launch(st, {.grid = static_cast<int>(ceil_div(kN, kBlock))}, tensor(out, {kIntRows, kN}), tensor(u, {kN}),
           tensor(w, {kN}));
  auto r = out.to_host(st);
  for (int e = 0; e < kN; ++e) {
    const std::uint32_t x = hu[e];
    const auto s = static_cast<std::int32_t>(x);
    std::uint32_t rev = 0;
    for (int b = 0; b < 32; ++b) rev |= ((x >> b) & 1u) << (31 - b);
    const std::uint64_t hilo = (static_cast<std::uint64_t>(x ^ 0xffffu) << 32) | x;
    const auto uw = static_cast<std::uint64_t>(hw[e]);
    const std::uint32_t want[kIntRows] = {
        static_cast<std::uint32_t>(std::popcount(x)),
        static_cast<std::uint32_t>(std::countl_zero(x)),
        x == 0 ? 0u : static_cast<std::uint32_t>(std::countr_zero(x) + 1),
        rev,
        static_cast<std::uint32_t>((static_cast<std::uint64_t>(x) * 0x9e3779b9u) >> 32),
        static_cast<std::uint32_t>((hilo << 7) >> 32),
        static_cast<std::uint32_t>(hilo >> 7),
        s == std::numeric_limits<std::int32_t>::min() ? x : static_cast<std::uint32_t>(std::abs(s)),
        static_cast<std::uint32_t>(std::popcount(uw) + std::countl_zero(uw)),
        static_cast<std::uint32_t>(static_cast<std::int32_t>((static_cast<std::int64_t>(s) * -7) >> 32)),
    };
    for (int row = 0; row < kIntRows; ++row) ASSERT_EQ(r[std::size_t(row) * kN + e], want[row]) << "row " << row << ", x " << x;
  }
}

}  // namespace
