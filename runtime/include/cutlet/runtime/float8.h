// Host-side 8-bit floating-point storage types (OCP FP8: E4M3 and E5M2) for buffers and kernel
// arguments; kernels convert them with cutlet::cast to compute. Part of the runtime so that
// programs launching kernels compiled ahead of time pass them without the kernel language.
#pragma once

#include <bit>
#include <cstdint>

namespace cutlet {

namespace detail {

/// One FP8 format: exponent and mantissa widths, exponent bias, the largest finite encoding
/// (positive) and the encoding of NaN (positive) the GPU's conversions produce.
struct Float8Format {
  int exponent_bits;
  int mantissa_bits;
  int bias;
  std::uint8_t max_finite;
  std::uint8_t nan;
  /// E5M2 has IEEE infinities (0x7c); E4M3 (the "fn" variant) has none.
  bool has_infinity;
};
inline constexpr Float8Format kE4M3{4, 3, 7, 0x7e, 0x7f, false};
inline constexpr Float8Format kE5M2{5, 2, 15, 0x7b, 0x7f, true};

/// float -> FP8 bits as the GPU's `cvt.rn.satfinite` converts: round to nearest even,
/// magnitudes above the largest finite value (infinity included) saturate to it, NaN stays NaN.
constexpr std::uint8_t float_to_float8_bits(float f, const Float8Format& fmt) {
  const std::uint32_t x = std::bit_cast<std::uint32_t>(f);
  const auto sign = static_cast<std::uint8_t>((x >> 24) & 0x80u);
  const int exp8 = static_cast<int>((x >> 23) & 0xffu);
  const std::uint32_t mant = x & 0x7fffffu;
  if (exp8 == 0xff) return static_cast<std::uint8_t>(sign | (mant ? fmt.nan : fmt.max_finite));
  if (exp8 == 0) return sign;  // f32 zeros and subnormals are far below FP8's smallest subnormal
  const int e = exp8 - 127;    // value = m * 2^(e - 23), m = 24-bit significand
  const std::uint32_t m = mant | 0x800000u;
  const int min_exponent = 1 - fmt.bias;
  const int te = e > min_exponent ? e : min_exponent;  // the exponent of the result's quantum...
  const int shift = te - fmt.mantissa_bits - e + 23;   // ...2^(te - mantissa_bits), in units of m
  if (shift >= 25) return sign;                        // below half the smallest subnormal
  std::uint32_t q = m >> shift;
  const std::uint32_t rem = m & ((1u << shift) - 1u), halfway = 1u << (shift - 1);
  if (rem > halfway || (rem == halfway && (q & 1u))) ++q;
  // Normal results carry their implicit bit in q, which adds one to the exponent field; a
  // carry out of the mantissa lands in the exponent field as it should.
  const std::uint32_t bits = (static_cast<std::uint32_t>(te + fmt.bias - 1) << fmt.mantissa_bits) + q;
  if (te + fmt.bias - 1 > 0x7f || bits > fmt.max_finite) return static_cast<std::uint8_t>(sign | fmt.max_finite);
  return static_cast<std::uint8_t>(sign | bits);
}

/// FP8 bits -> float (exact: every FP8 value is a float).
constexpr float float8_bits_to_float(std::uint8_t b, const Float8Format& fmt) {
  const std::uint32_t sign = static_cast<std::uint32_t>(b & 0x80u) << 24;
  const std::uint32_t exp = (b & 0x7fu) >> fmt.mantissa_bits;
  std::uint32_t mant = b & ((1u << fmt.mantissa_bits) - 1u);
  const std::uint32_t exp_max = (1u << fmt.exponent_bits) - 1u;
  if (fmt.has_infinity && exp == exp_max) return std::bit_cast<float>(sign | 0x7f800000u | (mant ? 0x400000u : 0u));
  if (!fmt.has_infinity && (b & 0x7fu) == 0x7fu) return std::bit_cast<float>(sign | 0x7fc00000u);
  if (exp == 0) {
    if (mant == 0) return std::bit_cast<float>(sign);
    int e = 1 - fmt.bias;  // normalize the subnormal: shift until the implicit bit appears
    while (!(mant & (1u << fmt.mantissa_bits))) {
      mant <<= 1;
      --e;
    }
    mant &= (1u << fmt.mantissa_bits) - 1u;
    return std::bit_cast<float>(sign | (static_cast<std::uint32_t>(e + 127) << 23) | (mant << (23 - fmt.mantissa_bits)));
  }
  const int e = static_cast<int>(exp) - fmt.bias;
  return std::bit_cast<float>(sign | (static_cast<std::uint32_t>(e + 127) << 23) | (mant << (23 - fmt.mantissa_bits)));
}

}  // namespace detail

/// OCP FP8 E4M3 (CUDA's __nv_fp8_e4m3, PyTorch's float8_e4m3fn) on the host: 1 sign, 4 exponent
/// (bias 7) and 3 mantissa bits; finite values up to 448, subnormals down to 2^-9, no
/// infinities, NaN 0x7f. Converts from float as the GPU does (round to nearest even,
/// saturating to +-448) and to float exactly.
struct float8_e4m3 {
  std::uint8_t bits = 0;
  float8_e4m3() = default;
  constexpr float8_e4m3(float f) : bits(detail::float_to_float8_bits(f, detail::kE4M3)) {}  // NOLINT: like __nv_fp8
  constexpr operator float() const { return detail::float8_bits_to_float(bits, detail::kE4M3); }  // NOLINT
  static constexpr float8_e4m3 from_bits(std::uint8_t b) {
    float8_e4m3 v;
    v.bits = b;
    return v;
  }
};

/// OCP FP8 E5M2 (CUDA's __nv_fp8_e5m2, PyTorch's float8_e5m2) on the host: 1 sign, 5 exponent
/// (bias 15) and 2 mantissa bits; finite values up to 57344, subnormals down to 2^-16,
/// infinities and NaNs as in IEEE 754. Converts from float as the GPU does (round to nearest
/// even, saturating finite: infinities become +-57344) and to float exactly.
struct float8_e5m2 {
  std::uint8_t bits = 0;
  float8_e5m2() = default;
  constexpr float8_e5m2(float f) : bits(detail::float_to_float8_bits(f, detail::kE5M2)) {}  // NOLINT
  constexpr operator float() const { return detail::float8_bits_to_float(bits, detail::kE5M2); }  // NOLINT
  static constexpr float8_e5m2 from_bits(std::uint8_t b) {
    float8_e5m2 v;
    v.bits = b;
    return v;
  }
};

static_assert(sizeof(float8_e4m3) == 1 && sizeof(float8_e5m2) == 1);

}  // namespace cutlet
