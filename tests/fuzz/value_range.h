// Building expressions that stay defined: each constructor computes the integer range of
// its result and rewrites what could be undefined for some operand in that range.
#pragma once

#include "fuzz/simt_program.h"

namespace cutlet::fuzz {

/// A constant of type t with bits `b`.
Expr make_const(Scalar t, std::uint64_t b);
/// A constant of float type t, the value `v` rounded to t.
Expr make_float_const(Scalar t, double v);
/// Gives integer expression `e` the whole range of its type (bool: [0, 1]).
void set_full_range(Expr& e);

/// `op a`; negating a signed minimum goes through the unsigned type, abs raises it first.
Expr make_unary(UnaryOp op, Expr a);
/// `a op b` of one type: signed add/sub/mul that may overflow go through the unsigned
/// type; divisors that may be 0 (or -1 with a dividend that may be the minimum) are masked
/// into a safe range; shift amounts are masked to the width.
Expr make_binary(BinaryOp op, Expr a, Expr b);
Expr make_compare(CmpOp op, Expr a, Expr b);
Expr make_select(Expr c, Expr a, Expr b);
/// cast<to>(a); a float becoming an integer is first clamped into [-100, 100] (signed) or
/// [0.5, 200] (unsigned), which every integer type holds and min/max keep from NaN.
Expr make_cast(Scalar to, Expr a);
Expr make_bitcast(Scalar to, Expr a);
Expr make_fma(Expr a, Expr b, Expr c);
/// funnel_shift_left (right = 0) or funnel_shift_right (right = 1) of u32 lo, hi, shift.
Expr make_funnel(int right, Expr lo, Expr hi, Expr shift);
/// `e` clamped into [lo, hi] with min/max when its range may leave it (integers only).
Expr fit(Expr e, __int128 lo, __int128 hi);

}  // namespace cutlet::fuzz
