// Internal: correctly rounded f32 division and square root without ptxas's slow-path
// subroutines. ptxas compiles div.rn.f32 and sqrt.rn.f32 (and f64 division, 64-bit integer
// division) with a call to an internal routine; nvJitLink compiles relocatable code, where
// such a call makes ptxas serialize every wgmma of the function. A function on wgmma gets
// these instead.
#pragma once

#include <llvm/IR/IRBuilder.h>

namespace cutlet::backend {

/// a / b for f32 scalars or vectors, rounded to nearest even as div.rn.f32 is: the quotient
/// in f64 from rcp.approx.ftz.f64 and Newton steps (within an f64 ulp, so that its rounding
/// to f32 is the correctly rounded quotient: a quotient of f32 values is never that close to
/// an f32 midpoint), and a * (1 / b) in f64 where a or 1 / b is zero, infinite or NaN.
llvm::Value* call_free_fdiv(llvm::IRBuilder<>& b, llvm::Value* x, llvm::Value* y);

/// sqrt(x) for f32 scalars or vectors, rounded as sqrt.rn.f32 is: through f64 from
/// rsqrt.approx.ftz.f64 and Newton steps; x itself for zeros, infinities and NaN, NaN below 0.
llvm::Value* call_free_sqrt(llvm::IRBuilder<>& b, llvm::Value* x);

}  // namespace cutlet::backend
