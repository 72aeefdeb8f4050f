// The CUDA math library for kernels (libdevice): sqrt, exp, sin, erf, fma, popc, ... on
// traced values. One function per entry of ir/math.def; semantics are those of CUDA's
// functions of the same name (float and double), or of its integer intrinsics.
#pragma once

#include "cutlet/dsl/value.h"
#include "cutlet/ir/math.h"

namespace cutlet {

namespace detail {
template <class R, class... Xs>
ir::ValueId math_call(ir::MathFn fn, const Xs&... xs) {
  static_assert(!std::is_same_v<R, half> && !std::is_same_v<R, bfloat16>,
                "cutlet math functions take f32/f64 (convert 16-bit floats with cutlet::cast<float> first)");
  ir::ValueId ops[] = {operand_as<R>(xs)...};
  return builder(ir::math_fn_name(fn)).math(fn, ops);
}
}  // namespace detail

#define CUTLET_MATH_RESULT(Fn, T)                                                                                  \
  std::conditional_t<(::cutlet::ir::MathFn::Fn == ::cutlet::ir::MathFn::Isnan ||                                   \
                      ::cutlet::ir::MathFn::Fn == ::cutlet::ir::MathFn::Isinf ||                                   \
                      ::cutlet::ir::MathFn::Fn == ::cutlet::ir::MathFn::Isfinite),                                 \
                     bool,                                                                                         \
                     std::conditional_t<(::cutlet::ir::MathFn::Fn == ::cutlet::ir::MathFn::Popc ||                 \
                                         ::cutlet::ir::MathFn::Fn == ::cutlet::ir::MathFn::Clz ||                  \
                                         ::cutlet::ir::MathFn::Fn == ::cutlet::ir::MathFn::Ffs),                   \
                                        std::int32_t, T>>

#define CUTLET_MATH1(Fn, name)                                                                       \
  template <Traced X>                                                                                \
  Value<CUTLET_MATH_RESULT(Fn, traced_type_t<X>)> name(const X& x) {                                 \
    using T = traced_type_t<X>;                                                                      \
    return Value<CUTLET_MATH_RESULT(Fn, T)>::wrap(detail::math_call<T>(ir::MathFn::Fn, x));          \
  }
#define CUTLET_MATH2(Fn, name)                                                                       \
  template <Operand A, Operand B>                                                                    \
    requires(Traced<A> || Traced<B>)                                                                 \
  auto name(const A& a, const B& b) {                                                                \
    CUTLET_CHECK_PROMOTION(A, B);                                                                    \
    using T = detail::common_t<A, B>;                                                                \
    return Value<CUTLET_MATH_RESULT(Fn, T)>::wrap(detail::math_call<T>(ir::MathFn::Fn, a, b));       \
  }
#define CUTLET_MATH3(Fn, name)                                                                       \
  template <Operand A, Operand B, Operand C>                                                         \
    requires(Traced<A> || Traced<B> || Traced<C>)                                                    \
  auto name(const A& a, const B& b, const C& c) {                                                    \
    CUTLET_CHECK_PROMOTION(A, B);                                                                    \
    using T = detail::common_t<detail::common_t<A, B>, C>;                                          \
    return Value<T>::wrap(detail::math_call<T>(ir::MathFn::Fn, a, b, c));                            \
  }

CUTLET_MATH1(Sqrt, sqrt)
CUTLET_MATH1(Rsqrt, rsqrt)
CUTLET_MATH1(Cbrt, cbrt)
CUTLET_MATH1(Exp, exp)
CUTLET_MATH1(Exp2, exp2)
CUTLET_MATH1(Expm1, expm1)
CUTLET_MATH1(Log, log)
CUTLET_MATH1(Log2, log2)
CUTLET_MATH1(Log10, log10)
CUTLET_MATH1(Log1p, log1p)
CUTLET_MATH2(Pow, pow)
CUTLET_MATH1(Sin, sin)
CUTLET_MATH1(Cos, cos)
CUTLET_MATH1(Tan, tan)
CUTLET_MATH1(Asin, asin)
CUTLET_MATH1(Acos, acos)
CUTLET_MATH1(Atan, atan)
CUTLET_MATH2(Atan2, atan2)
CUTLET_MATH1(Sinh, sinh)
CUTLET_MATH1(Cosh, cosh)
CUTLET_MATH1(Tanh, tanh)
CUTLET_MATH1(Asinh, asinh)
CUTLET_MATH1(Acosh, acosh)
CUTLET_MATH1(Atanh, atanh)
CUTLET_MATH1(Erf, erf)
CUTLET_MATH1(Erfc, erfc)
CUTLET_MATH1(Lgamma, lgamma)
CUTLET_MATH1(Tgamma, tgamma)
CUTLET_MATH3(Fma, fma)
CUTLET_MATH2(Fmin, fmin)
CUTLET_MATH2(Fmax, fmax)
CUTLET_MATH1(Fabs, fabs)
CUTLET_MATH1(Floor, floor)
CUTLET_MATH1(Ceil, ceil)
CUTLET_MATH1(Trunc, trunc)
CUTLET_MATH1(Round, round)
CUTLET_MATH1(Rint, rint)
CUTLET_MATH2(Copysign, copysign)
CUTLET_MATH2(Fmod, fmod)
CUTLET_MATH1(Isnan, isnan)
CUTLET_MATH1(Isinf, isinf)
CUTLET_MATH1(Isfinite, isfinite)
CUTLET_MATH1(Popc, popc)
CUTLET_MATH1(Clz, clz)
CUTLET_MATH1(Ffs, ffs)
CUTLET_MATH1(Brev, brev)
CUTLET_MATH2(Mulhi, mulhi)
#undef CUTLET_MATH1
#undef CUTLET_MATH2
#undef CUTLET_MATH3

/// |x| for signed integers (`abs`) and floats (`fabs`).
template <Traced X>
Value<traced_type_t<X>> abs(const X& x) {
  using T = traced_type_t<X>;
  if constexpr (detail::is_float_v<T>) return fabs(x);
  else return Value<T>::wrap(detail::math_call<T>(ir::MathFn::Abs, x));
}

/// The upper 32 bits of the 64-bit value hi:lo shifted left by (shift mod 32)
/// (`__funnelshift_l`).
inline u32 funnel_shift_left(const u32& lo, const u32& hi, const u32& shift) {
  return u32::wrap(detail::math_call<std::uint32_t>(ir::MathFn::FunnelShiftLeft, hi, lo, shift));
}
/// The lower 32 bits of hi:lo shifted right by (shift mod 32) (`__funnelshift_r`).
inline u32 funnel_shift_right(const u32& lo, const u32& hi, const u32& shift) {
  return u32::wrap(detail::math_call<std::uint32_t>(ir::MathFn::FunnelShiftRight, hi, lo, shift));
}

}  // namespace cutlet
