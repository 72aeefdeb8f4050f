// FP8 conversions as inline PTX on pairs of lanes.
#include "fp8_convert.h"

#include <llvm/IR/InlineAsm.h>
#include <llvm/IR/Module.h>

#include <bit>
#include <cmath>
#include <vector>

#include "cutlet/error.h"
#include "cutlet/runtime/float8.h"
#include "vector_lanes.h"

namespace cutlet::backend {
namespace {

/// "e4m3x2" or "e5m2x2": the PTX name of a pair of `t`.
std::string pair_name(ir::Type t) {
  CUTLET_ASSERT(t.is_fp8(), "not an FP8 type");
  return t.scalar_kind() == ir::ScalarKind::F8E4M3 ? "e4m3x2" : "e5m2x2";
}

/// `lanes` as one value: a scalar when `like` is one, else a vector of their type.
llvm::Value* join(llvm::IRBuilder<>& b, const std::vector<llvm::Value*>& lanes, llvm::Value* like) {
  return like->getType()->isVectorTy() ? vector_of(b, lanes[0]->getType(), lanes) : lanes[0];
}

llvm::Value* asm_call(llvm::IRBuilder<>& b, llvm::Type* result, const std::string& text, const std::string& constraints,
                      std::vector<llvm::Value*> args) {
  std::vector<llvm::Type*> types;
  for (auto* a : args) types.push_back(a->getType());
  auto* fty = llvm::FunctionType::get(result, types, false);
  return b.CreateCall(llvm::InlineAsm::get(fty, text, constraints, /*hasSideEffects=*/false), args);
}

/// The host's conversion of each lane of `x` by host function `name` (host_math.h) from
/// `arg` to `result` values.
llvm::Value* host_lanes(llvm::IRBuilder<>& b, const char* name, llvm::Type* result, llvm::Type* arg, llvm::Value* x) {
  llvm::Module* m = b.GetInsertBlock()->getModule();
  llvm::FunctionCallee f = m->getOrInsertFunction(name, llvm::FunctionType::get(result, {arg}, false));
  std::vector<llvm::Value*> out;
  for (llvm::Value* lane : lanes_of(b, x)) out.push_back(b.CreateCall(f, {lane}));
  return join(b, out, x);
}

bool is_e4m3(ir::Type t) { return t.scalar_kind() == ir::ScalarKind::F8E4M3; }

}  // namespace

llvm::Value* fp8_to_f16(llvm::IRBuilder<>& b, ir::Type from, llvm::Value* x, bool host) {
  if (host) {
    // Every FP8 value is an f16 value: through f32 exactly.
    llvm::Value* f = host_lanes(b, is_e4m3(from) ? "cutlet_host_e4m3_to_f32" : "cutlet_host_e5m2_to_f32", b.getFloatTy(),
                                b.getInt8Ty(), x);
    return b.CreateFPTrunc(f, x->getType()->isVectorTy() ? llvm::VectorType::get(b.getHalfTy(), llvm::cast<llvm::VectorType>(x->getType()))
                                                         : b.getHalfTy());
  }
  const std::string text = "cvt.rn.f16x2." + pair_name(from) + " $0, $1;";
  const std::vector<llvm::Value*> in = lanes_of(b, x);
  std::vector<llvm::Value*> out;
  for (std::size_t i = 0; i < in.size(); i += 2) {
    // The lower byte of the pair becomes the lower half of the result.
    llvm::Value* pair = b.CreateZExt(in[i], b.getInt16Ty());
    if (i + 1 < in.size()) pair = b.CreateOr(pair, b.CreateShl(b.CreateZExt(in[i + 1], b.getInt16Ty()), 8));
    llvm::Value* r = asm_call(b, b.getInt32Ty(), text, "=r,h", {pair});
    out.push_back(b.CreateBitCast(b.CreateTrunc(r, b.getInt16Ty()), b.getHalfTy()));
    if (i + 1 < in.size()) out.push_back(b.CreateBitCast(b.CreateTrunc(b.CreateLShr(r, 16), b.getInt16Ty()), b.getHalfTy()));
  }
  return join(b, out, x);
}

llvm::Value* to_fp8(llvm::IRBuilder<>& b, ir::Type to, llvm::Value* x, bool host) {
  if (host) {
    // f16 to f32 is exact, so rounding the f32 to FP8 rounds the f16 once.
    llvm::Type* f32 = x->getType()->isVectorTy() ? llvm::VectorType::get(b.getFloatTy(), llvm::cast<llvm::VectorType>(x->getType()))
                                                 : b.getFloatTy();
    llvm::Value* wide = x->getType()->getScalarType()->isHalfTy() ? b.CreateFPExt(x, f32) : x;
    return host_lanes(b, is_e4m3(to) ? "cutlet_host_f32_to_e4m3" : "cutlet_host_f32_to_e5m2", b.getInt8Ty(), b.getFloatTy(), wide);
  }
  const std::vector<llvm::Value*> in = lanes_of(b, x);
  const bool from_f16 = in[0]->getType()->isHalfTy();
  CUTLET_ASSERT(from_f16 || in[0]->getType()->isFloatTy(), "FP8 conversions start from f32 or f16");
  std::vector<llvm::Value*> out;
  for (std::size_t i = 0; i < in.size(); i += 2) {
    llvm::Value* r;
    if (from_f16) {
      // The lower half becomes the lower byte.
      llvm::Value* pair = b.CreateZExt(b.CreateBitCast(in[i], b.getInt16Ty()), b.getInt32Ty());
      if (i + 1 < in.size())
        pair = b.CreateOr(pair, b.CreateShl(b.CreateZExt(b.CreateBitCast(in[i + 1], b.getInt16Ty()), b.getInt32Ty()), 16));
      r = asm_call(b, b.getInt16Ty(), "cvt.rn.satfinite." + pair_name(to) + ".f16x2 $0, $1;", "=h,r", {pair});
    } else {
      // The first operand becomes the upper byte, the second the lower one.
      llvm::Value* hi = i + 1 < in.size() ? in[i + 1] : llvm::ConstantFP::get(b.getFloatTy(), 0.0);
      r = asm_call(b, b.getInt16Ty(), "cvt.rn.satfinite." + pair_name(to) + ".f32 $0, $1, $2;", "=h,f,f", {hi, in[i]});
    }
    out.push_back(b.CreateTrunc(r, b.getInt8Ty()));
    if (i + 1 < in.size()) out.push_back(b.CreateTrunc(b.CreateLShr(r, 8), b.getInt8Ty()));
  }
  return join(b, out, x);
}

std::uint8_t fp8_constant_bits(ir::Type t, double v) {
  // Round to odd on the way to f32 (truncate, then set the last bit when inexact), so that
  // rounding that f32 to FP8 rounds v once.
  float f = static_cast<float>(v);
  if (static_cast<double>(f) != v && !std::isnan(v)) {
    if (std::fabs(static_cast<double>(f)) > std::fabs(v)) f = std::nextafter(f, 0.0f);
    f = std::bit_cast<float>(std::bit_cast<std::uint32_t>(f) | 1u);
  }
  return t.scalar_kind() == ir::ScalarKind::F8E4M3 ? float8_e4m3(f).bits : float8_e5m2(f).bits;
}

}  // namespace cutlet::backend
