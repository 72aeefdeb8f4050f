// Small helpers shared by the lowering families: PTX type names, constraints, inline PTX.
#include <llvm/IR/InlineAsm.h>

#include "cutlet/error.h"
#include "lowering.h"

namespace cutlet::backend {

std::string ptx_type(ir::Type t) {
  using K = ir::ScalarKind;
  switch (t.scalar_kind()) {
    case K::I1: return "pred";
    case K::I8: return "s8";
    case K::I16: return "s16";
    case K::I32: return "s32";
    case K::I64: return "s64";
    case K::U8: return "u8";
    case K::U16: return "u16";
    case K::U32: return "u32";
    case K::U64: return "u64";
    case K::F16: return "f16";
    case K::BF16: return "bf16";
    case K::F32: return "f32";
    case K::F64: return "f64";
    case K::F8E4M3: case K::F8E5M2: return "b8";
  }
  return "b32";
}

std::string ptx_constraint(ir::Type t) {
  if (t == ir::Type::f32()) return "f";
  if (t == ir::Type::f64()) return "d";
  if (t.bits() == 64) return "l";
  if (t.bits() == 16) return "h";
  return "r";
}

llvm::Align natural_align(ir::Type elem) { return llvm::Align(elem.bits() < 8 ? 1 : elem.bits() / 8); }

llvm::Value* inline_ptx(LoweringContext& c, llvm::Type* result, const std::string& text, const std::string& constraints,
                        std::vector<llvm::Value*> args) {
  std::vector<llvm::Type*> types;
  for (auto* a : args) types.push_back(a->getType());
  auto* fty = llvm::FunctionType::get(result, types, false);
  std::string cons = constraints.empty() ? "~{memory}" : constraints + ",~{memory}";
  return c.b.CreateCall(llvm::InlineAsm::get(fty, text, cons, /*hasSideEffects=*/true), args);
}

llvm::Value* host_call(LoweringContext& c, const char* name, llvm::Type* ret, std::vector<llvm::Value*> args) {
  std::vector<llvm::Type*> types;
  for (auto* a : args) types.push_back(a->getType());
  auto callee = c.module.getOrInsertFunction(name, llvm::FunctionType::get(ret, types, false));
  return c.b.CreateCall(callee, args);
}

}  // namespace cutlet::backend
