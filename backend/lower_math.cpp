// Lowering of the `math` op to libdevice calls (linked in by the compiler) or LLVM intrinsics.
#include <llvm/IR/Function.h>
#include <llvm/IR/Intrinsics.h>

#include "call_free_math.h"
#include "cutlet/error.h"
#include "cutlet/ir/math.h"
#include "host_vector_math.h"
#include "lowering.h"

namespace cutlet::backend {
namespace {

llvm::Value* lower_scalar_math(LoweringContext& c, ir::MathFn fn, ir::Type t, std::vector<llvm::Value*> args);
std::string libdevice_name(const LoweringContext& c, ir::MathFn fn, ir::Type t);

llvm::Value* lower_math(LoweringContext& c, const ir::Instruction& inst) {
  const ir::ops::Math math(inst);
  const ir::MathFn fn = math.fn();
  ir::Type t = c.fn.type_of(math.args()[0]);
  std::vector<llvm::Value*> args;
  for (auto v : math.args()) args.push_back(c.get(v));
  if (!t.is_tile()) return lower_scalar_math(c, fn, t, args);
  // A tile on the host: the function's vector variant, a call for each 4 to 16 registers,
  // where it has one (host_vector_math.h).
  if (c.options.host)
    if (llvm::Value* v = host_vector_math_call(c.b, c.module, libdevice_name(c, fn, t.element()), args)) return v;
  // A tile: the function of each register.
  auto* vt = llvm::cast<llvm::FixedVectorType>(args[0]->getType());
  llvm::Value* out = llvm::PoisonValue::get(c.type_of(inst.results[0]));
  for (unsigned i = 0; i < vt->getNumElements(); ++i) {
    std::vector<llvm::Value*> lane;
    for (auto* a : args) lane.push_back(c.b.CreateExtractElement(a, static_cast<std::uint64_t>(i)));
    out = c.b.CreateInsertElement(out, lower_scalar_math(c, fn, t.element(), lane), static_cast<std::uint64_t>(i));
  }
  return out;
}

/// The function math op `fn` on scalars of type t calls: an LLVM intrinsic (llvm.*) or a
/// libdevice function (__nv_*).
std::string libdevice_name(const LoweringContext& c, ir::MathFn fn, ir::Type t) {
  const char* impl = ir::math_implementation(fn, t);
  CUTLET_ASSERT(impl != nullptr, "math op without an implementation for its type");
  std::string name = impl;
  // Approximate math: the __nv_fast_* variants (what nvcc --use_fast_math uses).
  if (c.options.approx_math && t == ir::Type::f32()) {
    static const char* fast[] = {"__nv_expf", "__nv_exp10f", "__nv_logf", "__nv_log2f", "__nv_log10f",
                                 "__nv_powf", "__nv_sinf",   "__nv_cosf", "__nv_tanf", "__nv_tanhf"};
    for (const char* f : fast)
      if (name == f) name = "__nv_fast_" + name.substr(5);
  }
  return name;
}

llvm::Value* lower_scalar_math(LoweringContext& c, ir::MathFn fn, ir::Type t, std::vector<llvm::Value*> args) {
  llvm::Type* arg_type = llvm_type(c.ctx, t);
  const std::string name = libdevice_name(c, fn, t);
  if (name.rfind("llvm.", 0) == 0) {
    llvm::Intrinsic::ID id = llvm::Function::lookupIntrinsicID(name);
    CUTLET_ASSERT(id != llvm::Intrinsic::not_intrinsic, "unknown LLVM intrinsic in math.def");
    return c.b.CreateIntrinsic(id, {arg_type}, args);
  }
  // A function on wgmma takes its square roots without libdevice's sqrt.rn (call_free_math.h).
  if (fn == ir::MathFn::Sqrt && t == ir::Type::f32() && c.fn.tile_wgmma() && !c.options.approx_math)
    return call_free_sqrt(c.b, args[0]);
  // libdevice: classification and bit counts return i32.
  ir::MathResult rule = ir::math_info(fn).result;
  llvm::Type* ret = rule == ir::MathResult::Same ? arg_type : c.b.getInt32Ty();
  auto callee = c.module.getOrInsertFunction(name, llvm::FunctionType::get(ret, std::vector<llvm::Type*>(args.size(), arg_type), false));
  llvm::Value* r = c.b.CreateCall(callee, args);
  if (rule == ir::MathResult::Bool) return c.b.CreateICmpNE(r, c.b.getInt32(0));
  return r;
}

}  // namespace

void register_math(LoweringTable& t) { t.set(ir::Opcode::Math, lower_math); }

}  // namespace cutlet::backend
