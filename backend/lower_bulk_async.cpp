// Lowering of Hopper's asynchronous bulk copies and mbarriers (sm_90) to inline PTX: LLVM 19
// has no intrinsics for cp.async.bulk.tensor, mbarrier.arrive.expect_tx or try_wait.parity.
// Shared-memory operands travel as 32-bit shared-window addresses ("r"); a TMA descriptor is
// the generic address of its kernel parameter ("l"), which lower_to_llvm marks grid_constant
// so that the address is the parameter's own and not a local copy's.
#include <string>
#include <vector>

#include "cutlet/error.h"
#include "lowering.h"
#include "tile_support.h"

namespace cutlet::backend {
namespace {
using ir::Opcode;

llvm::Value* lower_mbarrier_init(LoweringContext& c, const ir::Instruction& inst) {
  const ir::ops::MbarrierInit op(inst);
  inline_ptx(c, c.b.getVoidTy(), "mbarrier.init.shared::cta.b64 [$0], $1;", "r,r",
             {shared_address(c, c.get(op.bar())), c.get(op.count())});
  return nullptr;
}

llvm::Value* lower_mbarrier_arrive(LoweringContext& c, const ir::Instruction& inst) {
  const ir::ops::MbarrierArrive op(inst);
  llvm::Value* bar = shared_address(c, c.get(op.bar()));
  if (op.tx_bytes() == ir::kNone)
    inline_ptx(c, c.b.getVoidTy(), "mbarrier.arrive.shared::cta.b64 _, [$0];", "r", {bar});
  else
    inline_ptx(c, c.b.getVoidTy(), "mbarrier.arrive.expect_tx.shared::cta.b64 _, [$0], $1;", "r,r",
               {bar, c.get(op.tx_bytes())});
  return nullptr;
}

llvm::Value* lower_mbarrier_try_wait(LoweringContext& c, const ir::Instruction& inst) {
  const ir::ops::MbarrierTryWait op(inst);
  llvm::Value* done = inline_ptx(c, c.b.getInt32Ty(),
                                 "{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [$1], $2;\n"
                                 " selp.u32 $0, 1, 0, p;\n}",
                                 "=r,r,r", {shared_address(c, c.get(op.bar())), c.get(op.phase())});
  return c.b.CreateICmpNE(done, c.b.getInt32(0));
}

/// "{$first, ..., $(first + n - 1)}": the coordinate operands, innermost dimension first (the
/// order TMA wants; the IR's is outermost first).
std::string coordinate_list(std::size_t first, std::size_t n) {
  std::string s = "{";
  for (std::size_t i = 0; i < n; ++i) s += (i ? ", $" : "$") + std::to_string(first + i);
  return s + "}";
}

/// The coordinate operands of a TMA op, innermost first.
std::vector<llvm::Value*> coordinates(LoweringContext& c, std::span<const ir::ValueId> coords) {
  std::vector<llvm::Value*> out;
  for (std::size_t i = coords.size(); i-- > 0;) out.push_back(c.get(coords[i]));
  return out;
}

llvm::Value* lower_tma_load(LoweringContext& c, const ir::Instruction& inst) {
  const ir::ops::TmaLoad op(inst);
  const auto coords = op.coords();
  const std::size_t rank = coords.size();
  std::vector<llvm::Value*> args = {shared_address(c, c.get(op.dst())), c.get(op.desc()),
                                    shared_address(c, c.get(op.bar()))};
  for (llvm::Value* v : coordinates(c, coords)) args.push_back(v);
  std::string cons = "r,l,r";
  for (std::size_t i = 0; i < rank; ++i) cons += ",r";
  inline_ptx(c, c.b.getVoidTy(),
             "cp.async.bulk.tensor." + std::to_string(rank) +
                 "d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [$0], [$1, " + coordinate_list(3, rank) +
                 "], [$2];",
             cons, args);
  return nullptr;
}

llvm::Value* lower_tma_store(LoweringContext& c, const ir::Instruction& inst) {
  const ir::ops::TmaStore op(inst);
  const auto coords = op.coords();
  const std::size_t rank = coords.size();
  std::vector<llvm::Value*> args = {c.get(op.desc()), shared_address(c, c.get(op.src()))};
  for (llvm::Value* v : coordinates(c, coords)) args.push_back(v);
  std::string cons = "l,r";
  for (std::size_t i = 0; i < rank; ++i) cons += ",r";
  inline_ptx(c, c.b.getVoidTy(),
             "cp.async.bulk.tensor." + std::to_string(rank) + "d.global.shared::cta.tile.bulk_group [$0, " +
                 coordinate_list(2, rank) + "], [$1];",
             cons, args);
  return nullptr;
}

llvm::Value* lower_bulk_commit(LoweringContext& c, const ir::Instruction&) {
  inline_ptx(c, c.b.getVoidTy(), "cp.async.bulk.commit_group;", "", {});
  return nullptr;
}

llvm::Value* lower_bulk_wait(LoweringContext& c, const ir::Instruction& inst) {
  const ir::ops::BulkWait op(inst);
  inline_ptx(c, c.b.getVoidTy(),
             std::string("cp.async.bulk.wait_group") + (op.reads_only() ? ".read " : " ") + std::to_string(op.pending()) +
                 ";",
             "", {});
  return nullptr;
}

llvm::Value* lower_fence_proxy_async(LoweringContext& c, const ir::Instruction&) {
  inline_ptx(c, c.b.getVoidTy(), "fence.proxy.async.shared::cta;", "", {});
  return nullptr;
}

}  // namespace

bool is_bulk_async(ir::Opcode op) {
  switch (op) {
    case Opcode::MbarrierInit:
    case Opcode::MbarrierArrive:
    case Opcode::MbarrierTryWait:
    case Opcode::TmaLoad:
    case Opcode::TmaStore:
    case Opcode::BulkCommit:
    case Opcode::BulkWait:
    case Opcode::FenceProxyAsync: return true;
    default: return false;
  }
}

void register_bulk_async(LoweringTable& t) {
  t.set(Opcode::MbarrierInit, lower_mbarrier_init);
  t.set(Opcode::MbarrierArrive, lower_mbarrier_arrive);
  t.set(Opcode::MbarrierTryWait, lower_mbarrier_try_wait);
  t.set(Opcode::TmaLoad, lower_tma_load);
  t.set(Opcode::TmaStore, lower_tma_store);
  t.set(Opcode::BulkCommit, lower_bulk_commit);
  t.set(Opcode::BulkWait, lower_bulk_wait);
  t.set(Opcode::FenceProxyAsync, lower_fence_proxy_async);
}

}  // namespace cutlet::backend
