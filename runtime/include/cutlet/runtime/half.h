// Host-side 16-bit floating-point storage types (IEEE half and bfloat16) for buffers and
// kernel arguments; kernels compute with them as Value<half> / Value<bfloat16>. Part of the
// runtime so that programs launching kernels compiled ahead of time (cutlet/runtime/aot_kernel.h)
// pass them without the kernel language.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>

namespace cutlet {

namespace detail {
/// float -> IEEE binary16 bits, round to nearest even (overflow to infinity, NaN kept NaN).
constexpr std::uint16_t float_to_half_bits(float f) {
  std::uint32_t x = std::bit_cast<std::uint32_t>(f);
  std::uint32_t sign = (x >> 16) & 0x8000u;
  std::uint32_t exp = (x >> 23) & 0xffu;
  std::uint32_t mant = x & 0x7fffffu;
  if (exp == 0xff) return static_cast<std::uint16_t>(sign | 0x7c00u | (mant ? 0x200u : 0u));
  int e = static_cast<int>(exp) - 127 + 15;
  if (e >= 31) return static_cast<std::uint16_t>(sign | 0x7c00u);
  if (e <= 0) {  // subnormal or zero
    if (e < -10) return static_cast<std::uint16_t>(sign);
    mant |= 0x800000u;
    int shift = 14 - e;
    std::uint32_t half_mant = mant >> shift;
    std::uint32_t rem = mant & ((1u << shift) - 1);
    std::uint32_t halfway = 1u << (shift - 1);
    if (rem > halfway || (rem == halfway && (half_mant & 1))) ++half_mant;
    return static_cast<std::uint16_t>(sign | half_mant);
  }
  std::uint32_t h = sign | (static_cast<std::uint32_t>(e) << 10) | (mant >> 13);
  std::uint32_t rem = mant & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1))) ++h;  // may carry into the exponent: correct
  return static_cast<std::uint16_t>(h);
}

/// IEEE binary16 bits -> float (exact).
constexpr float half_bits_to_float(std::uint16_t h) {
  std::uint32_t sign = (h & 0x8000u) << 16;
  std::uint32_t exp = (h >> 10) & 0x1fu;
  std::uint32_t mant = h & 0x3ffu;
  std::uint32_t x;
  if (exp == 0x1f) {
    x = sign | 0x7f800000u | (mant << 13);
  } else if (exp == 0) {
    if (mant == 0) {
      x = sign;
    } else {  // normalize a subnormal
      int e = -1;
      do {
        mant <<= 1;
        ++e;
      } while (!(mant & 0x400u));
      x = sign | (static_cast<std::uint32_t>(127 - 15 - e) << 23) | ((mant & 0x3ffu) << 13);
    }
  } else {
    x = sign | ((exp - 15 + 127) << 23) | (mant << 13);
  }
  return std::bit_cast<float>(x);
}

/// float -> bfloat16 bits, round to nearest even (NaN kept NaN).
constexpr std::uint16_t float_to_bfloat16_bits(float f) {
  std::uint32_t x = std::bit_cast<std::uint32_t>(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<std::uint16_t>((x >> 16) | 0x40u);
  x += 0x7fffu + ((x >> 16) & 1u);
  return static_cast<std::uint16_t>(x >> 16);
}

constexpr float bfloat16_bits_to_float(std::uint16_t b) {
  return std::bit_cast<float>(static_cast<std::uint32_t>(b) << 16);
}
}  // namespace detail

/// IEEE 754 binary16 (CUDA's __half) on the host: 2 bytes, converts to and from float
/// (round to nearest even).
struct half {
  std::uint16_t bits = 0;
  half() = default;
  constexpr half(float f) : bits(detail::float_to_half_bits(f)) {}  // NOLINT: implicit like __half
  constexpr operator float() const { return detail::half_bits_to_float(bits); }  // NOLINT
  static constexpr half from_bits(std::uint16_t b) {
    half h;
    h.bits = b;
    return h;
  }
};

/// bfloat16 (CUDA's __nv_bfloat16) on the host: the upper 16 bits of a float, converting
/// with round to nearest even.
struct bfloat16 {
  std::uint16_t bits = 0;
  bfloat16() = default;
  constexpr bfloat16(float f) : bits(detail::float_to_bfloat16_bits(f)) {}  // NOLINT
  constexpr operator float() const { return detail::bfloat16_bits_to_float(bits); }  // NOLINT
  static constexpr bfloat16 from_bits(std::uint16_t b) {
    bfloat16 h;
    h.bits = b;
    return h;
  }
};

static_assert(sizeof(half) == 2 && sizeof(bfloat16) == 2);

}  // namespace cutlet
