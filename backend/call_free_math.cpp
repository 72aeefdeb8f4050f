// Correctly rounded f32 division and square root without subroutine calls (call_free_math.h).
#include "call_free_math.h"

#include <llvm/IR/IntrinsicsNVPTX.h>

namespace cutlet::backend {
namespace {

/// f(x[, y]) on each lane of f32 vectors, or on scalars.
template <class F>
llvm::Value* lanewise(llvm::IRBuilder<>& b, llvm::Value* x, llvm::Value* y, F f) {
  auto* vt = llvm::dyn_cast<llvm::FixedVectorType>(x->getType());
  if (!vt) return f(x, y);
  llvm::Value* out = llvm::PoisonValue::get(vt);
  for (unsigned i = 0; i < vt->getNumElements(); ++i)
    out = b.CreateInsertElement(out, f(b.CreateExtractElement(x, i), y ? b.CreateExtractElement(y, i) : nullptr), i);
  return out;
}

llvm::Value* fma(llvm::IRBuilder<>& b, llvm::Value* x, llvm::Value* y, llvm::Value* z) {
  return b.CreateIntrinsic(llvm::Intrinsic::fma, {x->getType()}, {x, y, z});
}

/// Whether f64 value v is finite and not zero.
llvm::Value* finite_nonzero(llvm::IRBuilder<>& b, llvm::Value* v) {
  llvm::Value* mag = b.CreateIntrinsic(llvm::Intrinsic::fabs, {v->getType()}, {v});
  // ord and < inf: neither NaN nor infinite; and > 0.
  return b.CreateAnd(b.CreateFCmpOLT(mag, llvm::ConstantFP::getInfinity(v->getType())),
                     b.CreateFCmpOGT(mag, llvm::ConstantFP::get(v->getType(), 0.0)));
}

}  // namespace

llvm::Value* call_free_fdiv(llvm::IRBuilder<>& b, llvm::Value* x, llvm::Value* y) {
  return lanewise(b, x, y, [&](llvm::Value* xs, llvm::Value* ys) {
    llvm::Type* d = b.getDoubleTy();
    llvm::Value* xd = b.CreateFPExt(xs, d);
    llvm::Value* yd = b.CreateFPExt(ys, d);
    llvm::Value* one = llvm::ConstantFP::get(d, 1.0);
    llvm::Value* r0 = b.CreateIntrinsic(llvm::Intrinsic::nvvm_rcp_approx_ftz_d, {}, {yd});
    llvm::Value* r = r0;
    // Newton steps on the reciprocal (each doubles its correct bits), then the quotient and one correction.
    for (int i = 0; i < 3; ++i) r = fma(b, r, fma(b, b.CreateFNeg(yd), r, one), r);
    llvm::Value* q = b.CreateFMul(xd, r);
    llvm::Value* rem = fma(b, b.CreateFNeg(yd), q, xd);
    q = fma(b, rem, r, q);
    // Zeros, infinities and NaN: x * (1 / y) is their IEEE quotient (1 / 0 is inf, 1 / inf is 0).
    llvm::Value* plain = b.CreateFMul(xd, r0);
    llvm::Value* ok = b.CreateAnd(finite_nonzero(b, xd), finite_nonzero(b, r0));
    return b.CreateFPTrunc(b.CreateSelect(ok, q, plain), xs->getType());
  });
}

llvm::Value* call_free_sqrt(llvm::IRBuilder<>& b, llvm::Value* x) {
  return lanewise(b, x, nullptr, [&](llvm::Value* xs, llvm::Value*) {
    llvm::Type* d = b.getDoubleTy();
    llvm::Value* xd = b.CreateFPExt(xs, d);
    llvm::Value* half = llvm::ConstantFP::get(d, 0.5);
    llvm::Value* r = b.CreateIntrinsic(llvm::Intrinsic::nvvm_rsqrt_approx_ftz_d, {}, {xd});
    // Newton on 1 / sqrt(x): r += r * (0.5 - 0.5 * x * r * r), three times; then s = x * r and
    // one correction with the residual x - s * s.
    for (int i = 0; i < 3; ++i) {
      llvm::Value* e = fma(b, b.CreateFNeg(b.CreateFMul(half, xd)), b.CreateFMul(r, r), half);
      r = fma(b, r, e, r);
    }
    llvm::Value* s = b.CreateFMul(xd, r);
    llvm::Value* res = fma(b, b.CreateFNeg(s), s, xd);
    s = fma(b, res, b.CreateFMul(half, r), s);
    // Zeros, infinities and NaN are their own square roots; below zero it is NaN.
    llvm::Value* ok = finite_nonzero(b, xd);
    llvm::Value* special = b.CreateSelect(b.CreateFCmpOLT(xd, llvm::ConstantFP::get(d, 0.0)),
                                          llvm::ConstantFP::getNaN(d), xd);
    llvm::Value* result = b.CreateSelect(b.CreateAnd(ok, b.CreateFCmpOGT(xd, llvm::ConstantFP::get(d, 0.0))), s, special);
    return b.CreateFPTrunc(result, xs->getType());
  });
}

}  // namespace cutlet::backend
