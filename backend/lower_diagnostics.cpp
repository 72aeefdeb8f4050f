// Lowering of device-side printf (vprintf) and assert (__assertfail).
#include "cutlet/error.h"
#include "host_phases.h"
#include "lowering.h"

namespace cutlet::backend {
namespace {

/// A constant NUL-terminated string in global memory, as a generic pointer.
llvm::Value* global_string(LoweringContext& c, const std::string& text, const char* name) {
  auto* init = llvm::ConstantDataArray::getString(c.ctx, text, true);
  auto* g = new llvm::GlobalVariable(c.module, init->getType(), true, llvm::GlobalValue::PrivateLinkage, init, name,
                                     nullptr, llvm::GlobalValue::NotThreadLocal, 1);
  g->setUnnamedAddr(llvm::GlobalValue::UnnamedAddr::Global);
  return c.b.CreateAddrSpaceCast(g, llvm::PointerType::get(c.ctx, 0));
}

llvm::Value* lower_print(LoweringContext& c, const ir::Instruction& inst) {
  // Arguments follow C's default promotions: f32 -> f64, integers narrower than 32 bits -> i32.
  std::vector<llvm::Value*> vals;
  for (auto v : inst.operands) {
    ir::Type t = c.fn.type_of(v);
    llvm::Value* x = c.get(v);
    if (t.is_float() && t.bits() < 64) x = c.b.CreateFPExt(x, c.b.getDoubleTy());
    else if (!t.is_pointer() && !t.is_float() && t.bits() < 32) x = c.b.CreateIntCast(x, c.b.getInt32Ty(), t.is_signed_integer());
    vals.push_back(x);
  }
  llvm::Value* args = llvm::ConstantPointerNull::get(llvm::PointerType::get(c.ctx, 0));
  if (!vals.empty()) {
    std::vector<llvm::Type*> types;
    for (auto* v : vals) types.push_back(v->getType());
    auto* st = llvm::StructType::get(c.ctx, types);
    auto* buf = c.entry.CreateAlloca(st);
    for (unsigned i = 0; i < vals.size(); ++i) c.b.CreateStore(vals[i], c.b.CreateStructGEP(st, buf, i));
    args = buf;
  }
  auto* ptr = llvm::PointerType::get(c.ctx, 0);
  // On the host, the host runtime's vprintf reads the same argument buffer.
  auto vprintf = c.module.getOrInsertFunction(c.options.host ? "cutlet_host_vprintf" : "vprintf",
                                              llvm::FunctionType::get(c.b.getInt32Ty(), {ptr, ptr}, false));
  c.b.CreateCall(vprintf, {global_string(c, ir::ops::Print(inst).format(), "fmt"), args});
  return nullptr;
}

llvm::Value* lower_assert(LoweringContext& c, const ir::Instruction& inst) {
  auto* fail_bb = llvm::BasicBlock::Create(c.ctx, "assert.fail", c.kernel);
  auto* ok_bb = llvm::BasicBlock::Create(c.ctx, "assert.ok", c.kernel);
  const ir::ops::Assert assertion(inst);
  c.b.CreateCondBr(c.get(assertion.cond()), ok_bb, fail_bb);
  c.b.SetInsertPoint(fail_bb);
  auto* ptr = llvm::PointerType::get(c.ctx, 0);
  if (c.in_phases) {
    // The block stops: the thread's failure is recorded and the phases return.
    host_call(c, "cutlet_host_phases_assert_fail", c.b.getVoidTy(),
              {global_string(c, assertion.message(), "assert_msg"), global_string(c, assertion.file(), "assert_file"),
               c.b.getInt32(static_cast<std::uint32_t>(assertion.line())), c.host_thread_state});
    c.b.CreateRet(c.b.getInt32(kPhasesAssertFailed));
    c.b.SetInsertPoint(ok_bb);
    return nullptr;
  }
  auto assertfail = c.module.getOrInsertFunction(
      c.options.host ? "cutlet_host_assert_fail" : "__assertfail",
      llvm::FunctionType::get(c.b.getVoidTy(), {ptr, ptr, c.b.getInt32Ty(), ptr, c.b.getInt64Ty()}, false));
  c.b.CreateCall(assertfail, {global_string(c, assertion.message(), "assert_msg"), global_string(c, assertion.file(), "assert_file"),
                              c.b.getInt32(static_cast<std::uint32_t>(assertion.line())),
                              global_string(c, c.fn.name(), "assert_fn"), c.b.getInt64(1)});
  c.b.CreateBr(ok_bb);
  c.b.SetInsertPoint(ok_bb);
  return nullptr;
}

}  // namespace

void register_diagnostics(LoweringTable& t) {
  t.set(ir::Opcode::Print, lower_print);
  t.set(ir::Opcode::Assert, lower_assert);
}

}  // namespace cutlet::backend
