// The operations fuzzed programs apply to scalars, and their exact meaning on the host.
//
// Every operation is computed the way the GPU computes it: integers in their own width
// (unsigned wrapping), floats rounded once per operation to their type (16-bit floats through
// float, which rounds correctly for + - * / because float has more than twice their
// precision), conversions rounded once to nearest even. What the kernel language leaves
// undefined (signed overflow, division by zero, over-wide shifts, out-of-range float to
// integer conversions) is reported in OpFlags::undefined: generated programs must never do it.
#pragma once

#include <cstdint>
#include <string>

#include "fuzz/fuzz_scalar.h"

namespace cutlet::fuzz {

enum class UnaryOp : std::uint8_t {
  Neg, BitNot, LogicalNot, Abs, Sqrt, Floor, Ceil, Trunc, Rint, Round, Popc, Clz, Ffs, Brev, IsNan, IsInf, IsFinite,
  // x converted to an FP8 format and back (cast<T>(cast<float8_e4m3>(x))): f16, bf16 and f32
  RoundFp8E4M3, RoundFp8E5M2
};
enum class BinaryOp : std::uint8_t { Add, Sub, Mul, Div, Rem, And, Or, Xor, Shl, Shr, Min, Max, Fmod, Copysign, Mulhi };
enum class CmpOp : std::uint8_t { Eq, Ne, Lt, Le, Gt, Ge };
/// Math functions whose libdevice results are within a few ulps of the exact value.
enum class ApproxFn : std::uint8_t { Exp, Exp2, Log, Log2, Sin, Cos, Tanh, Erf, Atan, Cbrt, Rsqrt, Expm1, Log1p };
inline constexpr int kApproxFnCount = 13;

const char* op_name(UnaryOp op);
const char* op_name(BinaryOp op);
const char* op_name(CmpOp op);
const char* op_name(ApproxFn fn);

/// True when the kernel language has `op` for operands of type `s`.
bool defined_for(UnaryOp op, Scalar s);
bool defined_for(BinaryOp op, Scalar s);
bool defined_for(CmpOp op, Scalar s);
/// The result type of `op` on operands of type `s` (bool for the classifications, i32 for
/// the bit counts, `s` otherwise).
Scalar result_type(UnaryOp op, Scalar s);

/// What evaluating an operation found besides its value.
struct OpFlags {
  /// The operation is undefined for these operands (the program is invalid for them).
  bool undefined = false;
  /// The GPU may give either of two results (min/max of +0 and -0, or of a signalling NaN).
  bool ambiguous = false;
  /// Why, for the first such operation.
  std::string why;
  void set_undefined(const std::string& what);
  void set_ambiguous(const std::string& what);
};

/// The bits of `op` applied to operand bits of type `s` (results in result_type's width).
std::uint64_t eval_unary(UnaryOp op, Scalar s, std::uint64_t a, OpFlags& flags);
std::uint64_t eval_binary(BinaryOp op, Scalar s, std::uint64_t a, std::uint64_t b, OpFlags& flags);
bool eval_compare(CmpOp op, Scalar s, std::uint64_t a, std::uint64_t b);
/// cast<to>(a): C++ conversion semantics, rounding once to nearest even.
std::uint64_t eval_cast(Scalar from, Scalar to, std::uint64_t a, OpFlags& flags);
/// fma(a, b, c) for f32 and f64, rounded once.
std::uint64_t eval_fma(Scalar s, std::uint64_t a, std::uint64_t b, std::uint64_t c);
/// `fn` of f32 or f64 bits `a`, computed in long double and rounded to `s`.
std::uint64_t eval_approx(ApproxFn fn, Scalar s, std::uint64_t a);
/// The ulps `fn`'s result on the GPU may be from eval_approx's (CUDA's documented bound plus
/// the host's own error).
int approx_tolerance_ulps(ApproxFn fn, Scalar s);

/// The distance in ulps of two floats of type `s` (0 for two NaNs, huge for a NaN and a
/// number; +0 and -0 are 0 apart).
std::uint64_t ulp_distance(Scalar s, std::uint64_t a, std::uint64_t b);
/// True when a and b are the same result of type `s`: equal bits, or two NaNs.
bool same_result(Scalar s, std::uint64_t a, std::uint64_t b);

}  // namespace cutlet::fuzz
