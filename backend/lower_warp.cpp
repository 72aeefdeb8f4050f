// Lowering of warp-level operations: lane id, active mask, shuffles, votes, match, redux.
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/IntrinsicsNVPTX.h>

#include "lowering.h"

namespace cutlet::backend {

namespace {

/// The host's warp collective `op` over `mask` with this lane's `value` (zero-extended) and
/// `arg`, truncated to `ret`.
llvm::Value* host_warp(LoweringContext& c, HostWarpOp op, llvm::Value* mask, llvm::Value* value, llvm::Type* ret,
                       llvm::Value* arg = nullptr) {
  auto& b = c.b;
  llvm::Value* r = host_call(c, "cutlet_host_warp", b.getInt64Ty(),
                             {b.getInt32(static_cast<std::uint32_t>(op)), mask, b.CreateZExt(value, b.getInt64Ty()),
                              arg ? arg : b.getInt32(0)});
  return b.CreateTrunc(r, ret);
}

}  // namespace

llvm::Value* warp_shuffle(LoweringContext& c, ir::ShuffleKind kind, llvm::Value* mask, llvm::Value* v, llvm::Value* lane) {
  auto& b = c.b;
  static constexpr llvm::Intrinsic::ID ids[] = {llvm::Intrinsic::nvvm_shfl_sync_idx_i32, llvm::Intrinsic::nvvm_shfl_sync_up_i32,
                                                llvm::Intrinsic::nvvm_shfl_sync_down_i32, llvm::Intrinsic::nvvm_shfl_sync_bfly_i32};
  // The "c" operand packs the segment mask (0: whole warp) and the clamp lane: 31 for
  // idx/down/xor, 0 for up (as __shfl_*_sync with width 32).
  llvm::Value* clamp = b.getInt32(kind == ir::ShuffleKind::Up ? 0 : 0x1f);
  static_assert(static_cast<int>(HostWarpOp::ShuffleXor) == static_cast<int>(ir::ShuffleKind::Xor),
                "HostWarpOp's shuffles are in ShuffleKind's order");
  auto shfl = [&](llvm::Value* x) -> llvm::Value* {
    if (c.options.host) return host_warp(c, static_cast<HostWarpOp>(kind), mask, x, b.getInt32Ty(), lane);
    return b.CreateIntrinsic(ids[static_cast<int>(kind)], {}, {mask, x, lane, clamp});
  };
  llvm::Type* t = v->getType();
  const unsigned bits = t->getPrimitiveSizeInBits();
  if (bits == 64) {
    // Two 32-bit halves.
    llvm::Value* x = b.CreateBitCast(v, b.getInt64Ty());
    llvm::Value* lo = shfl(b.CreateTrunc(x, b.getInt32Ty()));
    llvm::Value* hi = shfl(b.CreateTrunc(b.CreateLShr(x, 32), b.getInt32Ty()));
    return b.CreateBitCast(b.CreateOr(b.CreateShl(b.CreateZExt(hi, b.getInt64Ty()), 32), b.CreateZExt(lo, b.getInt64Ty())), t);
  }
  llvm::Type* it = b.getIntNTy(bits);
  llvm::Value* x = bits == 32 ? b.CreateBitCast(v, it) : b.CreateZExt(b.CreateBitCast(v, it), b.getInt32Ty());
  llvm::Value* r = shfl(x);
  return b.CreateBitCast(bits == 32 ? r : b.CreateTrunc(r, it), t);
}

HostWarpOp host_warp_op(const ir::Function& fn, const ir::Instruction& inst) {
  switch (inst.op) {
    case ir::Opcode::Vote:
      return static_cast<HostWarpOp>(static_cast<int>(HostWarpOp::VoteAll) + static_cast<int>(ir::ops::Vote(inst).kind()));
    case ir::Opcode::Match:
      return ir::ops::Match(inst).kind() == ir::MatchKind::Any ? HostWarpOp::MatchAny : HostWarpOp::MatchAll;
    default: break;
  }
  const ir::ops::Redux redux(inst);
  const bool sgn = fn.type_of(redux.value()).is_signed_integer();
  switch (redux.kind()) {
    case ir::ReduxKind::Add: return HostWarpOp::ReduxAdd;
    case ir::ReduxKind::Min: return sgn ? HostWarpOp::ReduxMinSigned : HostWarpOp::ReduxMinUnsigned;
    case ir::ReduxKind::Max: return sgn ? HostWarpOp::ReduxMaxSigned : HostWarpOp::ReduxMaxUnsigned;
    case ir::ReduxKind::And: return HostWarpOp::ReduxAnd;
    case ir::ReduxKind::Or: return HostWarpOp::ReduxOr;
    case ir::ReduxKind::Xor: break;
  }
  return HostWarpOp::ReduxXor;
}

namespace {
using ir::Opcode;

llvm::Value* lower_shuffle(LoweringContext& c, const ir::Instruction& inst) {
  const ir::ops::Shuffle shuffle(inst);
  return warp_shuffle(c, shuffle.kind(), c.get(shuffle.mask()), c.get(shuffle.value()), c.get(shuffle.lane()));
}

llvm::Value* lower_vote(LoweringContext& c, const ir::Instruction& inst) {
  static constexpr llvm::Intrinsic::ID ids[] = {llvm::Intrinsic::nvvm_vote_all_sync, llvm::Intrinsic::nvvm_vote_any_sync,
                                                llvm::Intrinsic::nvvm_vote_ballot_sync};
  const ir::ops::Vote vote(inst);
  if (c.options.host) {
    return host_warp(c, host_warp_op(c.fn, inst), c.get(vote.mask()), c.get(vote.pred()),
                     vote.kind() == ir::VoteKind::Ballot ? c.b.getInt32Ty() : c.b.getInt1Ty());
  }
  return c.b.CreateIntrinsic(ids[static_cast<int>(vote.kind())], {}, {c.get(vote.mask()), c.get(vote.pred())});
}

llvm::Value* lower_match(LoweringContext& c, const ir::Instruction& inst) {
  const ir::ops::Match match(inst);
  const ir::MatchKind kind = match.kind();
  llvm::Value* v = c.get(match.value());
  llvm::Value* mask = c.get(match.mask());
  bool wide = c.fn.type_of(match.value()).bits() == 64;
  if (v->getType()->isFloatingPointTy()) v = c.b.CreateBitCast(v, wide ? c.b.getInt64Ty() : c.b.getInt32Ty());
  if (c.options.host) return host_warp(c, host_warp_op(c.fn, inst), mask, v, c.b.getInt32Ty());
  if (kind == ir::MatchKind::Any)
    return c.b.CreateIntrinsic(wide ? llvm::Intrinsic::nvvm_match_any_sync_i64 : llvm::Intrinsic::nvvm_match_any_sync_i32,
                               {}, {mask, v});
  llvm::Value* r = c.b.CreateIntrinsic(
      wide ? llvm::Intrinsic::nvvm_match_all_sync_i64p : llvm::Intrinsic::nvvm_match_all_sync_i32p, {}, {mask, v});
  return c.b.CreateExtractValue(r, 0);
}

llvm::Value* lower_redux(LoweringContext& c, const ir::Instruction& inst) {
  const ir::ops::Redux redux(inst);
  const ir::ReduxKind kind = redux.kind();
  bool sgn = c.fn.type_of(redux.value()).is_signed_integer();
  llvm::Intrinsic::ID id = llvm::Intrinsic::nvvm_redux_sync_add;
  switch (kind) {
    case ir::ReduxKind::Add: id = llvm::Intrinsic::nvvm_redux_sync_add; break;
    case ir::ReduxKind::Min: id = sgn ? llvm::Intrinsic::nvvm_redux_sync_min : llvm::Intrinsic::nvvm_redux_sync_umin; break;
    case ir::ReduxKind::Max: id = sgn ? llvm::Intrinsic::nvvm_redux_sync_max : llvm::Intrinsic::nvvm_redux_sync_umax; break;
    case ir::ReduxKind::And: id = llvm::Intrinsic::nvvm_redux_sync_and; break;
    case ir::ReduxKind::Or: id = llvm::Intrinsic::nvvm_redux_sync_or; break;
    case ir::ReduxKind::Xor: id = llvm::Intrinsic::nvvm_redux_sync_xor; break;
  }
  if (c.options.host) {
    const HostWarpOp op = host_warp_op(c.fn, inst);
    return host_warp(c, op, c.get(redux.mask()), c.get(redux.value()), c.b.getInt32Ty());
  }
  return c.b.CreateIntrinsic(id, {}, {c.get(redux.value()), c.get(redux.mask())});
}

llvm::Value* lower_active_mask(LoweringContext& c, const ir::Instruction&) {
  if (c.options.host) return host_call(c, "cutlet_host_active_mask", c.b.getInt32Ty());
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
