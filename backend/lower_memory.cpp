// Lowering of pointer arithmetic, loads, stores, local variables and barriers.
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/IntrinsicsNVPTX.h>

#include "lowering.h"

namespace cutlet::backend {
namespace {
using ir::Opcode;

llvm::Align natural_align(ir::Type elem) { return llvm::Align(elem.bits() < 8 ? 1 : elem.bits() / 8); }

llvm::Value* lower_ptr_add(LoweringContext& c, const ir::Instruction& inst) {
  ir::Type pt = c.fn.type_of(inst.operands[0]);
  ir::Type it = c.fn.type_of(inst.operands[1]);
  llvm::Value* idx = c.get(inst.operands[1]);
  if (it.bits() < 64) idx = c.b.CreateIntCast(idx, c.b.getInt64Ty(), it.is_signed_integer());
  return c.b.CreateInBoundsGEP(llvm_type(c.ctx, pt.element()), c.get(inst.operands[0]), idx);
}

llvm::Value* lower_load(LoweringContext& c, const ir::Instruction& inst) {
  ir::Type elem = c.fn.type_of(inst.results[0]);
  return c.b.CreateAlignedLoad(llvm_type(c.ctx, elem), c.get(inst.operands[0]), natural_align(elem));
}

llvm::Value* lower_store(LoweringContext& c, const ir::Instruction& inst) {
  ir::Type elem = c.fn.type_of(inst.operands[1]);
  c.b.CreateAlignedStore(c.get(inst.operands[1]), c.get(inst.operands[0]), natural_align(elem));
  return nullptr;
}

// Local variables become allocas at the top of the entry block in the generic address
// space, as clang emits them for CUDA: SROA/mem2reg promote them to registers, and the
// NVPTX backend places what remains in local memory.
llvm::Value* lower_alloca(LoweringContext& c, const ir::Instruction& inst) {
  ir::Type elem = c.fn.type_of(inst.results[0]).element();
  auto* a = c.entry.CreateAlloca(llvm_type(c.ctx, elem));
  a->setAlignment(natural_align(elem));
  return a;
}

llvm::Value* lower_barrier(LoweringContext& c, const ir::Instruction&) {
  c.b.CreateIntrinsic(llvm::Intrinsic::nvvm_barrier0, {}, {});
  return nullptr;
}

}  // namespace

void register_memory(LoweringTable& t) {
  t.set(Opcode::PtrAdd, lower_ptr_add);
  t.set(Opcode::Load, lower_load);
  t.set(Opcode::Store, lower_store);
  t.set(Opcode::Alloca, lower_alloca);
  t.set(Opcode::Barrier, lower_barrier);
}

}  // namespace cutlet::backend
