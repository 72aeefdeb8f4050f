// Lowering of pointer arithmetic, loads, stores, local variables and barriers.
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/InlineAsm.h>
#include <llvm/IR/IntrinsicsNVPTX.h>

#include "cutlet/error.h"
#include "host_check.h"
#include "lowering.h"

namespace cutlet::backend {

// Dynamic shared memory: one external, unsized array per module, sized by the launch. On the
// host, the running block's shared memory, asked for once per function.
llvm::Value* dynamic_shared_base(LoweringContext& c) {
  if (c.options.host) {
    if (!c.host_shared) {
      auto callee = c.module.getOrInsertFunction("cutlet_host_shared", llvm::FunctionType::get(c.entry.getPtrTy(), false));
      c.host_shared = c.entry.CreateAddrSpaceCast(c.entry.CreateCall(callee), c.entry.getPtrTy(3));
    }
    return c.host_shared;
  }
  const char* name = "cutlet_dynamic_shared";
  if (auto* g = c.module.getNamedGlobal(name)) return g;
  auto* at = llvm::ArrayType::get(llvm::Type::getInt8Ty(c.ctx), 0);
  auto* g = new llvm::GlobalVariable(c.module, at, false, llvm::GlobalValue::ExternalLinkage, nullptr, name, nullptr,
                                     llvm::GlobalValue::NotThreadLocal, 3);
  // Swizzled tiles (wgmma's operands) need their buffers where the 1024-byte swizzle pattern starts.
  g->setAlignment(llvm::Align(c.fn.tile_wgmma() ? 1024 : 16));
  return g;
}

std::int64_t take_shared(LoweringContext& c, std::int64_t bytes) {
  const ir::Instruction* op = c.current;
  CUTLET_ASSERT(op != nullptr, "shared memory taken outside of an op");
  if (c.shared_taken >= op->shared.size() || op->shared[c.shared_taken].bytes != bytes)
    throw InternalError("cutlet internal error: the lowering of " + std::string(ir::mnemonic(op->op)) + " in kernel '" +
                        c.fn.name() + "' needs a shared-memory buffer of " + std::to_string(bytes) + " bytes that allocate-shared " +
                        "did not place (it placed " + std::to_string(op->shared.size()) + " for it); this is a bug in cutlet, " +
                        "please report it");
  return op->shared[c.shared_taken++].offset;
}

llvm::Value* checked_access(LoweringContext& c, const ir::Instruction& inst, llvm::Value* ptr, std::uint64_t bytes,
                            bool write, bool atomic, const std::function<llvm::Value*()>& access) {
  const auto* pointer = llvm::dyn_cast<llvm::PointerType>(ptr->getType());
  // Local variables (address space 0 here) are the thread's own; device functions are not checked.
  if (!c.options.host || !c.options.checked || !c.host_thread_state || !pointer || pointer->getAddressSpace() == 0)
    return access();
  auto& b = c.b;
  const bool shared = pointer->getAddressSpace() == 3;
  const std::string where =
      inst.loc.known() ? std::string(inst.loc.file) + ":" + std::to_string(inst.loc.line) : "kernel '" + c.fn.name() + "'";
  const std::uint32_t flags = (write ? kHostAccessWrite : 0u) | (shared ? kHostAccessShared : 0u) | (atomic ? kHostAccessAtomic : 0u);
  llvm::Value* ok = host_call(c, "cutlet_host_check", b.getInt1Ty(),
                              {b.CreateAddrSpaceCast(ptr, b.getPtrTy()), b.getInt64(bytes), b.getInt32(flags),
                               b.CreateGlobalStringPtr(where, "access_site"), c.host_thread_state});
  auto* go = llvm::BasicBlock::Create(c.ctx, "access", c.kernel);
  auto* skip = llvm::BasicBlock::Create(c.ctx, "access.refused", c.kernel);
  auto* done = llvm::BasicBlock::Create(c.ctx, "access.done", c.kernel);
  b.CreateCondBr(ok, go, skip);
  b.SetInsertPoint(go);
  llvm::Value* r = access();
  llvm::BasicBlock* went = b.GetInsertBlock();
  b.CreateBr(done);
  b.SetInsertPoint(skip);
  b.CreateBr(done);
  b.SetInsertPoint(done);
  if (!r) return nullptr;
  llvm::PHINode* phi = b.CreatePHI(r->getType(), 2);
  phi->addIncoming(r, went);
  phi->addIncoming(llvm::Constant::getNullValue(r->getType()), skip);
  return phi;
}

namespace {
using ir::Opcode;


llvm::Value* lower_ptr_add(LoweringContext& c, const ir::Instruction& inst) {
  const ir::ops::PtrAdd add(inst);
  ir::Type pt = c.fn.type_of(add.base());
  ir::Type it = c.fn.type_of(add.offset());
  llvm::Value* idx = c.get(add.offset());
  if (it.bits() < 64) idx = c.b.CreateIntCast(idx, c.b.getInt64Ty(), it.is_signed_integer());
  return c.b.CreateInBoundsGEP(llvm_type(c.ctx, pt.element()), c.get(add.base()), idx);
}

ir::CacheHint hint_of(const ir::Instruction& inst) {
  return inst.op == Opcode::Load ? ir::ops::Load(inst).hint() : ir::ops::VecLoad(inst).hint();
}

/// A global load with a cache operator other than the default or read-only path, as inline
/// PTX (LLVM has no way to ask for .cs/.lu/.cg).
llvm::Value* hinted_load_asm(LoweringContext& c, ir::CacheHint hint, ir::Type elem, int lanes, llvm::Value* ptr) {
  // ld's vectors have at most 4 lanes: 8 lanes of 1 or 2 bytes load as 2 or 4 words.
  if (lanes > 4) {
    const int words = lanes * static_cast<int>(elem.bits()) / 32;
    llvm::Value* w = hinted_load_asm(c, hint, ir::Type::u32(), words, ptr);
    return c.b.CreateBitCast(w, llvm::FixedVectorType::get(llvm_type(c.ctx, elem), lanes));
  }
  const char* op = hint == ir::CacheHint::Streaming ? "cs" : hint == ir::CacheHint::LastUse ? "lu" : "cg";
  // ld has no .f16 or .bf16 type: 16-bit floats load as their bits.
  const bool half_float = elem.scalar_kind() == ir::ScalarKind::F16 || elem.scalar_kind() == ir::ScalarKind::BF16;
  std::string ty = half_float ? "b16" : ptx_type(elem);
  std::string reg = ptx_constraint(elem);
  std::string text = std::string("ld.global.") + op + (lanes > 1 ? ".v" + std::to_string(lanes) : "") + "." + ty + " ";
  std::string cons;
  if (lanes == 1) {
    text += "$0, [$1];";
    cons = "=" + reg + ",l";
  } else {
    text += "{";
    for (int i = 0; i < lanes; ++i) {
      text += (i ? ", $" : "$") + std::to_string(i);
      cons += "=" + reg + ",";
    }
    text += "}, [$" + std::to_string(lanes) + "];";
    cons += "l";
  }
  llvm::Type* et = llvm_type(c.ctx, elem);
  llvm::Type* ret = et;
  if (lanes > 1) ret = llvm::StructType::get(c.ctx, std::vector<llvm::Type*>(lanes, et));
  auto* fty = llvm::FunctionType::get(ret, {ptr->getType()}, false);
  llvm::Value* r = c.b.CreateCall(llvm::InlineAsm::get(fty, text, cons + ",~{memory}", true), {ptr});
  if (lanes == 1) return r;
  llvm::Value* v = llvm::PoisonValue::get(llvm::FixedVectorType::get(et, lanes));
  for (int i = 0; i < lanes; ++i) v = c.b.CreateInsertElement(v, c.b.CreateExtractValue(r, i), i);
  return v;
}

llvm::Value* plain_or_hinted_load(LoweringContext& c, const ir::Instruction& inst, ir::Type elem, int lanes) {
  llvm::Value* ptr = c.get(inst.op == Opcode::Load ? ir::ops::Load(inst).ptr() : ir::ops::VecLoad(inst).ptr());
  ir::CacheHint hint = hint_of(inst);
  // The host has no cache operators: there a hinted load is a volatile one, which reads memory
  // each time as ld.global.cg reads the L2 (look-backs poll flags other blocks write).
  if (hint != ir::CacheHint::Default && hint != ir::CacheHint::ReadOnly && !c.options.host)
    return hinted_load_asm(c, hint, elem, lanes, ptr);
  llvm::Type* t = llvm_type(c.ctx, elem);
  if (lanes > 1) t = llvm::FixedVectorType::get(t, lanes);
  auto align = lanes > 1 ? llvm::Align(elem.bits() / 8 * lanes) : natural_align(elem);
  auto* load = c.b.CreateAlignedLoad(t, ptr, align);
  if (c.options.host && hint != ir::CacheHint::Default && hint != ir::CacheHint::ReadOnly) load->setVolatile(true);
  // The NVPTX backend selects ld.global.nc for invariant loads from global memory.
  if (hint == ir::CacheHint::ReadOnly) load->setMetadata(llvm::LLVMContext::MD_invariant_load, llvm::MDNode::get(c.ctx, {}));
  return load;
}

llvm::Value* lower_load(LoweringContext& c, const ir::Instruction& inst) {
  const ir::Type t = c.fn.type_of(inst.results[0]);
  return checked_access(c, inst, c.get(ir::ops::Load(inst).ptr()), static_cast<std::uint64_t>(t.bits() + 7) / 8, false,
                        false, [&] { return plain_or_hinted_load(c, inst, t, 1); });
}

llvm::Value* lower_vector_load(LoweringContext& c, const ir::Instruction& inst) {
  ir::Type v = c.fn.type_of(inst.results[0]);
  return checked_access(c, inst, c.get(ir::ops::VecLoad(inst).ptr()), static_cast<std::uint64_t>(v.bits()) / 8, false, false,
                        [&] { return plain_or_hinted_load(c, inst, v.element(), v.lanes()); });
}

llvm::Value* lower_vector_store(LoweringContext& c, const ir::Instruction& inst) {
  const ir::ops::VecStore store(inst);
  ir::Type v = c.fn.type_of(store.value());
  return checked_access(c, inst, c.get(store.ptr()), static_cast<std::uint64_t>(v.bits()) / 8, true, false, [&] {
    c.b.CreateAlignedStore(c.get(store.value()), c.get(store.ptr()), llvm::Align(v.bits() / 8));
    return nullptr;
  });
}

// A kernel's shared arrays are in its arena (allocate-shared placed them); a device
// function's are module globals in address space 3, one per op.
llvm::Value* lower_shared_alloc(LoweringContext& c, const ir::Instruction& inst) {
  if (!inst.shared.empty())
    return c.b.CreateInBoundsGEP(c.b.getInt8Ty(), dynamic_shared_base(c),
                                 c.b.getInt32(static_cast<std::uint32_t>(take_shared(c, inst.shared[0].bytes))));
  ir::Type elem = c.fn.type_of(inst.results[0]).element();
  auto* at = llvm::ArrayType::get(llvm_type(c.ctx, elem), static_cast<std::uint64_t>(ir::ops::SharedAlloc(inst).count()));
  auto* g = new llvm::GlobalVariable(c.module, at, false, llvm::GlobalValue::InternalLinkage, llvm::UndefValue::get(at),
                                     "shared", nullptr, llvm::GlobalValue::NotThreadLocal, 3);
  g->setAlignment(llvm::Align(16));
  return g;
}

// The user's dynamic shared memory: after what the kernel reserved for itself (offset
// patched in once the whole kernel is lowered, see lower_to_llvm.cpp).
llvm::Value* lower_dynamic_shared(LoweringContext& c, const ir::Instruction&) {
  auto* gep = llvm::GetElementPtrInst::CreateInBounds(c.b.getInt8Ty(), dynamic_shared_base(c), {c.b.getInt32(0)});
  c.b.Insert(gep);
  c.user_dynamic_shared.push_back(gep);
  return gep;
}

llvm::Value* lower_store(LoweringContext& c, const ir::Instruction& inst) {
  const ir::ops::Store store(inst);
  ir::Type elem = c.fn.type_of(store.value());
  return checked_access(c, inst, c.get(store.ptr()), static_cast<std::uint64_t>(elem.bits() + 7) / 8, true, false, [&] {
    c.b.CreateAlignedStore(c.get(store.value()), c.get(store.ptr()), natural_align(elem));
    return nullptr;
  });
}


// Local variables become allocas at the top of the entry block in the generic address
// space, as clang emits them for CUDA: SROA/mem2reg promote them to registers, and the
// NVPTX backend places what remains in local memory.
llvm::Value* lower_alloca(LoweringContext& c, const ir::Instruction& inst) {
  ir::Type elem = c.fn.type_of(inst.results[0]).element();
  const std::int64_t count = ir::ops::Alloca(inst).count();
  llvm::Type* t = llvm_type(c.ctx, elem);
  if (count > 1) t = llvm::ArrayType::get(t, static_cast<std::uint64_t>(count));
  auto* a = c.entry.CreateAlloca(t);
  a->setAlignment(count > 1 ? llvm::Align(16) : natural_align(elem));
  return a;
}

/// A field of a struct parameter: a load from the byval parameter, which NVPTX turns into
/// ld.param. A bool field is a byte.
llvm::Value* lower_field(LoweringContext& c, const ir::Instruction& inst) {
  ir::Type t = c.fn.type_of(inst.results[0]);
  const ir::ops::Field field(inst);
  llvm::Value* at = c.b.CreateConstInBoundsGEP1_64(c.b.getInt8Ty(), c.get(field.record()),
                                                   static_cast<std::uint64_t>(field.offset()));
  if (t.is_bool()) return c.b.CreateICmpNE(c.b.CreateAlignedLoad(c.b.getInt8Ty(), at, llvm::Align(1)), c.b.getInt8(0));
  return c.b.CreateAlignedLoad(llvm_type(c.ctx, t), at, t.is_pointer() ? llvm::Align(8) : natural_align(t));
}

}  // namespace

void register_memory(LoweringTable& t) {
  t.set(Opcode::PtrAdd, lower_ptr_add);
  t.set(Opcode::Load, lower_load);
  t.set(Opcode::Field, lower_field);
  t.set(Opcode::Store, lower_store);
  t.set(Opcode::Alloca, lower_alloca);
  t.set(Opcode::VecLoad, lower_vector_load);
  t.set(Opcode::VecStore, lower_vector_store);
  t.set(Opcode::SharedAlloc, lower_shared_alloc);
  t.set(Opcode::DynamicShared, lower_dynamic_shared);
}

}  // namespace cutlet::backend
