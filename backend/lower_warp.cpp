// Lowering of warp-level operations: lane id, active mask, shuffles, votes, match, redux.
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/IntrinsicsNVPTX.h>

#include "lowering.h"

namespace cutlet::backend {
namespace {
using ir::Opcode;

/// Shuffles one 32-bit value (i32 or f32).
llvm::Value* shuffle32(LoweringContext& c, ir::ShuffleKind kind, llvm::Value* mask, llvm::Value* v, llvm::Value* lane) {
  bool is_float = v->getType()->isFloatTy();
  static constexpr llvm::Intrinsic::ID ints[] = {llvm::Intrinsic::nvvm_shfl_sync_idx_i32, llvm::Intrinsic::nvvm_shfl_sync_up_i32,
                                                 llvm::Intrinsic::nvvm_shfl_sync_down_i32, llvm::Intrinsic::nvvm_shfl_sync_bfly_i32};
  static constexpr llvm::Intrinsic::ID floats[] = {llvm::Intrinsic::nvvm_shfl_sync_idx_f32, llvm::Intrinsic::nvvm_shfl_sync_up_f32,
                                                   llvm::Intrinsic::nvvm_shfl_sync_down_f32, llvm::Intrinsic::nvvm_shfl_sync_bfly_f32};
  // The "c" operand packs the segment mask (0: whole warp) and the clamp lane: 31 for
  // idx/down/xor, 0 for up (as __shfl_*_sync with width 32).
  llvm::Value* clamp = c.b.getInt32(kind == ir::ShuffleKind::Up ? 0 : 0x1f);
  auto id = (is_float ? floats : ints)[static_cast<int>(kind)];
  return c.b.CreateIntrinsic(id, {}, {mask, v, lane, clamp});
}

llvm::Value* lower_shuffle(LoweringContext& c, const ir::Instruction& inst) {
  auto kind = static_cast<ir::ShuffleKind>(inst.int_attr());
  ir::Type t = c.fn.type_of(inst.operands[0]);
  llvm::Value* v = c.get(inst.operands[0]);
  llvm::Value* lane = c.get(inst.operands[1]);
  llvm::Value* mask = c.get(inst.operands[2]);
  if (t.bits() == 32) {
    if (t.is_float()) return shuffle32(c, kind, mask, v, lane);
    return shuffle32(c, kind, mask, v, lane);
  }
  // 64-bit values move as two 32-bit halves.
  auto* v2 = llvm::FixedVectorType::get(c.b.getInt32Ty(), 2);
  llvm::Value* halves = c.b.CreateBitCast(v, v2);
  llvm::Value* lo = shuffle32(c, kind, mask, c.b.CreateExtractElement(halves, std::uint64_t{0}), lane);
  llvm::Value* hi = shuffle32(c, kind, mask, c.b.CreateExtractElement(halves, std::uint64_t{1}), lane);
  llvm::Value* r = c.b.CreateInsertElement(llvm::PoisonValue::get(v2), lo, std::uint64_t{0});
  r = c.b.CreateInsertElement(r, hi, std::uint64_t{1});
  return c.b.CreateBitCast(r, v->getType());
}

llvm::Value* lower_vote(LoweringContext& c, const ir::Instruction& inst) {
  static constexpr llvm::Intrinsic::ID ids[] = {llvm::Intrinsic::nvvm_vote_all_sync, llvm::Intrinsic::nvvm_vote_any_sync,
                                                llvm::Intrinsic::nvvm_vote_ballot_sync};
  return c.b.CreateIntrinsic(ids[inst.int_attr()], {}, {c.get(inst.operands[1]), c.get(inst.operands[0])});
}

llvm::Value* lower_match(LoweringContext& c, const ir::Instruction& inst) {
  auto kind = static_cast<ir::MatchKind>(inst.int_attr());
  llvm::Value* v = c.get(inst.operands[0]);
  llvm::Value* mask = c.get(inst.operands[1]);
  bool wide = c.fn.type_of(inst.operands[0]).bits() == 64;
  if (v->getType()->isFloatingPointTy()) v = c.b.CreateBitCast(v, wide ? c.b.getInt64Ty() : c.b.getInt32Ty());
  if (kind == ir::MatchKind::Any)
    return c.b.CreateIntrinsic(wide ? llvm::Intrinsic::nvvm_match_any_sync_i64 : llvm::Intrinsic::nvvm_match_any_sync_i32,
                               {}, {mask, v});
  llvm::Value* r = c.b.CreateIntrinsic(
      wide ? llvm::Intrinsic::nvvm_match_all_sync_i64p : llvm::Intrinsic::nvvm_match_all_sync_i32p, {}, {mask, v});
  return c.b.CreateExtractValue(r, 0);
}

llvm::Value* lower_redux(LoweringContext& c, const ir::Instruction& inst) {
  auto kind = static_cast<ir::ReduxKind>(inst.int_attr());
  bool sgn = c.fn.type_of(inst.operands[0]).is_signed_integer();
  llvm::Intrinsic::ID id = llvm::Intrinsic::nvvm_redux_sync_add;
  switch (kind) {
    case ir::ReduxKind::Add: id = llvm::Intrinsic::nvvm_redux_sync_add; break;
    case ir::ReduxKind::Min: id = sgn ? llvm::Intrinsic::nvvm_redux_sync_min : llvm::Intrinsic::nvvm_redux_sync_umin; break;
    case ir::ReduxKind::Max: id = sgn ? llvm::Intrinsic::nvvm_redux_sync_max : llvm::Intrinsic::nvvm_redux_sync_umax; break;
    case ir::ReduxKind::And: id = llvm::Intrinsic::nvvm_redux_sync_and; break;
    case ir::ReduxKind::Or: id = llvm::Intrinsic::nvvm_redux_sync_or; break;
    case ir::ReduxKind::Xor: id = llvm::Intrinsic::nvvm_redux_sync_xor; break;
  }
  return c.b.CreateIntrinsic(id, {}, {c.get(inst.operands[0]), c.get(inst.operands[1])});
}

llvm::Value* lower_active_mask(LoweringContext& c, const ir::Instruction&) {
  return inline_ptx(c, c.b.getInt32Ty(), "activemask.b32 $0;", "=r", {});
}

}  // namespace

void register_warp(LoweringTable& t) {
  t.set(Opcode::Shuffle, lower_shuffle);
  t.set(Opcode::Vote, lower_vote);
  t.set(Opcode::Match, lower_match);
  t.set(Opcode::Redux, lower_redux);
  t.set(Opcode::ActiveMask, lower_active_mask);
}

}  // namespace cutlet::backend
