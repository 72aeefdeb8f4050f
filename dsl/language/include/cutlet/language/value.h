// Traced scalars (Value<T>), mutable per-thread variables (Var<T>), and their operators.
//
// Typing rules (checked at C++ compile time, with messages in words):
//  - Two traced operands of one type give that type.
//  - Different traced types promote like C++'s usual arithmetic conversions, but stricter:
//    integers of one signedness widen to the wider one; an integer and a float give the
//    float; two floats give the wider. Mixing signed with unsigned integers, or bool with
//    numbers, is an error: cast explicitly with cutlet::cast<T>(x).
//  - A host number (a literal or a captured variable) takes the traced operand's type,
//    like Triton's weak typing of Python scalars: `x * 2.0` is f32 for an f32 x. A
//    floating-point host number with an integer value is an error; a host number that does
//    not fit the type (out of an integer type's range, or overflowing a floating-point type
//    to infinity) throws a TraceError at the user's line.
//  - Signed integer overflow, division by zero and shifts by the bit width or more are
//    undefined, as in C++; unsigned arithmetic wraps.
#pragma once

#include <cmath>
#include <limits>
#include <source_location>
#include <string>
#include <type_traits>
#include <utility>

#include "cutlet/language/scalar.h"
#include "cutlet/language/trace.h"

namespace cutlet {

template <ScalarType T>
class Value;
template <ScalarType T>
class Var;
template <ScalarType T>
class ElementRef;

namespace detail {
template <class X>
struct traced_info {
  static constexpr bool value = false;
};
template <class T>
struct traced_info<Value<T>> {
  static constexpr bool value = true;
  using type = T;
};
template <class T>
struct traced_info<Var<T>> {
  static constexpr bool value = true;
  using type = T;
};
template <class T>
struct traced_info<ElementRef<T>> {
  static constexpr bool value = true;
  using type = T;
};
template <class>
inline constexpr bool always_false = false;
}  // namespace detail

/// A traced value (Value, Var or a pointer element reference).
template <class X>
concept Traced = detail::traced_info<std::remove_cvref_t<X>>::value;
/// A host number (literal or variable), used as a constant at trace time.
template <class X>
concept HostScalar = std::is_arithmetic_v<std::remove_cvref_t<X>>;
/// Anything an operator accepts.
template <class X>
concept Operand = Traced<X> || HostScalar<X>;

/// The element type of a traced operand.
template <Traced X>
using traced_type_t = typename detail::traced_info<std::remove_cvref_t<X>>::type;

namespace detail {

enum PromotionError { kPromoteOk = 0, kSignMix, kBoolMix, kFloatIntoInt, kBoolHost, kHalfMix, kFp8 };

/// Promotion of two scalar types (see the rules at the top of this file).
template <class A, class B>
consteval int promotion_error() {
  if constexpr (std::is_same_v<A, B>) return kPromoteOk;
  else if constexpr (is_fp8_v<A> || is_fp8_v<B>) return kFp8;
  else if constexpr (std::is_same_v<A, bool> || std::is_same_v<B, bool>) return kBoolMix;
  else if constexpr (std::is_integral_v<A> && std::is_integral_v<B>)
    return std::is_signed_v<A> == std::is_signed_v<B> ? kPromoteOk : kSignMix;
  else if constexpr ((std::is_same_v<A, half> && std::is_same_v<B, bfloat16>) ||
                     (std::is_same_v<A, bfloat16> && std::is_same_v<B, half>))
    return kHalfMix;
  else return kPromoteOk;
}
template <class A, class B>
struct promoted {
  using type = std::conditional_t<
      std::is_same_v<A, B>, A,
      std::conditional_t<is_float_v<A> && is_float_v<B>, std::conditional_t<(sizeof(A) >= sizeof(B)), A, B>,
                         std::conditional_t<is_float_v<A>, A,
                                            std::conditional_t<is_float_v<B>, B,
                                                               std::conditional_t<(sizeof(A) >= sizeof(B)), A, B>>>>>;
};

/// The common type of two operands, at least one traced; `error` says why there is none.
template <class A, class B>
struct common {
  using RA = std::remove_cvref_t<A>;
  using RB = std::remove_cvref_t<B>;
  static consteval int compute_error() {
    if constexpr (Traced<RA> && Traced<RB>) {
      return promotion_error<traced_type_t<RA>, traced_type_t<RB>>();
    } else if constexpr (Traced<RA>) {
      using T = traced_type_t<RA>;
      if constexpr (std::is_same_v<T, RB>) return kPromoteOk;
      else if constexpr (is_fp8_v<T> || is_fp8_v<RB>) return kFp8;
      else if constexpr (std::is_same_v<T, bool> != std::is_same_v<RB, bool>) return kBoolHost;
      else if constexpr (std::is_integral_v<T> && is_float_v<RB>) return kFloatIntoInt;
      else return kPromoteOk;
    } else if constexpr (Traced<RB>) {
      return common<B, A>::error;
    } else {
      return kPromoteOk;  // two host numbers: C++'s own rules
    }
  }
  static constexpr int error = compute_error();
  static auto pick() {
    if constexpr (error != kPromoteOk) return std::int32_t{};
    else if constexpr (Traced<RA> && Traced<RB>)
      return typename promoted<traced_type_t<RA>, traced_type_t<RB>>::type{};
    else if constexpr (Traced<RA>) return traced_type_t<RA>{};
    else if constexpr (Traced<RB>) return traced_type_t<RB>{};
    // half, bfloat16 and FP8 (not host numbers to C++) win over a host number.
    else if constexpr (!std::is_arithmetic_v<RA> || !std::is_arithmetic_v<RB>)
      return std::conditional_t<!std::is_arithmetic_v<RA>, RA, RB>{};
    else return canonical_scalar_t<std::common_type_t<RA, RB>>{};
  }
  using type = decltype(pick());
};

/// The message of every refusal to compute on FP8 values (promotion and operator checks).
#define CUTLET_FP8_MESSAGE                                                                              \
  "cutlet: FP8 values are storage only; convert with cutlet::cast<float>(x) (or half, bfloat16) to " \
  "compute, and cutlet::cast<float8_e4m3>(y) to store"

#define CUTLET_CHECK_PROMOTION(A, B)                                                                              \
  static_assert(::cutlet::detail::common<A, B>::error != ::cutlet::detail::kSignMix,                              \
                "cutlet: this mixes signed and unsigned integers; convert one side explicitly, "                  \
                "e.g. cutlet::cast<int32_t>(u) or cutlet::cast<uint32_t>(i)");                                    \
  static_assert(::cutlet::detail::common<A, B>::error != ::cutlet::detail::kBoolMix,                              \
                "cutlet: this mixes a bool with a number; convert explicitly with cutlet::cast<int32_t>(b) "      \
                "or compare the number (x != 0)");                                                                \
  static_assert(::cutlet::detail::common<A, B>::error != ::cutlet::detail::kFloatIntoInt,                         \
                "cutlet: a floating-point host number meets an integer cutlet value; cast the value first, "      \
                "e.g. cutlet::cast<float>(i) * 0.5f, or use an integer constant");                                \
  static_assert(::cutlet::detail::common<A, B>::error != ::cutlet::detail::kBoolHost,                             \
                "cutlet: a bool and a number meet here; use a bool constant with bool values, "                   \
                "a number with numbers, or convert with cutlet::cast<T>");                                        \
  static_assert(::cutlet::detail::common<A, B>::error != ::cutlet::detail::kHalfMix,                              \
                "cutlet: this mixes half and bfloat16; convert one side with cutlet::cast<float>(x) first");     \
  static_assert(::cutlet::detail::common<A, B>::error != ::cutlet::detail::kFp8,                                  \
                CUTLET_FP8_MESSAGE)

template <class A, class B>
using common_t = typename common<A, B>::type;

/// Two operands' common type as an operand type, for folding the rules over more operands
/// (fma): a Value of it when either is traced, the host number type otherwise (host numbers
/// stay weakly typed: fma(2.0f, 3.0, x) computes in x's type).
template <class A, class B>
using common_operand_t = std::conditional_t<Traced<A> || Traced<B>, Value<common_t<A, B>>, common_t<A, B>>;

/// The smallest magnitude that rounds to infinity in floating-point type T (infinity for
/// double, which holds every finite host double).
template <ScalarType T>
constexpr double float_overflow_threshold() {
  if constexpr (std::is_same_v<T, half>) return 65520.0;
  else if constexpr (std::is_same_v<T, bfloat16>) return 0x1.ffp127;
  // FP8 conversions saturate rather than overflow: a constant past the largest finite value's
  // rounding range is refused instead.
  else if constexpr (std::is_same_v<T, float8_e4m3>) return 464.0;
  else if constexpr (std::is_same_v<T, float8_e5m2>) return 61440.0;
  else if constexpr (std::is_same_v<T, float>) return 0x1.ffffffp127;
  else return std::numeric_limits<double>::infinity();
}

/// Host number `v` as text for an error message.
template <class U>
std::string host_number_text(U v) {
  if constexpr (std::is_integral_v<U>) return std::to_string(v);
  else return number_text(static_cast<double>(v));
}

/// Throws TraceError at the user's line: host number `value` does not fit kernel type `T`.
template <ScalarType T>
[[noreturn]] void throw_constant_misfit(const std::string& value, const char* why) {
  throw_trace_error_at_caller("the constant " + value + " " + why + " the kernel value's type " +
                              ir_type_of<T>().str() + "; use a value in the type's range or a wider type");
}

/// Refuses host number `v` when it does not fit scalar type T: an integer out of T's range,
/// a float whose integer part is out of integer T's range, or a finite number that would
/// round to infinity in floating-point T.
template <ScalarType T, class U>
void check_constant_fits(U v) {
  if constexpr (std::is_same_v<T, bool> || std::is_same_v<U, bool>) {
    return;
  } else if constexpr (is_float_v<T>) {
    const double d = static_cast<double>(v);
    if (std::isfinite(static_cast<long double>(v)) && !(std::fabs(d) < float_overflow_threshold<T>()))
      throw_constant_misfit<T>(host_number_text(v), is_fp8_v<T> ? "is beyond the finite range of" : "overflows to infinity in");
  } else if constexpr (std::is_integral_v<U>) {
    if (!std::in_range<T>(v)) throw_constant_misfit<T>(host_number_text(v), "does not fit in");
  } else {
    const long double hi = std::ldexp(1.0L, std::numeric_limits<T>::digits);
    const long double t = std::trunc(static_cast<long double>(v));
    if (!(t >= (std::is_signed_v<T> ? -hi : 0.0L) && t < hi))
      throw_constant_misfit<T>(host_number_text(v), "does not fit in");
  }
}

/// Zero as a host number that makes a constant of T: T{} for the C++ arithmetic types, 0.0f
/// for half, bfloat16 and the FP8 types (which are not host numbers).
template <class T>
constexpr auto host_zero() {
  if constexpr (std::is_arithmetic_v<T>) return T{};
  else return 0.0f;
}

/// Emits a constant of type T for host number `v` (checked to fit T; see check_constant_fits).
template <ScalarType T, class U>
ir::ValueId constant(U v) {
  auto& b = builder("a cutlet constant");
  check_constant_fits<T>(v);
  if constexpr (std::is_same_v<T, bool>) {
    return b.const_bool(static_cast<bool>(v));
  } else if constexpr (is_float_v<T>) {
    // 16-bit constants keep the double value; LLVM rounds it to the type once.
    return b.const_float(ir_type_of<T>(), static_cast<double>(v));
  } else {
    return b.const_int(ir_type_of<T>(), static_cast<std::int64_t>(static_cast<T>(v)));
  }
}

/// The IR value of operand `x` converted to scalar T (a cast when its type differs).
template <ScalarType T, class X>
ir::ValueId operand_as(const X& x);

}  // namespace detail

/// A traced scalar of type T: an immutable SSA value computed by the kernel. Operators on
/// Values emit IR while the kernel is traced; a Value has no run-time content on the host.
///
/// Assigning to a Value rebinds the C++ variable to another traced expression. That is
/// only allowed in the scope (kernel body, if_ branch or loop body) where the variable was
/// declared; for a variable updated inside branches or loops use Var<T>.
///
/// A Value<bool> cannot be used as a C++ condition (`if`, `while`, `&&`, `||`, `?:`):
/// use cutlet::if_, cutlet::while_, `&`/`|` to combine conditions, or cutlet::select.
template <ScalarType T>
class Value {
 public:
  using element_type = T;

  /// A constant from a host number (see the typing rules at the top of the file).
  template <HostScalar U>
  Value(U v) : id_(detail::constant<T>(v)), scope_(detail::current_scope()) {  // NOLINT: implicit on purpose
    static_assert(!(std::is_integral_v<T> && detail::is_float_v<U>),
                  "cutlet: initializing an integer cutlet value from a floating-point number");
    static_assert(std::is_same_v<T, bool> == std::is_same_v<U, bool>,
                  "cutlet: bool values are made from bool constants (true/false), numbers from numbers");
  }
  /// Widens a traced value of another type when no information is lost by the promotion
  /// rules (i32 -> i64, f32 -> f64, i32 -> f32); narrowing needs cutlet::cast<T>.
  template <Traced X>
    requires(!std::is_same_v<traced_type_t<X>, T> && detail::promotion_error<traced_type_t<X>, T>() == 0 &&
             std::is_same_v<typename detail::promoted<T, traced_type_t<X>>::type, T>)
  Value(const X& x) : id_(detail::operand_as<T>(x)), scope_(detail::current_scope()) {}  // NOLINT: implicit
  Value(const Value& o) : id_(o.id_), scope_(detail::current_scope()) {}
  /// Rebinds this variable (only in the scope it was declared in; see the class comment).
  Value& operator=(const Value& o) {
    if (scope_ != detail::current_scope()) detail::throw_assignment_across_scope();
    id_ = o.id_;
    return *this;
  }
  template <Operand X>
    requires(!std::is_same_v<std::remove_cvref_t<X>, Value>)
  Value& operator=(const X& x) {
    CUTLET_CHECK_PROMOTION(T, X);
    static_assert(std::is_same_v<detail::common_t<Value, X>, T>,
                  "cutlet: this assignment would narrow the value; convert explicitly with cutlet::cast<T>");
    return *this = wrap(detail::operand_as<T>(x));
  }

  /// Contextual conversion to bool is not possible for traced values: see the class comment.
  template <class U = void>
  explicit operator bool() const {
    static_assert(detail::always_false<U>,
                  "cutlet: a traced value (a Value computed by the kernel) cannot be a C++ condition: "
                  "`if`, `while`, `for`, `&&`, `||` and `?:` run once, at trace time. Write "
                  "cutlet::if_(cond, [&] { ... }) or cutlet::while_(...) for run-time control flow, `&` / `|` "
                  "to combine conditions, and cutlet::select(cond, a, b) to choose a value.");
    return false;
  }

  /// The IR value (for cutlet's internals and extensions).
  ir::ValueId id() const { return id_.get(); }
  /// Wraps an IR value of type T (for cutlet's internals and extensions).
  static Value wrap(ir::ValueId id) { return Value(id, 0); }

  template <Operand X>
  Value& operator+=(const X& x);
  template <Operand X>
  Value& operator-=(const X& x);
  template <Operand X>
  Value& operator*=(const X& x);
  template <Operand X>
  Value& operator/=(const X& x);

 private:
  Value(ir::ValueId id, int) : id_(id), scope_(detail::current_scope()) {}
  detail::TracedId id_;
  std::uint32_t scope_;
};

/// A mutable per-thread variable of type T (a C++ local variable in a CUDA kernel). It may be
/// assigned anywhere, including inside if_ branches and loop bodies, and is read by
/// converting it to a Value. Default-initialized to zero. Compiles to registers.
template <ScalarType T>
class Var {
 public:
  using element_type = T;

  Var() : Var(detail::host_zero<T>()) {}
  template <Operand X>
  Var(const X& init) : ptr_(detail::builder("cutlet::Var").local_alloc(detail::ir_type_of<T>())) {  // NOLINT
    *this = init;
  }
  Var(const Var& o) : Var(o.get()) {}
  Var& operator=(const Var& o) { return *this = o.get(); }
  /// Stores a new value (of type T, a type that widens to T, or a host number).
  template <Operand X>
    requires(!std::is_same_v<std::remove_cvref_t<X>, Var>)
  Var& operator=(const X& x) {
    CUTLET_CHECK_PROMOTION(T, X);
    if constexpr (Traced<X>)
      static_assert(std::is_same_v<typename detail::promoted<T, traced_type_t<X>>::type, T>,
                    "cutlet: this assignment would narrow the value; convert explicitly with cutlet::cast<T>");
    detail::builder().store(ptr_.get(), detail::operand_as<T>(x));
    return *this;
  }
  /// Reads the current value.
  Value<T> get() const { return Value<T>::wrap(detail::builder().load(ptr_.get())); }
  operator Value<T>() const { return get(); }  // NOLINT: implicit on purpose

  template <class U = void>
  explicit operator bool() const {
    static_assert(detail::always_false<U>,
                  "cutlet: a cutlet::Var cannot be a C++ condition; use cutlet::if_ / cutlet::while_ (see Value)");
    return false;
  }

  template <Operand X>
  Var& operator+=(const X& x);
  template <Operand X>
  Var& operator-=(const X& x);
  template <Operand X>
  Var& operator*=(const X& x);
  template <Operand X>
  Var& operator/=(const X& x);
  Var& operator++() { return *this += 1; }
  Var& operator--() { return *this -= 1; }

 private:
  detail::TracedId ptr_;
};

namespace detail {

/// A traced operand as a Value (loads Var and element references).
template <Traced X>
Value<traced_type_t<X>> as_value(const X& x) {
  using R = std::remove_cvref_t<X>;
  if constexpr (std::is_same_v<R, Value<traced_type_t<X>>>) return x;
  else return static_cast<Value<traced_type_t<X>>>(x);
}

template <ScalarType T, class X>
ir::ValueId operand_as(const X& x) {
  if constexpr (Traced<X>) {
    ir::ValueId v = as_value(x).id();
    if constexpr (std::is_same_v<traced_type_t<X>, T>) return v;
    else return builder().cast(ir_type_of<T>(), v);
  } else {
    return constant<T>(x);
  }
}

template <class A, class B>
auto binary(ir::Opcode op, const A& a, const B& b) {
  using T = common_t<A, B>;
  auto x = operand_as<T>(a);
  auto y = operand_as<T>(b);
  return Value<T>::wrap(builder().binary(op, x, y));
}

template <class A, class B>
Value<bool> compare(ir::Predicate p, const A& a, const B& b) {
  using T = common_t<A, B>;
  auto x = operand_as<T>(a);
  auto y = operand_as<T>(b);
  return Value<bool>::wrap(builder().cmp(p, x, y));
}

}  // namespace detail

// Arithmetic: at least one operand is traced.
#define CUTLET_ARITH_OP(sym, opcode, check)                                        \
  template <Operand A, Operand B>                                                  \
    requires(Traced<A> || Traced<B>)                                               \
  auto operator sym(const A& a, const B& b) {                                      \
    CUTLET_CHECK_PROMOTION(A, B);                                                  \
    using T_ = detail::common_t<A, B>;                                             \
    check;                                                                         \
    return detail::binary(ir::Opcode::opcode, a, b);                               \
  }

#define CUTLET_FP8_STORAGE_ONLY(T) static_assert(!::cutlet::detail::is_fp8_v<T>, CUTLET_FP8_MESSAGE)
#define CUTLET_NUMERIC_ONLY                                                                                      \
  static_assert(!std::is_same_v<T_, bool>, "cutlet: arithmetic on bool values; use & | ^ or cast to an integer"); \
  CUTLET_FP8_STORAGE_ONLY(T_)
#define CUTLET_INTEGER_ONLY \
  static_assert(std::is_integral_v<T_> && !std::is_same_v<T_, bool>, "cutlet: this operator needs integer operands")
#define CUTLET_INT_OR_BOOL \
  static_assert(std::is_integral_v<T_>, "cutlet: bitwise operators need integer or bool operands")

CUTLET_ARITH_OP(+, Add, CUTLET_NUMERIC_ONLY)
CUTLET_ARITH_OP(-, Sub, CUTLET_NUMERIC_ONLY)
CUTLET_ARITH_OP(*, Mul, CUTLET_NUMERIC_ONLY)
CUTLET_ARITH_OP(/, Div, CUTLET_NUMERIC_ONLY)
CUTLET_ARITH_OP(%, Rem, CUTLET_INTEGER_ONLY)
CUTLET_ARITH_OP(&, And, CUTLET_INT_OR_BOOL)
CUTLET_ARITH_OP(|, Or, CUTLET_INT_OR_BOOL)
CUTLET_ARITH_OP(^, Xor, CUTLET_INT_OR_BOOL)
CUTLET_ARITH_OP(<<, Shl, CUTLET_INTEGER_ONLY)
CUTLET_ARITH_OP(>>, Shr, CUTLET_INTEGER_ONLY)
#undef CUTLET_ARITH_OP

#define CUTLET_CMP_OP(sym, pred)                                                  \
  template <Operand A, Operand B>                                                 \
    requires(Traced<A> || Traced<B>)                                              \
  Value<bool> operator sym(const A& a, const B& b) {                              \
    CUTLET_CHECK_PROMOTION(A, B);                                                 \
    using C_ = detail::common_t<A, B>;                                            \
    CUTLET_FP8_STORAGE_ONLY(C_);                                                  \
    return detail::compare(ir::Predicate::pred, a, b);                            \
  }
CUTLET_CMP_OP(==, Eq)
CUTLET_CMP_OP(!=, Ne)
CUTLET_CMP_OP(<, Lt)
CUTLET_CMP_OP(<=, Le)
CUTLET_CMP_OP(>, Gt)
CUTLET_CMP_OP(>=, Ge)
#undef CUTLET_CMP_OP

/// Negation (numbers).
template <Traced X>
Value<traced_type_t<X>> operator-(const X& x) {
  static_assert(!std::is_same_v<traced_type_t<X>, bool>, "cutlet: negating a bool; use !b");
  CUTLET_FP8_STORAGE_ONLY(traced_type_t<X>);
  return Value<traced_type_t<X>>::wrap(detail::builder().unary(ir::Opcode::Neg, detail::as_value(x).id()));
}
/// Bitwise not (integers).
template <Traced X>
Value<traced_type_t<X>> operator~(const X& x) {
  static_assert(std::is_integral_v<traced_type_t<X>> && !std::is_same_v<traced_type_t<X>, bool>,
                "cutlet: ~ needs an integer; use ! for bools");
  return Value<traced_type_t<X>>::wrap(detail::builder().unary(ir::Opcode::Not, detail::as_value(x).id()));
}
/// Logical not (bools).
template <Traced X>
Value<bool> operator!(const X& x) {
  static_assert(std::is_same_v<traced_type_t<X>, bool>, "cutlet: ! needs a bool; compare numbers with == 0");
  return Value<bool>::wrap(detail::builder().unary(ir::Opcode::Not, detail::as_value(x).id()));
}

#define CUTLET_COMPOUND(cls, sym)                  \
  template <ScalarType T>                          \
  template <Operand X>                             \
  cls<T>& cls<T>::operator sym##=(const X& x) {    \
    return *this = detail::as_value(*this) sym x;  \
  }
CUTLET_COMPOUND(Value, +)
CUTLET_COMPOUND(Value, -)
CUTLET_COMPOUND(Value, *)
CUTLET_COMPOUND(Value, /)
CUTLET_COMPOUND(Var, +)
CUTLET_COMPOUND(Var, -)
CUTLET_COMPOUND(Var, *)
CUTLET_COMPOUND(Var, /)
#undef CUTLET_COMPOUND

/// Converts `x` to scalar type To (C++ conversion semantics: integers widen by their
/// signedness or truncate; float to integer rounds toward zero, out of range is undefined;
/// to bool compares with zero). To FP8 (float8_e4m3, float8_e5m2), values round to nearest
/// even and saturate to the largest finite value (infinities included), NaN stays NaN, as
/// CUDA's __NV_SATFINITE conversions do; FP8 converts to every other type exactly, and f64 is
/// cast to f32 first (one rounding). FP8 conversions need sm_89 or later. A host number becomes
/// a constant of type To.
template <ScalarType To, Operand X>
Value<To> cast(const X& x, std::source_location where = std::source_location::current()) {
  if constexpr (Traced<X>)
    static_assert(!(detail::is_fp8_v<To> && std::is_same_v<traced_type_t<X>, double>),
                  "cutlet: an f64 value converted to FP8 would round twice; cast it to float first");
  detail::set_location(where);
  if constexpr (Traced<X>) return Value<To>::wrap(detail::operand_as<To>(x));
  else return Value<To>::wrap(detail::constant<To>(x));
}

/// Reinterprets the bits of `x` as To (same width).
template <ScalarType To, Traced X>
Value<To> bitcast(const X& x) {
  static_assert(sizeof(To) == sizeof(traced_type_t<X>), "cutlet::bitcast needs types of one width");
  return Value<To>::wrap(detail::builder().bitcast(detail::ir_type_of<To>(), detail::as_value(x).id()));
}

/// `cond ? a : b`, evaluated without branching (both sides are computed). Two host
/// numbers give a value of their (fixed-width) C++ common type: select(c, 1, 0) is an i32.
template <Operand A, Operand B>
auto select(const Value<bool>& cond, const A& a, const B& b) {
  CUTLET_CHECK_PROMOTION(A, B);
  using T = detail::common_t<A, B>;
  auto x = detail::operand_as<T>(a);
  auto y = detail::operand_as<T>(b);
  return Value<T>::wrap(detail::builder().select(cond.id(), x, y));
}

/// The smaller of two numbers (for floats: if one is NaN, the other).
template <Operand A, Operand B>
  requires(Traced<A> || Traced<B>)
auto min(const A& a, const B& b) {
  CUTLET_CHECK_PROMOTION(A, B);
  return detail::binary(ir::Opcode::Min, a, b);
}
/// The larger of two numbers (for floats: if one is NaN, the other).
template <Operand A, Operand B>
  requires(Traced<A> || Traced<B>)
auto max(const A& a, const B& b) {
  CUTLET_CHECK_PROMOTION(A, B);
  return detail::binary(ir::Opcode::Max, a, b);
}

/// Shorthand names for the traced scalar types.
using boolean = Value<bool>;
using i8 = Value<std::int8_t>;
using i16 = Value<std::int16_t>;
using i32 = Value<std::int32_t>;
using i64 = Value<std::int64_t>;
using u8 = Value<std::uint8_t>;
using u16 = Value<std::uint16_t>;
using u32 = Value<std::uint32_t>;
using u64 = Value<std::uint64_t>;
using f32 = Value<float>;
using f64 = Value<double>;

}  // namespace cutlet
