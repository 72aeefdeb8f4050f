// Lowering of constants, index registers, arithmetic, comparisons, selects and casts.
#include <llvm/ADT/APFloat.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/IntrinsicsNVPTX.h>

#include "call_free_math.h"
#include "cutlet/error.h"
#include "fp8_convert.h"
#include "lowering.h"

namespace cutlet::backend {

llvm::Value* special_register(LoweringContext& c, ir::SpecialReg r) {
  static constexpr llvm::Intrinsic::ID ids[] = {
      llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x,    llvm::Intrinsic::nvvm_read_ptx_sreg_tid_y,
      llvm::Intrinsic::nvvm_read_ptx_sreg_tid_z,    llvm::Intrinsic::nvvm_read_ptx_sreg_ntid_x,
      llvm::Intrinsic::nvvm_read_ptx_sreg_ntid_y,   llvm::Intrinsic::nvvm_read_ptx_sreg_ntid_z,
      llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x,  llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_y,
      llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_z,  llvm::Intrinsic::nvvm_read_ptx_sreg_nctaid_x,
      llvm::Intrinsic::nvvm_read_ptx_sreg_nctaid_y, llvm::Intrinsic::nvvm_read_ptx_sreg_nctaid_z,
      llvm::Intrinsic::nvvm_read_ptx_sreg_laneid,
  };
  if (c.options.host) {
    // A kernel reads its thread's state parameter; a device function asks the block.
    llvm::Type* i32 = c.b.getInt32Ty();
    if (!c.host_thread_state) return host_call(c, "cutlet_host_special", i32, {c.b.getInt32(static_cast<std::uint32_t>(r))});
    return c.b.CreateLoad(i32, c.b.CreateConstInBoundsGEP1_32(i32, c.host_thread_state, static_cast<unsigned>(r)));
  }
  return c.b.CreateIntrinsic(ids[static_cast<int>(r)], {}, {});
}

namespace {
using ir::Opcode;

llvm::Value* lower_const(LoweringContext& c, const ir::Instruction& inst) {
  ir::Type t = c.fn.type_of(inst.results[0]);
  llvm::Type* lt = llvm_type(c.ctx, t);
  if (t.is_fp8()) return llvm::ConstantInt::get(lt, fp8_constant_bits(t, std::get<double>(ir::ops::Const(inst).value())));
  if (t.is_float()) {
    llvm::APFloat v(std::get<double>(ir::ops::Const(inst).value()));
    bool lost = false;
    v.convert(lt->getFltSemantics(), llvm::APFloat::rmNearestTiesToEven, &lost);
    return llvm::ConstantFP::get(c.ctx, v);
  }
  return llvm::ConstantInt::get(lt, static_cast<std::uint64_t>(std::get<std::int64_t>(ir::ops::Const(inst).value())),
                                t.is_signed_integer());
}

llvm::Value* lower_special(LoweringContext& c, const ir::Instruction& inst) { return special_register(c, ir::ops::Special(inst).reg()); }

/// `lt`'s shape (scalar or vector) with elements `e`.
llvm::Type* same_shape(llvm::Type* lt, llvm::Type* e) {
  if (auto* vt = llvm::dyn_cast<llvm::VectorType>(lt)) return llvm::VectorType::get(e, vt);
  return e;
}

/// f32 lanes `a` rounded to bf16 in integer arithmetic, as the GPU's cvt.rn.bf16.f32 rounds:
/// to nearest even, subnormals kept, NaN kept NaN. The host's own conversion
/// (VCVTNEPS2BF16 where the CPU has it) flushes subnormals to zero.
llvm::Value* host_f32_to_bf16(llvm::IRBuilder<>& B, llvm::Value* a, llvm::Type* lt) {
  llvm::Type* i32 = same_shape(a->getType(), B.getInt32Ty());
  llvm::Value* bits = B.CreateBitCast(a, i32);
  auto k = [&](std::uint32_t v) { return llvm::ConstantInt::get(i32, v); };
  llvm::Value* lsb = B.CreateAnd(B.CreateLShr(bits, k(16)), k(1));
  llvm::Value* rounded = B.CreateAdd(B.CreateAdd(bits, k(0x7fff)), lsb);
  llvm::Value* nan = B.CreateFCmpUNO(a, a);
  llvm::Value* r = B.CreateSelect(nan, B.CreateOr(bits, k(0x400000)), rounded);
  llvm::Value* half_bits = B.CreateTrunc(B.CreateLShr(r, k(16)), same_shape(a->getType(), B.getInt16Ty()));
  return B.CreateBitCast(half_bits, lt);
}

llvm::Value* lower_binary(LoweringContext& c, const ir::Instruction& inst) {
  ir::Type t = c.fn.type_of(inst.operands[0]).scalar_type();  // vectors work lane by lane
  llvm::Value* a = c.get(inst.operands[0]);
  llvm::Value* b = c.get(inst.operands[1]);
  bool fp = t.is_float();
  bool sgn = t.is_signed_integer();
  auto& B = c.b;
  if (c.options.host && t == ir::Type::bf16() &&
      (inst.op == Opcode::Add || inst.op == Opcode::Sub || inst.op == Opcode::Mul || inst.op == Opcode::Div ||
       inst.op == Opcode::Min || inst.op == Opcode::Max)) {
    // In f32, rounded once to bf16 as the GPU rounds (f32 holds the exact sum or product of two
    // bf16s, and its quotient rounded to f32 rounds to the right bf16).
    llvm::Type* f32 = same_shape(a->getType(), B.getFloatTy());
    llvm::Value* x = B.CreateFPExt(a, f32);
    llvm::Value* y = B.CreateFPExt(b, f32);
    llvm::Value* r = inst.op == Opcode::Add ? B.CreateFAdd(x, y)
                     : inst.op == Opcode::Sub ? B.CreateFSub(x, y)
                     : inst.op == Opcode::Mul ? B.CreateFMul(x, y)
                     : inst.op == Opcode::Div ? B.CreateFDiv(x, y)
                     : inst.op == Opcode::Min ? B.CreateMinNum(x, y)
                                              : B.CreateMaxNum(x, y);
    return host_f32_to_bf16(B, r, a->getType());
  }
  switch (inst.op) {
    case Opcode::Add: return fp ? B.CreateFAdd(a, b) : B.CreateAdd(a, b, "", false, sgn);
    case Opcode::Sub: return fp ? B.CreateFSub(a, b) : B.CreateSub(a, b, "", false, sgn);
    case Opcode::Mul: return fp ? B.CreateFMul(a, b) : B.CreateMul(a, b, "", false, sgn);
    case Opcode::Div:
      // A function on wgmma divides f32 without div.rn's subroutine (call_free_math.h).
      if (fp && t == ir::Type::f32() && c.fn.tile_wgmma()) return call_free_fdiv(B, a, b);
      return fp ? B.CreateFDiv(a, b) : sgn ? B.CreateSDiv(a, b) : B.CreateUDiv(a, b);
    case Opcode::Rem: return fp ? B.CreateFRem(a, b) : sgn ? B.CreateSRem(a, b) : B.CreateURem(a, b);
    case Opcode::Min:
      return fp ? B.CreateMinNum(a, b)
                : B.CreateBinaryIntrinsic(sgn ? llvm::Intrinsic::smin : llvm::Intrinsic::umin, a, b);
    case Opcode::Max:
      return fp ? B.CreateMaxNum(a, b)
                : B.CreateBinaryIntrinsic(sgn ? llvm::Intrinsic::smax : llvm::Intrinsic::umax, a, b);
    case Opcode::And: return B.CreateAnd(a, b);
    case Opcode::Or: return B.CreateOr(a, b);
    case Opcode::Xor: return B.CreateXor(a, b);
    case Opcode::Shl: return B.CreateShl(a, b);
    case Opcode::Shr: return sgn ? B.CreateAShr(a, b) : B.CreateLShr(a, b);
    default: break;
  }
  CUTLET_ASSERT(false, "not a binary op");
}

llvm::Value* lower_unary(LoweringContext& c, const ir::Instruction& inst) {
  const ir::ValueId x = inst.op == Opcode::Neg ? ir::ops::Neg(inst).x() : ir::ops::Not(inst).x();
  ir::Type t = c.fn.type_of(x).scalar_type();
  llvm::Value* a = c.get(x);
  if (inst.op == Opcode::Neg) return t.is_float() ? c.b.CreateFNeg(a) : c.b.CreateNeg(a);
  return c.b.CreateNot(a);
}

llvm::Value* lower_cmp(LoweringContext& c, const ir::Instruction& inst) {
  using P = llvm::CmpInst::Predicate;
  const ir::ops::Cmp cmp(inst);
  ir::Type t = c.fn.type_of(cmp.lhs()).scalar_type();  // tiles compare register by register
  llvm::Value* a = c.get(cmp.lhs());
  llvm::Value* b = c.get(cmp.rhs());
  const ir::Predicate p = cmp.predicate();
  if (t.is_float()) {
    static constexpr P fp[] = {P::FCMP_OEQ, P::FCMP_UNE, P::FCMP_OLT, P::FCMP_OLE, P::FCMP_OGT, P::FCMP_OGE};
    return c.b.CreateFCmp(fp[static_cast<int>(p)], a, b);
  }
  bool sgn = t.is_signed_integer();
  static constexpr P si[] = {P::ICMP_EQ, P::ICMP_NE, P::ICMP_SLT, P::ICMP_SLE, P::ICMP_SGT, P::ICMP_SGE};
  static constexpr P ui[] = {P::ICMP_EQ, P::ICMP_NE, P::ICMP_ULT, P::ICMP_ULE, P::ICMP_UGT, P::ICMP_UGE};
  return c.b.CreateICmp((sgn ? si : ui)[static_cast<int>(p)], a, b);
}

llvm::Value* lower_select(LoweringContext& c, const ir::Instruction& inst) {
  const ir::ops::Select select(inst);
  return c.b.CreateSelect(c.get(select.cond()), c.get(select.if_true()), c.get(select.if_false()));
}

/// `a` (scalar or vector lanes of `from`) converted to `to`, in LLVM type `lt`; no FP8.
llvm::Value* convert(llvm::IRBuilder<>& B, ir::Type from, ir::Type to, llvm::Value* a, llvm::Type* lt) {
  if (to.is_bool()) {
    if (from.is_float()) return B.CreateFCmpUNE(a, llvm::ConstantFP::get(a->getType(), 0.0));
    return B.CreateICmpNE(a, llvm::ConstantInt::get(a->getType(), 0));
  }
  bool from_signed = from.is_signed_integer();
  if (!from.is_float() && !to.is_float()) return B.CreateIntCast(a, lt, from_signed);
  if (!from.is_float()) return from_signed ? B.CreateSIToFP(a, lt) : B.CreateUIToFP(a, lt);
  if (!to.is_float()) return to.is_signed_integer() ? B.CreateFPToSI(a, lt) : B.CreateFPToUI(a, lt);
  if (from == to) return a;
  // f16 <-> bf16 have one width: through f32 (exact), then rounded once (CreateFPCast would
  // reinterpret the bits).
  if (from.bits() == to.bits()) {
    llvm::Type* f32 = a->getType()->isVectorTy()
                          ? static_cast<llvm::Type*>(llvm::VectorType::get(B.getFloatTy(), llvm::cast<llvm::VectorType>(a->getType())))
                          : B.getFloatTy();
    return B.CreateFPTrunc(B.CreateFPExt(a, f32), lt);
  }
  return B.CreateFPCast(a, lt);
}


/// Casts from or to FP8: from FP8 through f16 (which holds every FP8 value), to FP8 from f16
/// or from f32 (which holds every integer below 2^24 exactly, and every larger one saturates).
llvm::Value* convert_fp8(llvm::IRBuilder<>& B, ir::Type from, ir::Type to, llvm::Value* a, llvm::Type* lt, bool host) {
  if (from == to) return a;
  if (from.is_fp8()) {
    llvm::Value* h = fp8_to_f16(B, from, a, host);
    if (to.is_fp8()) return to_fp8(B, to, h, host);
    return convert(B, ir::Type::f16(), to, h, lt);
  }
  const ir::Type via = from == ir::Type::f16() ? ir::Type::f16() : ir::Type::f32();
  llvm::Value* wide = convert(B, from, via, a, same_shape(lt, via == ir::Type::f16() ? B.getHalfTy() : B.getFloatTy()));
  return to_fp8(B, to, wide, host);
}


llvm::Value* lower_cast(LoweringContext& c, const ir::Instruction& inst) {
  const ir::ValueId x = ir::ops::Cast(inst).x();
  ir::Type from = c.fn.type_of(x).scalar_type();
  ir::Type to = c.fn.type_of(inst.results[0]).scalar_type();
  if (from.is_fp8() || to.is_fp8()) return convert_fp8(c.b, from, to, c.get(x), c.type_of(inst.results[0]), c.options.host);
  if (c.options.host && to == ir::Type::bf16() && from.is_float() && from != to) {
    llvm::Type* lt = c.type_of(inst.results[0]);
    llvm::Value* f = convert(c.b, from, ir::Type::f32(), c.get(x), same_shape(lt, c.b.getFloatTy()));
    return host_f32_to_bf16(c.b, f, lt);
  }
  return convert(c.b, from, to, c.get(x), c.type_of(inst.results[0]));
}

llvm::Value* lower_bitcast(LoweringContext& c, const ir::Instruction& inst) {
  return c.b.CreateBitCast(c.get(ir::ops::Bitcast(inst).x()), c.type_of(inst.results[0]));
}

}  // namespace

void register_elementwise(LoweringTable& t) {
  t.set(Opcode::Const, lower_const);
  t.set(Opcode::Special, lower_special);
  for (Opcode op : {Opcode::Add, Opcode::Sub, Opcode::Mul, Opcode::Div, Opcode::Rem, Opcode::Min, Opcode::Max,
                    Opcode::And, Opcode::Or, Opcode::Xor, Opcode::Shl, Opcode::Shr})
    t.set(op, lower_binary);
  t.set(Opcode::Neg, lower_unary);
  t.set(Opcode::Not, lower_unary);
  t.set(Opcode::Cmp, lower_cmp);
  t.set(Opcode::Select, lower_select);
  t.set(Opcode::Cast, lower_cast);
  t.set(Opcode::Bitcast, lower_bitcast);
}

}  // namespace cutlet::backend
