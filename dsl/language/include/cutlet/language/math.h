// The CUDA math library for kernels (libdevice): sqrt, exp, sin, erf, fma, popc, ... on
// traced values. One function per entry of ir/math.def; semantics are those of CUDA's
// functions of the same name (float and double), or of its integer intrinsics. Tiles get the
// same functions, elementwise, from the same list (cutlet/language/tile.h).
#pragma once

#include <cstdint>
#include <source_location>
#include <string_view>
#include <type_traits>

#include "cutlet/ir/math.h"
#include "cutlet/language/value.h"

/// The DSL's math functions: X(MathFn enumerator, C++ name, arity) for every entry of
/// ir/math.def except those written by hand (abs, which picks fabs for floats, and the funnel
/// shifts, which take their operands in another order). This file makes the Value functions
/// from it and cutlet/language/tile.h the Tile ones; the checks at the end of this file keep it
/// equal to math.def (every entry named once, with math.def's name and arity).
///
/// Result types follow math.def's result rule: the operands' common type (Same), bool for the
/// classifications (isnan isinf isfinite), i32 for the bit counts (popc clz ffs). Float
/// functions take f32 or f64, the integer ones i32, i64 (and u32, u64 where math.def says so).
#define CUTLET_MATH_FUNCTIONS(X) \
  X(Sqrt, sqrt, 1)               \
  X(Rsqrt, rsqrt, 1)             \
  X(Cbrt, cbrt, 1)               \
  X(Exp, exp, 1)                 \
  X(Exp2, exp2, 1)               \
  X(Expm1, expm1, 1)             \
  X(Log, log, 1)                 \
  X(Log2, log2, 1)               \
  X(Log10, log10, 1)             \
  X(Log1p, log1p, 1)             \
  X(Pow, pow, 2)                 \
  X(Sin, sin, 1)                 \
  X(Cos, cos, 1)                 \
  X(Tan, tan, 1)                 \
  X(Asin, asin, 1)               \
  X(Acos, acos, 1)               \
  X(Atan, atan, 1)               \
  X(Atan2, atan2, 2)             \
  X(Sinh, sinh, 1)               \
  X(Cosh, cosh, 1)               \
  X(Tanh, tanh, 1)               \
  X(Asinh, asinh, 1)             \
  X(Acosh, acosh, 1)             \
  X(Atanh, atanh, 1)             \
  X(Erf, erf, 1)                 \
  X(Erfc, erfc, 1)               \
  X(Lgamma, lgamma, 1)           \
  X(Tgamma, tgamma, 1)           \
  X(Fma, fma, 3)                 \
  X(Fmin, fmin, 2)               \
  X(Fmax, fmax, 2)               \
  X(Fabs, fabs, 1)               \
  X(Floor, floor, 1)             \
  X(Ceil, ceil, 1)               \
  X(Trunc, trunc, 1)             \
  X(Round, round, 1)             \
  X(Rint, rint, 1)               \
  X(Copysign, copysign, 2)       \
  X(Fmod, fmod, 2)               \
  X(Isnan, isnan, 1)             \
  X(Isinf, isinf, 1)             \
  X(Isfinite, isfinite, 1)       \
  X(Popc, popc, 1)               \
  X(Clz, clz, 1)                 \
  X(Ffs, ffs, 1)                 \
  X(Brev, brev, 1)               \
  X(Mulhi, mulhi, 2)

namespace cutlet {

namespace detail {

// math.def's facts at compile time (ir::math_info is the run-time table of the same rows).

/// The number of operands of `fn`.
consteval int math_arity(ir::MathFn fn) {
  switch (fn) {
#define MATH(name, text, arity, ...) \
  case ir::MathFn::name:             \
    return arity;
#include "cutlet/ir/math.def"
#undef MATH
  }
  return -1;
}

/// The name of `fn` in math.def ("sqrt").
consteval std::string_view math_def_name(ir::MathFn fn) {
  switch (fn) {
#define MATH(name, text, ...) \
  case ir::MathFn::name:      \
    return text;
#include "cutlet/ir/math.def"
#undef MATH
  }
  return {};
}

/// How the result type of `fn` follows from its operands' type.
consteval ir::MathResult math_result_rule(ir::MathFn fn) {
  switch (fn) {
#define MATH(name, text, arity, rule, ...) \
  case ir::MathFn::name:                   \
    return ir::MathResult::rule;
#include "cutlet/ir/math.def"
#undef MATH
  }
  return ir::MathResult::Same;
}

/// True when math.def's column for operands of type T names an implementation.
template <class T>
consteval bool math_column_set(std::string_view f32, std::string_view f64, std::string_view i32, std::string_view i64,
                               std::string_view u32, std::string_view u64) {
  if constexpr (std::is_same_v<T, float>) return !f32.empty();
  else if constexpr (std::is_same_v<T, double>) return !f64.empty();
  else if constexpr (std::is_same_v<T, std::int32_t>) return !i32.empty();
  else if constexpr (std::is_same_v<T, std::int64_t>) return !i64.empty();
  else if constexpr (std::is_same_v<T, std::uint32_t>) return !u32.empty();
  else if constexpr (std::is_same_v<T, std::uint64_t>) return !u64.empty();
  else return false;
}

/// True when math.def defines `fn` for operands of scalar type T.
template <class T>
consteval bool math_defined_for(ir::MathFn fn) {
  switch (fn) {
#define MATH(name, text, arity, rule, f32, f64, i32, i64, u32, u64) \
  case ir::MathFn::name:                                            \
    return math_column_set<T>(f32, f64, i32, i64, u32, u64);
#include "cutlet/ir/math.def"
#undef MATH
  }
  return false;
}

/// The result type of math function Fn on operands of type T (math.def's result rule).
template <ir::MathFn Fn, class T>
using math_result_t = std::conditional_t<math_result_rule(Fn) == ir::MathResult::Bool, bool,
                                         std::conditional_t<math_result_rule(Fn) == ir::MathResult::Int32, std::int32_t, T>>;

/// Math function `fn` on `xs` as R, attributed to the user's line `where` (a function that
/// math.def does not define for R is an IRError naming it).
template <class R, class... Xs>
ir::ValueId math_call(ir::MathFn fn, const std::source_location& where, const Xs&... xs) {
  static_assert(!std::is_same_v<R, half> && !std::is_same_v<R, bfloat16>,
                "cutlet math functions take f32/f64 (convert 16-bit floats with cutlet::cast<float> first)");
  set_location(where);
  ir::ValueId ops[] = {operand_as<R>(xs)...};
  return builder(ir::math_fn_name(fn)).math(fn, ops);
}
}  // namespace detail

// The Value functions of CUTLET_MATH_FUNCTIONS, one macro per arity. Operands promote as in
// arithmetic (value.h); at least one is traced, host numbers take the traced operands' type.
// Each takes, last, the user's source line (defaulted): a function on a type math.def does
// not define it for (`sqrt` of an i32, `popc` of an f32) is an IRError naming that line.
#define CUTLET_VALUE_MATH_1(Fn, name)                                                                  \
  template <Traced X>                                                                                  \
  Value<detail::math_result_t<ir::MathFn::Fn, traced_type_t<X>>> name(                                 \
      const X& x, std::source_location where = std::source_location::current()) {                      \
    using T = traced_type_t<X>;                                                                        \
    return Value<detail::math_result_t<ir::MathFn::Fn, T>>::wrap(detail::math_call<T>(ir::MathFn::Fn, where, x)); \
  }
#define CUTLET_VALUE_MATH_2(Fn, name)                                                                  \
  template <Operand A, Operand B>                                                                      \
    requires(Traced<A> || Traced<B>)                                                                   \
  auto name(const A& a, const B& b, std::source_location where = std::source_location::current()) {   \
    CUTLET_CHECK_PROMOTION(A, B);                                                                      \
    using T = detail::common_t<A, B>;                                                                  \
    return Value<detail::math_result_t<ir::MathFn::Fn, T>>::wrap(detail::math_call<T>(ir::MathFn::Fn, where, a, b)); \
  }
#define CUTLET_VALUE_MATH_3(Fn, name)                                                                  \
  template <Operand A, Operand B, Operand C>                                                           \
    requires(Traced<A> || Traced<B> || Traced<C>)                                                      \
  auto name(const A& a, const B& b, const C& c, std::source_location where = std::source_location::current()) { \
    CUTLET_CHECK_PROMOTION(A, B);                                                                      \
    using AB = detail::common_operand_t<A, B>;                                                         \
    CUTLET_CHECK_PROMOTION(AB, C);                                                                     \
    using T = detail::common_t<AB, C>;                                                                 \
    return Value<detail::math_result_t<ir::MathFn::Fn, T>>::wrap(detail::math_call<T>(ir::MathFn::Fn, where, a, b, c)); \
  }
#define CUTLET_VALUE_MATH(Fn, name, arity) CUTLET_VALUE_MATH_##arity(Fn, name)
CUTLET_MATH_FUNCTIONS(CUTLET_VALUE_MATH)
#undef CUTLET_VALUE_MATH
#undef CUTLET_VALUE_MATH_1
#undef CUTLET_VALUE_MATH_2
#undef CUTLET_VALUE_MATH_3

/// |x| for signed integers (`abs`) and floats (`fabs`); an unsigned `x` is an IRError naming
/// the line `where`.
template <Traced X>
Value<traced_type_t<X>> abs(const X& x, std::source_location where = std::source_location::current()) {
  using T = traced_type_t<X>;
  if constexpr (detail::is_float_v<T>) return fabs(x, where);
  else return Value<T>::wrap(detail::math_call<T>(ir::MathFn::Abs, where, x));
}

/// The upper 32 bits of the 64-bit value hi:lo shifted left by (shift mod 32)
/// (`__funnelshift_l`).
inline u32 funnel_shift_left(const u32& lo, const u32& hi, const u32& shift,
                             std::source_location where = std::source_location::current()) {
  return u32::wrap(detail::math_call<std::uint32_t>(ir::MathFn::FunnelShiftLeft, where, hi, lo, shift));
}
/// The lower 32 bits of hi:lo shifted right by (shift mod 32) (`__funnelshift_r`).
inline u32 funnel_shift_right(const u32& lo, const u32& hi, const u32& shift,
                              std::source_location where = std::source_location::current()) {
  return u32::wrap(detail::math_call<std::uint32_t>(ir::MathFn::FunnelShiftRight, where, hi, lo, shift));
}

namespace detail {
/// True when the DSL has a function for math.def's `fn`: in CUTLET_MATH_FUNCTIONS, or written
/// by hand above (and for tiles in tile.h).
consteval bool dsl_has_math_fn(ir::MathFn fn) {
  switch (fn) {
#define CUTLET_MATH_CASE(Fn, name, arity) case ir::MathFn::Fn:
    CUTLET_MATH_FUNCTIONS(CUTLET_MATH_CASE)
#undef CUTLET_MATH_CASE
    case ir::MathFn::Abs:
    case ir::MathFn::FunnelShiftLeft:
    case ir::MathFn::FunnelShiftRight:
      return true;
    default:
      return false;
  }
}

// Every entry of math.def has a DSL function ...
#define MATH(name, text, ...)                                     \
  static_assert(dsl_has_math_fn(ir::MathFn::name), "cutlet: ir/math.def's " text \
                " has no DSL function: add it to CUTLET_MATH_FUNCTIONS in cutlet/language/math.h");
#include "cutlet/ir/math.def"
#undef MATH
// ... of math.def's name and arity.
#define CUTLET_MATH_CHECK(Fn, name, arity)                                                      \
  static_assert(math_def_name(ir::MathFn::Fn) == #name && math_arity(ir::MathFn::Fn) == arity, \
                "cutlet: CUTLET_MATH_FUNCTIONS' " #name " differs from ir/math.def in its name or arity");
CUTLET_MATH_FUNCTIONS(CUTLET_MATH_CHECK)
#undef CUTLET_MATH_CHECK
}  // namespace detail

}  // namespace cutlet
