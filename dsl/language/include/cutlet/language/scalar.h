// The C++ scalar types a kernel may compute with, and their IR types.
#pragma once

#include <concepts>
#include <cstdint>
#include <type_traits>

#include "cutlet/ir/type.h"
#include "cutlet/language/half.h"

namespace cutlet {

/// The element types of cutlet values in kernels: bool, the fixed-width integers,
/// half, bfloat16, float, double, and the FP8 storage types float8_e4m3 and float8_e5m2
/// (loaded, stored, selected and converted with cutlet::cast; computing needs a cast first).
template <class T>
concept ScalarType = std::same_as<T, bool> || std::same_as<T, half> || std::same_as<T, bfloat16> ||
                     std::same_as<T, float8_e4m3> || std::same_as<T, float8_e5m2> || std::same_as<T, std::int8_t> || std::same_as<T, std::int16_t> ||
                     std::same_as<T, std::int32_t> || std::same_as<T, std::int64_t> ||
                     std::same_as<T, std::uint8_t> || std::same_as<T, std::uint16_t> ||
                     std::same_as<T, std::uint32_t> || std::same_as<T, std::uint64_t> ||
                     std::same_as<T, float> || std::same_as<T, double>;

namespace detail {

/// True for the FP8 storage types.
template <class T>
inline constexpr bool is_fp8_v = std::is_same_v<T, float8_e4m3> || std::is_same_v<T, float8_e5m2>;
/// True for the floating-point scalars, 16-bit and FP8 ones included.
template <class T>
inline constexpr bool is_float_v =
    std::is_floating_point_v<T> || std::is_same_v<T, half> || std::is_same_v<T, bfloat16> || is_fp8_v<T>;
/// True for the integer scalars (not bool).
template <class T>
inline constexpr bool is_int_v = std::is_integral_v<T> && !std::is_same_v<T, bool>;

/// Maps a host arithmetic type to its fixed-width cutlet scalar (long -> int64_t,
/// unsigned char -> uint8_t, char by its signedness).
template <class U>
struct canonical_scalar {
  using type = std::conditional_t<
      std::is_same_v<U, bool>, bool,
      std::conditional_t<
          std::is_floating_point_v<U>, std::conditional_t<(sizeof(U) <= 4), float, double>,
          std::conditional_t<
              std::is_signed_v<U>,
              std::conditional_t<sizeof(U) == 1, std::int8_t,
                                 std::conditional_t<sizeof(U) == 2, std::int16_t,
                                                    std::conditional_t<sizeof(U) == 4, std::int32_t, std::int64_t>>>,
              std::conditional_t<sizeof(U) == 1, std::uint8_t,
                                 std::conditional_t<sizeof(U) == 2, std::uint16_t,
                                                    std::conditional_t<sizeof(U) == 4, std::uint32_t, std::uint64_t>>>>>>;
};
template <class U>
using canonical_scalar_t = typename canonical_scalar<U>::type;

/// The IR type of scalar T.
template <ScalarType T>
ir::Type ir_type_of() {
  using ir::Type;
  if constexpr (std::is_same_v<T, bool>) return Type::i1();
  else if constexpr (std::is_same_v<T, half>) return Type::f16();
  else if constexpr (std::is_same_v<T, bfloat16>) return Type::bf16();
  else if constexpr (std::is_same_v<T, float8_e4m3>) return Type::f8e4m3();
  else if constexpr (std::is_same_v<T, float8_e5m2>) return Type::f8e5m2();
  else if constexpr (std::is_same_v<T, float>) return Type::f32();
  else if constexpr (std::is_same_v<T, double>) return Type::f64();
  else if constexpr (std::is_signed_v<T>) {
    if constexpr (sizeof(T) == 1) return Type::i8();
    else if constexpr (sizeof(T) == 2) return Type::i16();
    else if constexpr (sizeof(T) == 4) return Type::i32();
    else return Type::i64();
  } else {
    if constexpr (sizeof(T) == 1) return Type::u8();
    else if constexpr (sizeof(T) == 2) return Type::u16();
    else if constexpr (sizeof(T) == 4) return Type::u32();
    else return Type::u64();
  }
}

}  // namespace detail
}  // namespace cutlet
