// IR -> LLVM IR: the kernel signature, structured regions as basic blocks, and dispatch
// of every other op through the lowering table.
#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <span>

#include <llvm/IR/Constants.h>
#include <llvm/IR/Metadata.h>

#include "cutlet/backend/compiler.h"
#include "cutlet/error.h"
#include "cutlet/ir/passes/passes.h"
#include "cutlet/ir/pipeline.h"
#include "debug_info.h"
#include "host_phases.h"
#include "lowering.h"
#include "tile_support.h"

namespace cutlet::backend {

llvm::Type* llvm_type(llvm::LLVMContext& ctx, ir::Type t) {
  using K = ir::ScalarKind;
  // A record parameter is passed by value in .param space: a pointer to it (see byval below).
  if (t.is_record()) return llvm::PointerType::get(ctx, 0);
  if (t.is_pointer()) {
    // Local variables live in generic allocas (see lower_memory.cpp).
    auto as = t.address_space() == ir::AddressSpace::Local ? 0u : static_cast<unsigned>(t.address_space());
    return llvm::PointerType::get(ctx, as);
  }
  CUTLET_ASSERT(t.is_scalar(), "only scalars and pointers lower to LLVM types");
  switch (t.scalar_kind()) {
    case K::I1: return llvm::Type::getInt1Ty(ctx);
    case K::I8: case K::U8: case K::F8E4M3: case K::F8E5M2: return llvm::Type::getInt8Ty(ctx);
    case K::I16: case K::U16: return llvm::Type::getInt16Ty(ctx);
    case K::I32: case K::U32: return llvm::Type::getInt32Ty(ctx);
    case K::I64: case K::U64: return llvm::Type::getInt64Ty(ctx);
    case K::F16: return llvm::Type::getHalfTy(ctx);
    case K::BF16: return llvm::Type::getBFloatTy(ctx);
    case K::F32: return llvm::Type::getFloatTy(ctx);
    case K::F64: return llvm::Type::getDoubleTy(ctx);
  }
  return nullptr;
}

namespace {

const LoweringTable& table() {
  static const LoweringTable t = [] {
    LoweringTable t;
    register_elementwise(t);
    register_memory(t);
    register_vector(t);
    register_sync(t);
    register_warp(t);
    register_math(t);
    register_diagnostics(t);
    register_calls(t);
    register_tiles(t);
    register_tile_dot(t);
    register_tile_reduce(t);
    register_tile_shared(t);
    register_bulk_async(t);
    return t;
  }();
  return t;
}

/// While an op is lowered: it is the op whose shared-memory buffers are taken (an op inlined
/// into it, as a reduction's combiner, has its own).
class OpScope {
 public:
  OpScope(LoweringContext& c, const ir::Instruction& inst) : c_(c), outer_(c.current), outer_taken_(c.shared_taken) {
    c.current = &inst;
    c.shared_taken = 0;
  }
  ~OpScope() {
    c_.current = outer_;
    c_.shared_taken = outer_taken_;
  }
  OpScope(const OpScope&) = delete;
  OpScope& operator=(const OpScope&) = delete;

 private:
  LoweringContext& c_;
  const ir::Instruction* outer_;
  std::size_t outer_taken_;
};

class Walker {
 public:
  /// Lowers the region's instructions; returns the operands of its terminator.
  Walker(LoweringContext& c, DebugInfo* debug) : c_(c), debug_(debug) {}

  std::vector<llvm::Value*> region(const ir::Region& r) { return instructions(r.body); }

  /// Lowers the instructions `ids` in order; returns the operands of a terminator among them.
  std::vector<llvm::Value*> instructions(std::span<const ir::InstId> ids) {
    std::vector<llvm::Value*> term;
    for (ir::InstId id : ids) {
      const ir::Instruction& inst = c_.fn.inst(id);
      if (debug_) debug_->set_location(c_.b, inst.loc);
      switch (inst.op) {
        case ir::Opcode::If: lower_if(inst); break;
        case ir::Opcode::For: lower_for(inst); break;
        case ir::Opcode::While: lower_while(inst); break;
        case ir::Opcode::Yield:
        case ir::Opcode::Condition:
          for (auto v : inst.operands) term.push_back(c_.get(v));
          break;
        default:
          lower_one(inst);
          break;
      }
    }
    return term;
  }

 private:
  llvm::BasicBlock* block(const char* name) { return llvm::BasicBlock::Create(c_.ctx, name, c_.kernel); }

  /// Lowers one non-region instruction.
  void lower_one(const ir::Instruction& inst) {
    OpScope scope(c_, inst);
    LowerFn fn = table().get(inst.op);
    CUTLET_ASSERT(fn != nullptr, "an opcode without a lowering entry");
    // Elementwise ops on tiles work on the thread's registers, their operands placed as their
    // results; tile ops place their results themselves.
    if (!ir::has_trait(inst.op, ir::TileOp) && has_tile_operand(inst)) check_elementwise_layouts(c_, inst);
    llvm::Value* v = fn(c_, inst);
    if (!inst.results.empty()) c_.values[inst.results[0]] = v;
    if (inst.op == ir::Opcode::Alloca && debug_ && debug_->describes_variables())
      debug_->declare(c_.entry, v, debug_->local_name(inst.loc), c_.fn.type_of(inst.results[0]).element(),
                      ir::ops::Alloca(inst).count(), inst.loc);
    // Each tile is made in the layout its type gives it (the layouts are the IR's decision).
    for (ir::ValueId r : inst.results)
      if (c_.fn.type_of(r).is_tile())
        CUTLET_ASSERT(c_.values[r] && c_.values[r]->getType() == c_.type_of(r), "a tile lowered in another layout than its type's");
  }

  bool has_tile_operand(const ir::Instruction& inst) const {
    for (auto v : inst.operands)
      if (c_.fn.type_of(v).is_tile()) return true;
    return false;
  }
  /// A yielded value `v` as the carried or result value `to` expects it (tiles: in its layout).
  llvm::Value* as_carried(ir::ValueId v, ir::ValueId to) {
    if (!c_.fn.type_of(v).is_tile()) return c_.get(v);
    return tile_in_layout(c_, v, layout_of(c_, to));
  }

  void lower_if(const ir::Instruction& inst) {
    auto& B = c_.b;
    auto* then_bb = block("then");
    auto* else_bb = block("else");
    auto* merge_bb = block("endif");
    B.CreateCondBr(c_.get(ir::ops::If(inst).cond()), then_bb, else_bb);
    std::vector<std::pair<std::vector<llvm::Value*>, llvm::BasicBlock*>> incoming;
    for (int r = 0; r < 2; ++r) {
      B.SetInsertPoint(r == 0 ? then_bb : else_bb);
      auto yields = region(inst.regions[r]);
      const ir::Region& reg = inst.regions[r];
      const auto yielded = ir::ops::Yield(c_.fn.inst(reg.body.back())).values();
      for (std::size_t i = 0; i < inst.results.size(); ++i) yields[i] = as_carried(yielded[i], inst.results[i]);
      incoming.emplace_back(std::move(yields), B.GetInsertBlock());
      B.CreateBr(merge_bb);
    }
    B.SetInsertPoint(merge_bb);
    for (std::size_t i = 0; i < inst.results.size(); ++i) {
      auto* phi = B.CreatePHI(c_.type_of(inst.results[i]), 2);
      for (auto& [vals, bb] : incoming) phi->addIncoming(vals[i], bb);
      c_.values[inst.results[i]] = phi;
    }
  }

  void lower_for(const ir::Instruction& inst) {
    auto& B = c_.b;
    const ir::ops::For loop(inst);
    ir::Type it = c_.fn.type_of(loop.lower());
    bool sgn = it.is_signed_integer();
    llvm::Value* lb = c_.get(loop.lower());
    llvm::Value* ub = c_.get(loop.upper());
    llvm::Value* step = c_.get(loop.step());
    const ir::Region& r = inst.regions[0];
    auto* pre = B.GetInsertBlock();
    auto* header = block("for.header");
    auto* body = block("for.body");
    auto* exit = block("for.exit");
    B.CreateBr(header);
    B.SetInsertPoint(header);
    std::vector<llvm::PHINode*> phis;
    for (std::size_t i = 0; i < r.args.size(); ++i) {
      auto* phi = B.CreatePHI(c_.type_of(r.args[i]), 2);
      phi->addIncoming(i == 0 ? lb : as_carried(loop.init()[i - 1], r.args[i]), pre);
      c_.values[r.args[i]] = phi;
      phis.push_back(phi);
    }
    llvm::Value* cond;
    auto* cstep = llvm::dyn_cast<llvm::ConstantInt>(step);
    if (!sgn || (cstep && !cstep->isNegative())) {
      cond = sgn ? B.CreateICmpSLT(phis[0], ub) : B.CreateICmpULT(phis[0], ub);
    } else if (cstep) {
      cond = B.CreateICmpSGT(phis[0], ub);
    } else {
      auto* up = B.CreateICmpSGT(step, llvm::ConstantInt::get(step->getType(), 0));
      cond = B.CreateSelect(up, B.CreateICmpSLT(phis[0], ub), B.CreateICmpSGT(phis[0], ub));
    }
    B.CreateCondBr(cond, body, exit);
    B.SetInsertPoint(body);
    auto yields = region(r);
    const auto next = ir::ops::Yield(c_.fn.inst(r.body.back())).values();
    for (std::size_t i = 0; i < yields.size(); ++i) yields[i] = as_carried(next[i], r.args[i + 1]);
    llvm::Value* next_iv = B.CreateAdd(phis[0], step, "", false, sgn);
    auto* latch = B.GetInsertBlock();
    B.CreateBr(header);
    phis[0]->addIncoming(next_iv, latch);
    for (std::size_t i = 1; i < phis.size(); ++i) phis[i]->addIncoming(yields[i - 1], latch);
    B.SetInsertPoint(exit);
    for (std::size_t i = 0; i < inst.results.size(); ++i) c_.values[inst.results[i]] = phis[i + 1];
  }

  void lower_while(const ir::Instruction& inst) {
    auto& B = c_.b;
    auto* pre = B.GetInsertBlock();
    auto* before = block("while.cond");
    auto* after = block("while.body");
    auto* exit = block("while.exit");
    B.CreateBr(before);
    B.SetInsertPoint(before);
    const ir::Region& rb = inst.regions[0];
    std::vector<llvm::PHINode*> phis;
    for (std::size_t i = 0; i < rb.args.size(); ++i) {
      if (c_.fn.type_of(rb.args[i]).is_tile())
        throw CompileError("cutlet: tiles cannot be carried through while loops; use for_range");
      auto* phi = B.CreatePHI(llvm_type(c_.ctx, c_.fn.type_of(rb.args[i])), 2);
      phi->addIncoming(c_.get(ir::ops::While(inst).init()[i]), pre);
      c_.values[rb.args[i]] = phi;
      phis.push_back(phi);
    }
    auto cond = region(rb);
    B.CreateCondBr(cond[0], after, exit);
    B.SetInsertPoint(after);
    const ir::Region& ra = inst.regions[1];
    for (std::size_t i = 0; i < ra.args.size(); ++i) c_.values[ra.args[i]] = cond[i + 1];
    auto yields = region(ra);
    auto* latch = B.GetInsertBlock();
    B.CreateBr(before);
    for (std::size_t i = 0; i < phis.size(); ++i) phis[i]->addIncoming(yields[i], latch);
    B.SetInsertPoint(exit);
    for (std::size_t i = 0; i < inst.results.size(); ++i) c_.values[inst.results[i]] = cond[i + 1];
  }

  LoweringContext& c_;
  DebugInfo* debug_;
};

}  // namespace

namespace {

/// For debuggers, a host kernel's thread: its parameters as arg1, arg2, ... and its indices
/// as threadIdx, blockIdx, blockDim and gridDim (copies in the entry block, which the
/// thread's state never changes after).
void describe_thread(LoweringContext& c, DebugInfo& debug) {
  llvm::IRBuilder<>& entry = c.entry;
  for (std::size_t i = 0; i < c.fn.params().size(); ++i) {
    const ir::Type t = c.fn.type_of(c.fn.params()[i]);
    if (!t.is_scalar() && !t.is_pointer()) continue;
    llvm::Value* v = c.values[c.fn.params()[i]];
    llvm::AllocaInst* slot = entry.CreateAlloca(v->getType());
    entry.CreateStore(v, slot);
    debug.declare(entry, slot, "arg" + std::to_string(i + 1), t, 1, {});
  }
  llvm::Type* dim3 = llvm::ArrayType::get(entry.getInt32Ty(), 3);
  const std::pair<const char*, unsigned> dims[] = {{"threadIdx", 0}, {"blockDim", 3}, {"blockIdx", 6}, {"gridDim", 9}};
  for (const auto& [name, word] : dims) {
    llvm::AllocaInst* slot = entry.CreateAlloca(dim3);
    entry.CreateMemCpy(slot, llvm::Align(4), entry.CreateConstInBoundsGEP1_32(entry.getInt32Ty(), c.host_thread_state, word),
                       llvm::Align(4), 12);
    debug.declare_dim3(entry, slot, name);
  }
}

/// The module flag that carries the dynamic shared memory a kernel reserved for itself.
constexpr const char* kReservedSharedFlag = "cutlet.reserved_dynamic_shared";

/// How a lowered function is seen from outside its module.
enum class Visibility { Kernel, Private, Exported };

/// Whether tile kernel `fn` has tiles without layouts (it did not go through the pipeline).
bool lacks_layouts(const ir::Function& fn);

/// `fn` as the lowering takes it: with layouts (for a tile kernel) and its shared memory
/// placed, running what it lacks of the pipeline.
ir::Function prepared(const ir::Function& fn) {
  if (lacks_layouts(fn)) return ir::run_pipeline_from(fn, "assign-layouts");
  if (fn.shared_bytes() < 0) return ir::allocate_shared(fn);
  return fn;
}

/// Lowers `fn` (prepared; and, first, the device functions it calls) into `module`.
llvm::Function* lower_function(const ir::Function& fn, llvm::Module& module, const LoweringOptions& options,
                               Visibility visibility) {
  llvm::LLVMContext& ctx = module.getContext();
  for (const auto& callee : fn.callees())
    if (!module.getFunction(callee->name())) lower_function(prepared(*callee), module, options, Visibility::Private);

  std::vector<llvm::Type*> params;
  for (auto p : fn.params()) params.push_back(llvm_type(ctx, fn.type_of(p)));
  const bool host_kernel = options.host && visibility == Visibility::Kernel;
  const bool phases = host_kernel && options.host_phases;
  if (host_kernel) params.push_back(llvm::PointerType::get(ctx, 0));  // its HostThreadState
  ir::Type rt = fn.return_type();
  llvm::Type* ret = rt.is_void() ? llvm::Type::getVoidTy(ctx) : llvm_type(ctx, rt);
  llvm::Type* ptr = llvm::PointerType::get(ctx, 0);
  llvm::Type* i32 = llvm::Type::getInt32Ty(ctx);
  // In phases, the kernel is its block's entry point (host_phases.h).
  auto* fty = phases ? llvm::FunctionType::get(i32, {ptr, ptr, i32, i32, i32, ptr, ptr}, false)
                     : llvm::FunctionType::get(ret, params, false);
  // On the host the kernel is called by its block loop only, and inlined there.
  auto linkage = visibility == Visibility::Private || (host_kernel && !phases) ? llvm::GlobalValue::InternalLinkage
                                                                               : llvm::GlobalValue::ExternalLinkage;
  auto* function = llvm::Function::Create(fty, linkage, phases ? kPhasesEntry : fn.name(), module);
  function->addFnAttr(llvm::Attribute::NoUnwind);
  // A device function is compiled once and called, not inlined into every caller.
  if (visibility != Visibility::Kernel) function->addFnAttr(llvm::Attribute::NoInline);
  if (host_kernel && !phases) function->addFnAttr(llvm::Attribute::AlwaysInline);
  if (phases) {
    function->addParamAttr(5, llvm::Attribute::NoAlias);  // the block's shared memory
    function->addParamAttr(6, llvm::Attribute::NoAlias);  // its scratch memory
  }
  for (unsigned i = 0; i < fn.params().size() && !phases; ++i) {
    if (fn.param_noalias(i)) function->addParamAttr(i, llvm::Attribute::NoAlias);
    ir::Type pt = fn.type_of(fn.params()[i]);
    if (pt.is_record()) {
      // A struct by value: `.param .align A .b8 name[size]`, exactly as nvcc passes one.
      CUTLET_ASSERT(visibility == Visibility::Kernel, "records are kernel parameters only");
      auto* bytes = llvm::ArrayType::get(llvm::Type::getInt8Ty(ctx), static_cast<std::uint64_t>(pt.record_size()));
      function->addParamAttr(i, llvm::Attribute::getWithByValType(ctx, bytes));
      function->addParamAttr(i, llvm::Attribute::getWithAlignment(ctx, llvm::Align(pt.record_align())));
    }
  }
  if (options.flush_denormals) function->addFnAttr("denormal-fp-math-f32", "preserve-sign,preserve-sign");
  if (options.approx_math) {
    function->addFnAttr("unsafe-fp-math", "true");
    function->addFnAttr("approx-func-fp-math", "true");
  }

  if (visibility == Visibility::Kernel && !options.host) {
    // Mark it a kernel entry point (LLVM 19 reads nvvm.annotations).
    llvm::Metadata* md[] = {llvm::ValueAsMetadata::get(function), llvm::MDString::get(ctx, "kernel"),
                            llvm::ValueAsMetadata::get(llvm::ConstantInt::get(llvm::Type::getInt32Ty(ctx), 1))};
    module.getOrInsertNamedMetadata("nvvm.annotations")->addOperand(llvm::MDNode::get(ctx, md));
    // A TMA descriptor parameter is read by address (cp.async.bulk.tensor takes the tensor
    // map's generic address): grid_constant makes that the parameter's own address, where
    // LLVM would otherwise copy a byval parameter whose address is taken to local memory.
    const auto params = fn.params();
    std::vector<bool> read_by_address(params.size(), false);
    for (ir::InstId id = 0; id < fn.num_insts(); ++id) {
      const ir::Instruction& inst = fn.inst(id);
      if (inst.op != ir::Opcode::TmaLoad && inst.op != ir::Opcode::TmaStore) continue;
      for (std::size_t i = 0; i < params.size(); ++i) read_by_address[i] = read_by_address[i] || params[i] == inst.operands[0];
    }
    std::vector<llvm::Metadata*> grid_constant;  // 1-based parameter numbers
    for (std::size_t i = 0; i < params.size(); ++i)
      if (read_by_address[i])
        grid_constant.push_back(llvm::ConstantAsMetadata::get(
            llvm::ConstantInt::get(llvm::Type::getInt32Ty(ctx), static_cast<std::uint64_t>(i + 1))));
    if (!grid_constant.empty()) {
      llvm::Metadata* md[] = {llvm::ValueAsMetadata::get(function), llvm::MDString::get(ctx, "grid_constant"),
                              llvm::MDNode::get(ctx, grid_constant)};
      module.getOrInsertNamedMetadata("nvvm.annotations")->addOperand(llvm::MDNode::get(ctx, md));
    }
    auto annotate = [&](const char* key, int value) {
      llvm::Metadata* md[] = {llvm::ValueAsMetadata::get(function), llvm::MDString::get(ctx, key),
                              llvm::ValueAsMetadata::get(llvm::ConstantInt::get(llvm::Type::getInt32Ty(ctx), value))};
      module.getOrInsertNamedMetadata("nvvm.annotations")->addOperand(llvm::MDNode::get(ctx, md));
    };
    // The user's launch bounds (KernelOptions::max_block_threads, min_blocks_per_sm).
    if (options.max_block_threads > 0) annotate("maxntidx", options.max_block_threads);
    if (options.min_blocks_per_sm > 0) annotate("minctasm", options.min_blocks_per_sm);
    if (fn.tile_warps() > 0) {
      // A tile kernel runs with exactly its warps: .reqntid lets ptxas budget registers.
      llvm::Metadata* threads[] = {
          llvm::ValueAsMetadata::get(function), llvm::MDString::get(ctx, "reqntidx"),
          llvm::ValueAsMetadata::get(llvm::ConstantInt::get(llvm::Type::getInt32Ty(ctx), 32 * fn.tile_warps()))};
      module.getOrInsertNamedMetadata("nvvm.annotations")->addOperand(llvm::MDNode::get(ctx, threads));
    }
  }

  // Allocas go to the entry block, the code to the blocks after it.
  auto* entry_bb = llvm::BasicBlock::Create(ctx, "entry", function);
  auto* start_bb = llvm::BasicBlock::Create(ctx, "start", function);
  llvm::IRBuilder<> b(start_bb);
  llvm::IRBuilder<> entry(entry_bb);
  llvm::FastMathFlags fmf;
  fmf.setAllowContract(options.fma_contraction);
  if (options.approx_math) {
    fmf.setApproxFunc(true);
    fmf.setAllowReciprocal(true);
  }
  b.setFastMathFlags(fmf);

  LoweringContext c{fn, ctx, module, function, b, entry, std::vector<llvm::Value*>(fn.num_values(), nullptr), options};
  std::unique_ptr<DebugInfo> debug;
  if (options.line_info) {
    // On the host, debuggers read the kernel's variables too (each thread runs as a fiber).
    debug = std::make_unique<DebugInfo>(module, *function, fn, options.host && !phases);
    debug->set_location(b, {});
    debug->set_location(entry, {});
  }
  std::vector<llvm::Value*> returned;
  if (phases) {
    // args[i] points to parameter i's value (a record's: to its bytes, which are the value).
    for (std::size_t i = 0; i < fn.params().size(); ++i) {
      llvm::Value* slot = entry.CreateLoad(ptr, entry.CreateConstInBoundsGEP1_32(ptr, function->getArg(0), static_cast<unsigned>(i)));
      c.values[fn.params()[i]] = fn.type_of(fn.params()[i]).is_record() ? slot : entry.CreateLoad(params[i], slot);
    }
    lower_phases(c, debug.get());
  } else {
    for (std::size_t i = 0; i < fn.params().size(); ++i) c.values[fn.params()[i]] = function->getArg(static_cast<unsigned>(i));
    if (host_kernel) c.host_thread_state = function->getArg(static_cast<unsigned>(fn.params().size()));
    if (debug && debug->describes_variables() && host_kernel) describe_thread(c, *debug);
    returned = Walker(c, debug.get()).region(fn.body());
  }
  if (fn.shared_bytes() > 0) {
    // The user's dynamic shared memory starts after the kernel's own, 16-byte aligned.
    const std::int64_t user_at = (fn.shared_bytes() + 15) / 16 * 16;
    for (auto* gep : c.user_dynamic_shared) gep->setOperand(1, b.getInt32(static_cast<std::uint32_t>(user_at)));
    module.addModuleFlag(llvm::Module::Warning, kReservedSharedFlag, static_cast<std::uint32_t>(user_at));
  }
  if (debug) debug->set_location(b, {});
  if (phases) {
    // lower_phases returned.
  } else if (rt.is_void()) {
    b.CreateRetVoid();
  } else {
    b.CreateRet(returned.at(0));
  }
  entry.CreateBr(start_bb);
  if (debug) debug->finalize();
  return function;
}

llvm::Value* lower_call(LoweringContext& c, const ir::Instruction& inst) {
  llvm::Function* callee = c.module.getFunction(ir::ops::Call(inst).callee());
  CUTLET_ASSERT(callee != nullptr, "call of a device function that was not lowered");
  std::vector<llvm::Value*> args;
  for (auto v : inst.operands) args.push_back(c.get(v));
  llvm::Value* r = c.b.CreateCall(callee, args);
  return inst.results.empty() ? nullptr : r;
}

std::unique_ptr<llvm::Module> new_module(const std::string& name, llvm::LLVMContext& ctx) {
  auto module = std::make_unique<llvm::Module>(name, ctx);
  module->setTargetTriple("nvptx64-nvidia-cuda");
  module->setDataLayout("e-i64:64-i128:128-v16:16-v32:32-n16:32:64");
  return module;
}

}  // namespace

void register_calls(LoweringTable& t) { t.set(ir::Opcode::Call, lower_call); }

LowerFn lowering_of(ir::Opcode op) { return table().get(op); }

std::vector<llvm::Value*> lower_instructions(LoweringContext& c, DebugInfo* debug, std::span<const ir::InstId> ids) {
  return Walker(c, debug).instructions(ids);
}

std::vector<llvm::Value*> inline_region(LoweringContext& c, const ir::Region& r, const std::vector<llvm::Value*>& args) {
  for (std::size_t i = 0; i < args.size(); ++i) c.values[r.args[i]] = args[i];
  return Walker(c, nullptr).region(r);
}

int reserved_dynamic_shared(const llvm::Module& module) {
  auto* v = llvm::mdconst::extract_or_null<llvm::ConstantInt>(module.getModuleFlag(kReservedSharedFlag));
  return v ? static_cast<int>(v->getZExtValue()) : 0;
}

namespace {
/// Whether region `r` makes or takes tiles without layouts.
bool lacks_layouts(const ir::Function& fn, const ir::Region& r) {
  auto bare = [&](ir::ValueId v) { return fn.type_of(v).is_tile() && !fn.type_of(v).layout(); };
  for (ir::ValueId a : r.args)
    if (bare(a)) return true;
  for (ir::InstId id : r.body) {
    const ir::Instruction& inst = fn.inst(id);
    for (ir::ValueId v : inst.results)
      if (bare(v)) return true;
    for (const ir::Region& sub : inst.regions)
      if (lacks_layouts(fn, sub)) return true;
  }
  return false;
}

/// Only the values of its instructions count: passes leave the values of the instructions
/// they removed behind.
bool lacks_layouts(const ir::Function& fn) { return fn.tile_warps() > 0 && lacks_layouts(fn, fn.body()); }
}  // namespace

std::unique_ptr<llvm::Module> lower_to_llvm(const ir::Function& fn, llvm::LLVMContext& ctx, const LoweringOptions& options,
                                            ir::Function* lowered) {
  auto module = new_module(fn.name(), ctx);
  ir::Function f = prepared(fn);
  lower_function(f, *module, options, fn.is_kernel() ? Visibility::Kernel : Visibility::Exported);
  if (lowered) *lowered = std::move(f);
  return module;
}

}  // namespace cutlet::backend
