// Compile-time constant kernel parameters: Const<T>, its run-time-typed form ConstValue, and
// their use in kernel expressions.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>

#include "cutlet/language/value.h"

namespace cutlet {

/// The host types a compile-time constant may have: bool, the integer types and float/double.
template <class T>
concept ConstType = std::is_arithmetic_v<T> && std::is_same_v<T, std::remove_cv_t<T>> && !std::is_same_v<T, long double>;

/// A compile-time constant of a kernel. A lambda parameter declared `Const<int> UNROLL` is a
/// plain host value while the kernel is traced: it converts implicitly to T (so it drives C++
/// `for` loops and `if`s, which run at trace time), and in an expression with a traced value
/// it is a constant of the traced value's type (`x * UNROLL`). Anywhere else, `UNROLL.value()`
/// or `int(UNROLL)` gives the host number.
///
/// Const parameters are not kernel parameters in the PTX: their values are part of the
/// specialization key, so each value compiles (and caches) a kernel of its own. At launch they
/// are passed as host numbers (`k.launch(s, cfg, x, n, 4)` for a `Const<int>` parameter,
/// converting without narrowing like Value parameters), as `cutlet::constant(4)`, or as a
/// ConstValue (checked to fit at run time). A generic lambda's `auto` parameter becomes a
/// Const<T> when its launch argument is a Const<T> (`cutlet::constant(4)`).
template <ConstType T>
class Const {
 public:
  using value_type = T;

  /// Holds `v`.
  constexpr Const(T v) noexcept : value_(v) {}  // NOLINT: implicit on purpose
  /// The host value.
  constexpr T value() const noexcept { return value_; }
  /// The host value.
  constexpr operator T() const noexcept { return value_; }  // NOLINT: implicit on purpose
  /// The constant as a traced value of scalar type U (`i32 k = UNROLL;`), following the rules
  /// of host numbers in value.h (an integer that does not fit U is a trace-time error).
  template <ScalarType U>
  operator Value<U>() const {  // NOLINT: implicit on purpose
    return Value<U>(value_);
  }

 private:
  T value_;
};

/// A compile-time constant for a launch argument: `k.launch(s, cfg, x, cutlet::constant(4))`
/// makes the matching parameter of a generic lambda a Const<int> holding 4.
template <ConstType T>
constexpr Const<T> constant(T v) noexcept {
  return Const<T>(v);
}

/// The value of a compile-time constant whose type is chosen at run time, as tuning
/// configurations hold them: a 64-bit integer, a double or a bool. Passed for a Const<T>
/// parameter, it is converted to T when the kernel is launched or compiled, and must fit T
/// exactly (else cutlet::Error).
class ConstValue {
 public:
  /// The kind of number held.
  enum class Kind { Int, Float, Bool };

  /// Zero (an integer).
  ConstValue() = default;
  /// Holds `v`: bool as a bool, integers as a 64-bit integer (an unsigned value above
  /// INT64_MAX throws Error), floating-point numbers as a double.
  template <ConstType T>
  ConstValue(T v) {  // NOLINT: implicit on purpose
    if constexpr (std::is_same_v<T, bool>) v_ = v;
    else if constexpr (std::is_floating_point_v<T>) v_ = static_cast<double>(v);
    else if constexpr (std::is_unsigned_v<T> && sizeof(T) >= sizeof(std::int64_t)) v_ = from_unsigned(v);
    else v_ = static_cast<std::int64_t>(v);
  }
  /// Holds the value of `c`.
  template <ConstType T>
  ConstValue(const Const<T>& c) : ConstValue(c.value()) {}  // NOLINT: implicit on purpose

  Kind kind() const noexcept { return static_cast<Kind>(v_.index()); }
  /// The integer held; throws Error for another kind.
  std::int64_t as_int() const;
  /// The number held as a double (integers converted); throws Error for a bool.
  double as_double() const;
  /// The bool held; throws Error for another kind.
  bool as_bool() const;

  /// The value as T. Throws Error when it does not fit T: a fractional or out-of-range
  /// number for an integer T, a bool for a number or a number for a bool, an integer that a
  /// floating-point T cannot hold exactly, a double beyond a float's range (a double within
  /// it rounds to the nearest float).
  template <ConstType T>
  T to() const;

  /// "4", "2.5", "true".
  std::string str() const;
  /// A text form that parse() reads back exactly: "i:4", "f:0x1.4p+1", "b:1".
  std::string serialize() const;
  /// Reads serialize()'s form; throws Error for anything else.
  static ConstValue parse(std::string_view text);

  /// Same kind and value.
  bool operator==(const ConstValue&) const = default;

 private:
  static std::int64_t from_unsigned(unsigned long long v);
  [[noreturn]] void throw_misfit(const char* type) const;
  std::variant<std::int64_t, double, bool> v_{std::int64_t{0}};
};

template <ConstType T>
T ConstValue::to() const {
  if constexpr (std::is_same_v<T, bool>) {
    if (kind() != Kind::Bool) throw_misfit("bool");
    return std::get<bool>(v_);
  } else {
    if (kind() == Kind::Bool) throw_misfit("a number");
    if constexpr (std::is_integral_v<T>) {
      if (kind() == Kind::Float) {
        const double d = std::get<double>(v_);
        if (!(std::trunc(d) == d && d >= -9.2233720368547758e18 && d < 9.2233720368547758e18) ||
            !std::in_range<T>(static_cast<std::int64_t>(d)))
          throw_misfit("an integer type");
        return static_cast<T>(static_cast<std::int64_t>(d));
      }
      const std::int64_t i = std::get<std::int64_t>(v_);
      if (!std::in_range<T>(i)) throw_misfit("this integer type");
      return static_cast<T>(i);
    } else {
      if (kind() == Kind::Int) {
        const std::int64_t i = std::get<std::int64_t>(v_);
        const T f = static_cast<T>(i);
        if (static_cast<long double>(f) != static_cast<long double>(i)) throw_misfit("this floating-point type");
        return f;
      }
      const double d = std::get<double>(v_);
      if (std::isfinite(d) && std::fabs(d) > static_cast<double>(std::numeric_limits<T>::max()))
        throw_misfit("this floating-point type");
      return static_cast<T>(d);  // a double for a float parameter rounds to nearest

    }
  }
}

namespace detail {

template <class X>
struct is_const_param : std::false_type {};
template <class T>
struct is_const_param<Const<T>> : std::true_type {};
/// True for Const<T>.
template <class X>
inline constexpr bool is_const_param_v = is_const_param<std::remove_cvref_t<X>>::value;

/// The bits of a constant's value as the specialization key holds them: integers
/// sign- or zero-extended, floating-point numbers as the bits of a double, bool as 0/1.
template <ConstType T>
std::uint64_t const_bits(T v) noexcept {
  if constexpr (std::is_floating_point_v<T>) {
    const double d = static_cast<double>(v);
    std::uint64_t b;
    std::memcpy(&b, &d, sizeof b);
    return b;
  } else if constexpr (std::is_signed_v<T>) {
    return static_cast<std::uint64_t>(static_cast<std::int64_t>(v));
  } else {
    return static_cast<std::uint64_t>(v);
  }
}
/// The inverse of const_bits.
template <ConstType T>
T const_from_bits(std::uint64_t b) noexcept {
  if constexpr (std::is_floating_point_v<T>) {
    double d;
    std::memcpy(&d, &b, sizeof d);
    return static_cast<T>(d);
  } else if constexpr (std::is_same_v<T, bool>) {
    return b != 0;
  } else if constexpr (std::is_signed_v<T>) {
    return static_cast<T>(static_cast<std::int64_t>(b));
  } else {
    return static_cast<T>(b);
  }
}

}  // namespace detail

// A Const meets a traced operand: the constant takes part as a host number.
#define CUTLET_CONST_OP(sym)                                             \
  template <Traced X, ConstType T>                                       \
  auto operator sym(const X& x, const Const<T>& c) {                     \
    return x sym c.value();                                              \
  }                                                                      \
  template <Traced X, ConstType T>                                       \
  auto operator sym(const Const<T>& c, const X& x) {                     \
    return c.value() sym x;                                              \
  }
CUTLET_CONST_OP(+)
CUTLET_CONST_OP(-)
CUTLET_CONST_OP(*)
CUTLET_CONST_OP(/)
CUTLET_CONST_OP(%)
CUTLET_CONST_OP(&)
CUTLET_CONST_OP(|)
CUTLET_CONST_OP(^)
CUTLET_CONST_OP(<<)
CUTLET_CONST_OP(>>)
CUTLET_CONST_OP(==)
CUTLET_CONST_OP(!=)
CUTLET_CONST_OP(<)
CUTLET_CONST_OP(<=)
CUTLET_CONST_OP(>)
CUTLET_CONST_OP(>=)
#undef CUTLET_CONST_OP

/// The smaller of a traced value and a constant (see cutlet::min).
template <Traced X, ConstType T>
auto min(const X& x, const Const<T>& c) {
  return min(x, c.value());
}
/// The smaller of a constant and a traced value (see cutlet::min).
template <Traced X, ConstType T>
auto min(const Const<T>& c, const X& x) {
  return min(c.value(), x);
}
/// The larger of a traced value and a constant (see cutlet::max).
template <Traced X, ConstType T>
auto max(const X& x, const Const<T>& c) {
  return max(x, c.value());
}
/// The larger of a constant and a traced value (see cutlet::max).
template <Traced X, ConstType T>
auto max(const Const<T>& c, const X& x) {
  return max(c.value(), x);
}

}  // namespace cutlet
