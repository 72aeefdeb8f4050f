// The scalar types fuzzed kernels compute with, and their values on the host as bit patterns.
#pragma once

#include <bit>
#include <cstdint>
#include <string>
#include <type_traits>

#include <cutlet/language/half.h>

namespace cutlet::fuzz {

/// Every element type of the kernel language, in one order used for tables and variants.
enum class Scalar : std::uint8_t { Bool, I8, I16, I32, I64, U8, U16, U32, U64, F16, BF16, F32, F64 };
inline constexpr int kScalarCount = 13;

/// The name the kernel language's aliases use ("i32", "f16", "bool").
const char* scalar_name(Scalar s);
/// Width in bits (1 for bool).
int scalar_bits(Scalar s);
bool is_float(Scalar s);
bool is_signed_int(Scalar s);
bool is_unsigned_int(Scalar s);
/// A signed or unsigned integer (not bool).
bool is_integer(Scalar s);
/// The unsigned integer of the same width as integer `s`.
Scalar unsigned_of(Scalar s);
/// The signed integer of the same width as integer `s`.
Scalar signed_of(Scalar s);

/// Calls `f(std::type_identity<T>{})` with T the C++ type of `s` (bool, std::int8_t, ...,
/// cutlet::half, cutlet::bfloat16, float, double) and returns its result.
template <class F>
decltype(auto) with_scalar(Scalar s, F&& f) {
  switch (s) {
    case Scalar::Bool: return f(std::type_identity<bool>{});
    case Scalar::I8: return f(std::type_identity<std::int8_t>{});
    case Scalar::I16: return f(std::type_identity<std::int16_t>{});
    case Scalar::I32: return f(std::type_identity<std::int32_t>{});
    case Scalar::I64: return f(std::type_identity<std::int64_t>{});
    case Scalar::U8: return f(std::type_identity<std::uint8_t>{});
    case Scalar::U16: return f(std::type_identity<std::uint16_t>{});
    case Scalar::U32: return f(std::type_identity<std::uint32_t>{});
    case Scalar::U64: return f(std::type_identity<std::uint64_t>{});
    case Scalar::F16: return f(std::type_identity<half>{});
    case Scalar::BF16: return f(std::type_identity<bfloat16>{});
    case Scalar::F32: return f(std::type_identity<float>{});
    case Scalar::F64: return f(std::type_identity<double>{});
  }
  return f(std::type_identity<bool>{});
}

/// The Scalar of C++ type T.
template <class T>
constexpr Scalar scalar_of() {
  if constexpr (std::is_same_v<T, bool>) return Scalar::Bool;
  else if constexpr (std::is_same_v<T, std::int8_t>) return Scalar::I8;
  else if constexpr (std::is_same_v<T, std::int16_t>) return Scalar::I16;
  else if constexpr (std::is_same_v<T, std::int32_t>) return Scalar::I32;
  else if constexpr (std::is_same_v<T, std::int64_t>) return Scalar::I64;
  else if constexpr (std::is_same_v<T, std::uint8_t>) return Scalar::U8;
  else if constexpr (std::is_same_v<T, std::uint16_t>) return Scalar::U16;
  else if constexpr (std::is_same_v<T, std::uint32_t>) return Scalar::U32;
  else if constexpr (std::is_same_v<T, std::uint64_t>) return Scalar::U64;
  else if constexpr (std::is_same_v<T, half>) return Scalar::F16;
  else if constexpr (std::is_same_v<T, bfloat16>) return Scalar::BF16;
  else if constexpr (std::is_same_v<T, float>) return Scalar::F32;
  else return Scalar::F64;
}

/// The bits of a value of type T, zero-extended to 64.
template <class T>
std::uint64_t bits_of(T v) {
  if constexpr (std::is_same_v<T, half> || std::is_same_v<T, bfloat16>) {
    return v.bits;
  } else if constexpr (std::is_same_v<T, float>) {
    return std::bit_cast<std::uint32_t>(v);
  } else if constexpr (std::is_same_v<T, double>) {
    return std::bit_cast<std::uint64_t>(v);
  } else if constexpr (std::is_same_v<T, bool>) {
    return v ? 1 : 0;
  } else {
    return static_cast<std::uint64_t>(static_cast<std::make_unsigned_t<T>>(v));
  }
}

/// The value of type T with bits `b` (the low bits of its width).
template <class T>
T value_of(std::uint64_t b) {
  if constexpr (std::is_same_v<T, half>) return half::from_bits(static_cast<std::uint16_t>(b));
  else if constexpr (std::is_same_v<T, bfloat16>) return bfloat16::from_bits(static_cast<std::uint16_t>(b));
  else if constexpr (std::is_same_v<T, float>) return std::bit_cast<float>(static_cast<std::uint32_t>(b));
  else if constexpr (std::is_same_v<T, double>) return std::bit_cast<double>(b);
  else if constexpr (std::is_same_v<T, bool>) return (b & 1) != 0;
  else return static_cast<T>(static_cast<std::make_unsigned_t<T>>(b));
}

/// `b` reduced to the width of `s` (the canonical bits of a value of that type).
std::uint64_t truncate_bits(Scalar s, std::uint64_t b);
/// A value of type `s` with bits `b`, as text: "-3", "0.5", "true", "nan".
std::string value_text(Scalar s, std::uint64_t b);
/// The smallest and largest value of integer type `s` (as 128-bit integers).
__int128 integer_min(Scalar s);
__int128 integer_max(Scalar s);
/// Integer bits `b` of type `s` as a number.
__int128 integer_value(Scalar s, std::uint64_t b);

/// The value of `v` (exactly held by a long double: every integer and every float type)
/// rounded once, to nearest even, to floating-point type `to`; the bits of the result.
std::uint64_t round_to_float_bits(Scalar to, long double v);
/// Float bits `b` of type `s` as a long double (exact).
long double float_value(Scalar s, std::uint64_t b);

}  // namespace cutlet::fuzz
