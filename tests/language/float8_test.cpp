// FP8 on the host and at trace time: every code decodes to the value its format defines,
// float -> FP8 is the nearest code (ties to the even one, saturating finite), checked against
// a brute-force search over all codes; kernels that compute with FP8 are refused at the
// user's line, casts and constants are traced.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>

#include "cutlet/cutlet.h"
#include "cutlet/runtime/dlpack.h"
#include "kernel_test_support.h"

using namespace cutlet;

namespace {

struct Format {
  const char* name;
  int mantissa_bits, bias;
  bool has_infinity;
  float max;
};
constexpr Format kE4M3{"e4m3", 3, 7, false, 448.0f};
constexpr Format kE5M2{"e5m2", 2, 15, true, 57344.0f};

/// The value of code `c` straight from the format's definition (NaN where it has none).
double reference_value(const Format& f, unsigned c) {
  const int sign = c & 0x80 ? -1 : 1;
  const unsigned e = (c & 0x7f) >> f.mantissa_bits, m = c & ((1u << f.mantissa_bits) - 1);
  const unsigned e_max = (1u << (7 - f.mantissa_bits)) - 1;
  if (f.has_infinity && e == e_max) return m ? std::nan("") : sign * std::numeric_limits<double>::infinity();
  if (!f.has_infinity && (c & 0x7f) == 0x7f) return std::nan("");
  const double frac = e == 0 ? m / double(1u << f.mantissa_bits) : 1 + m / double(1u << f.mantissa_bits);
  return sign * std::ldexp(frac, (e == 0 ? 1 : static_cast<int>(e)) - f.bias);
}

template <class F8>
float decode(unsigned c) { return F8::from_bits(static_cast<std::uint8_t>(c)); }

/// The code the GPU gives for x: the nearest finite code, ties to the one with an even
/// mantissa, magnitudes above the largest finite value saturated, NaN to NaN.
unsigned brute_force(const Format& f, float x) {
  if (std::isnan(x)) return 0x7f;
  unsigned best = 0;
  double best_d = std::numeric_limits<double>::infinity();
  const double xd = std::fabs(static_cast<double>(x));
  for (unsigned c = 0; c < 0x80; ++c) {
    const double v = reference_value(f, c);
    if (!std::isfinite(v)) continue;
    const double d = std::fabs(v - xd);
    if (d < best_d || (d == best_d && (c & 1) == 0)) best = c, best_d = d;
  }
  if (xd > f.max) best = f.has_infinity ? 0x7b : 0x7e;
  return best | (std::signbit(x) ? 0x80u : 0u);
}

template <class F8>
void check_format(const Format& f) {
  for (unsigned c = 0; c < 256; ++c) {
    const double want = reference_value(f, c);
    const float got = decode<F8>(c);
    if (std::isnan(want)) {
      EXPECT_TRUE(std::isnan(got)) << f.name << " code " << c;
      continue;
    }
    EXPECT_EQ(static_cast<double>(got), want) << f.name << " code " << c;
    // Every finite value converts back to its own code (zeros keep their sign); infinities
    // saturate.
    EXPECT_EQ(F8(got).bits, std::isinf(want) ? (c & 0x80u) | 0x7bu : c) << f.name << " code " << c;
  }
  // Midpoints between neighbours, their neighbours, and random floats over the whole range.
  std::vector<float> xs = {0.0f, -0.0f, f.max, -f.max, 2 * f.max, std::numeric_limits<float>::infinity(),
                           -std::numeric_limits<float>::infinity(), std::numeric_limits<float>::denorm_min(),
                           std::numeric_limits<float>::max()};
  for (unsigned c = 0; c + 1 < 0x80; ++c) {
    const double a = reference_value(f, c), b = reference_value(f, c + 1);
    if (!std::isfinite(a) || !std::isfinite(b)) continue;
    const float mid = static_cast<float>((a + b) / 2);
    xs.insert(xs.end(), {mid, std::nextafter(mid, 0.0f), std::nextafter(mid, 1e30f), -mid});
  }
  std::mt19937 rng(8);
  std::uniform_real_distribution<float> exponent(-24.0f, 18.0f);
  for (int i = 0; i < 20000; ++i) xs.push_back((i & 1 ? -1 : 1) * std::exp2(exponent(rng)));
  for (float x : xs) EXPECT_EQ(F8(x).bits, brute_force(f, x)) << f.name << " of " << x;
  EXPECT_TRUE(std::isnan(static_cast<float>(F8(std::numeric_limits<float>::quiet_NaN()))));
}

TEST(Float8, E4M3DecodesEveryCodeAndRoundsToNearestEven) {
  check_format<float8_e4m3>(kE4M3);
  EXPECT_EQ(float8_e4m3(448.0f).bits, 0x7e);
  EXPECT_EQ(float8_e4m3(1e9f).bits, 0x7e);  // saturates: E4M3 has no infinity
  EXPECT_EQ(float8_e4m3(-std::numeric_limits<float>::infinity()).bits, 0xfe);
  EXPECT_EQ(float8_e4m3(std::ldexp(1.0f, -9)).bits, 0x01);  // the smallest subnormal
  EXPECT_EQ(float8_e4m3(std::ldexp(1.0f, -10)).bits, 0x00);  // half of it: ties to even (zero)
  EXPECT_EQ(float8_e4m3(1.0625f).bits, 0x38);  // halfway between 1 and 1.125: to even
}

TEST(Float8, E5M2DecodesEveryCodeAndRoundsToNearestEven) {
  check_format<float8_e5m2>(kE5M2);
  EXPECT_EQ(float8_e5m2(57344.0f).bits, 0x7b);
  EXPECT_EQ(float8_e5m2(std::numeric_limits<float>::infinity()).bits, 0x7b);  // saturating, as __NV_SATFINITE
  EXPECT_TRUE(std::isinf(static_cast<float>(float8_e5m2::from_bits(0xfc))));
  EXPECT_EQ(float8_e5m2(std::ldexp(1.0f, -16)).bits, 0x01);
}

TEST(Float8, DlpackTypesArePyTorchs) {
  const DLDataType e4m3 = dlpack_dtype<float8_e4m3>(), e5m2 = dlpack_dtype<float8_e5m2>();
  EXPECT_EQ(dlpack_dtype_name(e4m3), "float8_e4m3fn");
  EXPECT_EQ(dlpack_dtype_name(e5m2), "float8_e5m2");
  EXPECT_EQ(e4m3.bits, 8);
}

TEST(Float8Trace, CastsAreTracedBothWays) {
  auto k = kernel([](Ptr<float8_e4m3> out, Ptr<float> in, Ptr<float8_e5m2> e5) {
    i32 i = thread_idx().x;
    out[i] = cast<float8_e4m3>(Value<float>(in[i]));
    Value<float8_e5m2> x = e5[i];
    in[i] = cast<float>(x) * 2.0f;
    e5[i] = select(i < 3, x, Value<float8_e5m2>(1.5f));
  }, {.name = "fp8_casts"});
  const std::string ir = ir::print(k.trace_ir());
  EXPECT_NE(ir.find("ptr<f8e4m3, global>"), std::string::npos) << ir;
  EXPECT_NE(ir.find("cast"), std::string::npos) << ir;
  EXPECT_NE(ir.find("ptr<f8e5m2, global>"), std::string::npos) << ir;
  EXPECT_NE(ir.find("select"), std::string::npos) << ir;
}

/// Expects `msg` to contain `part` and to name this file's `line`.
void expect_error_at(const std::string& msg, const std::string& part, int line) {
  EXPECT_NE(msg.find(part), std::string::npos) << "missing '" << part << "': " << msg;
  EXPECT_NE(msg.find("float8_test.cpp:" + std::to_string(line) + ")"), std::string::npos) << line << ": " << msg;
}

// Arithmetic, comparisons and negation of FP8 values do not compile (compile_fail/fp8_arithmetic.cpp);
// the ops that take any element type refuse FP8 when traced.
TEST(Float8Trace, ReductionsAndAtomicsOfFp8AreRefusedAtTheUsersLine) {
  int line = 0;
  auto t = tile_kernel([&](Tensor<float8_e5m2, 1> x) {
    auto v = load(x, {arange(64)});
    line = __LINE__; (void)sum(v, 0);
  }, {.name = "fp8_sum"});
  std::string msg = test::message_of([&] { (void)t.trace_ir(); });
  expect_error_at(msg, "storage only", line);
  auto k = kernel([&](Ptr<float8_e4m3> p) { line = __LINE__; (void)atomic_add(p[0], Value<float8_e4m3>(1.0f)); },
                  {.name = "fp8_atomic"});
  msg = test::message_of([&] { (void)k.trace_ir(); });
  expect_error_at(msg, "atomic add is not available for f8e4m3", line);
}

TEST(Float8Trace, F64ToFp8AndOutOfRangeConstantsAreRefused) {
  int line = 0;
  auto from_f64 = tile_kernel([&](Tensor<float8_e5m2, 1> y, Tensor<double, 1> x) {
    auto i = arange(32);
    line = __LINE__; store(y, {i}, cast<float8_e5m2>(load(x, {i})));
  }, {.name = "fp8_from_f64"});
  std::string msg = test::message_of([&] { (void)from_f64.trace_ir(); });
  expect_error_at(msg, "cast to f32 first", line);
  auto big = kernel([&](Ptr<float8_e4m3> p) { line = __LINE__; p[0] = Value<float8_e4m3>(500.0f); }, {.name = "fp8_big"});
  msg = test::message_of([&] { (void)big.trace_ir(); });
  expect_error_at(msg, "beyond the finite range of the kernel value's type f8e4m3", line);
}

}  // namespace
