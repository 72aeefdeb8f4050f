// The compile driver: LLVM initialization, the O3 pipeline, PTX emission, timings, dumps.
#include "cutlet/backend/compiler.h"

#include <chrono>
#include <map>
#include <mutex>

#include <llvm/Analysis/CGSCCPassManager.h>
#include <llvm/Analysis/LoopAnalysisManager.h>
#include <llvm/CodeGen/MachineFunction.h>
#include <llvm/CodeGen/MachineModuleInfo.h>
#include <llvm/CodeGen/Passes.h>
#include <llvm/CodeGen/TargetPassConfig.h>
#include <llvm/Config/llvm-config.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Verifier.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Target/TargetOptions.h>

#include "compiler_build_id.h"
#include "cutlet/dump.h"
#include "cutlet/ir/structural_hash.h"
#include "cutlet/scoped_range.h"
#include "libdevice.h"
#include "order_for_registers.h"
#include "lowering.h"
#include "sass.h"
#include "shared_memory_limit.h"

namespace cutlet {
namespace {

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

void initialize_llvm() {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
  });
}

/// One TargetMachine per thread and (processor, contraction): creating one costs more than
/// compiling a small kernel, and a TargetMachine is not shared between threads.
llvm::TargetMachine& target_machine(const CompileOptions& o) {
  thread_local std::map<std::pair<std::string, bool>, std::unique_ptr<llvm::TargetMachine>> machines;
  auto key = std::make_pair(o.target.ptx_cpu(), o.fma_contraction);
  auto& tm = machines[key];
  if (!tm) {
    std::string error;
    const char* triple = "nvptx64-nvidia-cuda";
    const llvm::Target* t = llvm::TargetRegistry::lookupTarget(triple, error);
    if (!t) throw CompileError("cutlet: LLVM has no NVPTX target: " + error);
    llvm::TargetOptions opts;
    opts.AllowFPOpFusion = o.fma_contraction ? llvm::FPOpFusion::Fast : llvm::FPOpFusion::Standard;
    std::string cpu = o.target.ptx_cpu();
    std::string features = "+ptx" + std::to_string(o.target.ptx_version());
    tm.reset(t->createTargetMachine(triple, cpu, features, opts, std::nullopt, std::nullopt,
                                    llvm::CodeGenOptLevel::Aggressive));
    if (!tm) throw CompileError("cutlet: LLVM could not create a target machine for " + cpu);
  }
  return *tm;
}

std::string module_text(const llvm::Module& m) {
  std::string s;
  llvm::raw_string_ostream os(s);
  m.print(os, nullptr);
  return s;
}

void optimize(llvm::Module& m, llvm::TargetMachine& tm, int level) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder pb(&tm);  // registers the NVPTX passes (NVVMReflect, ...)
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::OptimizationLevel ol = level <= 0 ? llvm::OptimizationLevel::O0
                               : level == 1 ? llvm::OptimizationLevel::O1
                               : level == 2 ? llvm::OptimizationLevel::O2
                                            : llvm::OptimizationLevel::O3;
  llvm::ModulePassManager mpm = level <= 0 ? pb.buildO0DefaultPipeline(ol) : pb.buildPerModuleDefaultPipeline(ol);
  mpm.run(m, mam);
}

/// LLVM's code generation pipeline for PTX (what TargetMachine::addPassesToEmitFile builds),
/// without MachineSink where `registers_bound` (the kernel asks for min_blocks_per_sm blocks:
/// its registers are a budget). PTX registers are virtual, so MachineSink sees no register
/// pressure and moves pure instructions down to the block of their first use, however far: a
/// value computed before a barrier and used after it then keeps its operands alive across the
/// barrier instead of itself (the radix sort's ranks kept their ballot masks, shuffled counts
/// and digits: 20 registers became 60, and the kernel spilled 48 bytes at 80 registers).
/// Elsewhere sinking out of the paths that do not need a value is worth its longer live ranges
/// (over the algorithms' kernels it saves about as many registers as it costs), and ptxas
/// still has the final say on both.
std::string emit_ptx(llvm::Module& m, llvm::TargetMachine& tm, bool registers_bound) {
  m.setDataLayout(tm.createDataLayout());
  llvm::SmallString<0> buf;
  llvm::raw_svector_ostream os(buf);
  llvm::legacy::PassManager pm;
  auto& ltm = static_cast<llvm::LLVMTargetMachine&>(tm);
  auto* mmi = new llvm::MachineModuleInfoWrapperPass(&ltm);
  llvm::TargetPassConfig* config = ltm.createPassConfig(pm);
  config->setDisableVerify(true);
  if (registers_bound) config->disablePass(&llvm::MachineSinkingID);
  pm.add(config);
  pm.add(mmi);
  if (config->addISelPasses()) throw CompileError("cutlet: the NVPTX target cannot select instructions");
  config->addMachinePasses();
  config->setInitialized();
  if (ltm.addAsmPrinter(pm, os, nullptr, llvm::CodeGenFileType::AssemblyFile, mmi->getMMI().getContext()))
    throw CompileError("cutlet: the NVPTX target cannot emit PTX");
  pm.add(llvm::createFreeMachineFunctionPass());
  pm.run(m);
  return std::string(buf.str());
}

/// How the compiler's dumps name the specialization compiled: the dump tag of the IR's
/// structural hash (as the IR stages name it), then the target and the options that differ
/// from the defaults: "1a2b3c4d.sm_90", "1a2b3c4d.sm_80-O1-nofma-ftz-approx-lineinfo".
class DumpName {
 public:
  DumpName(const ir::Function& f, const CompileOptions& o) : f_(f), o_(o) {}
  const std::string& get() {
    if (name_.empty()) {
      name_ = dump_tag(ir::structural_hash(f_, o_.line_info)) + "." + o_.target.arch();
      if (o_.opt_level != CompileOptions{}.opt_level) name_ += "-O" + std::to_string(o_.opt_level);
      if (!o_.fma_contraction) name_ += "-nofma";
      if (o_.flush_denormals) name_ += "-ftz";
      if (o_.approx_math) name_ += "-approx";
      if (o_.line_info) name_ += "-lineinfo";
      if (o_.max_block_threads != 0) name_ += "-maxntid" + std::to_string(o_.max_block_threads);
      if (o_.min_blocks_per_sm != 0) name_ += "-minblocks" + std::to_string(o_.min_blocks_per_sm);
    }
    return name_;
  }

 private:
  const ir::Function& f_;
  const CompileOptions& o_;
  std::string name_;
};

struct LlvmResult {
  std::string llvm_ir, llvm_ir_opt, ptx;
  double lower_ms = 0, optimize_ms = 0, codegen_ms = 0;
  int dynamic_shared_bytes = 0;
};

/// Whether `inst` converts from or to FP8 (sm_89 and later have the instructions).
bool converts_fp8(const ir::Function& f, const ir::Instruction& inst) {
  if (inst.op != ir::Opcode::Cast) return false;
  return f.type_of(inst.operands[0]).scalar_type().is_fp8() || f.type_of(inst.results[0]).scalar_type().is_fp8();
}

/// Throws CompileError at the first op of `f` its target lacks: Hopper's bulk copies and
/// mbarriers need sm_90 or later, FP8 conversions sm_89 or later.
void check_target_has_ops(const ir::Function& f, const Target& target) {
  if (target.sm >= 90) return;
  for (ir::InstId id = 0; id < f.num_insts(); ++id) {
    const ir::Instruction& inst = f.inst(id);
    std::string where = inst.loc.known() ? std::string(inst.loc.file) + ":" + std::to_string(inst.loc.line) + ": " : "";
    if (target.sm < 89 && converts_fp8(f, inst))
      throw CompileError("cutlet: " + where + "kernel '" + f.name() + "' converts " +
                         f.type_of(inst.operands[0]).scalar_type().str() + " to " +
                         f.type_of(inst.results[0]).scalar_type().str() +
                         ", which needs the FP8 conversions of sm_89 (Ada) and later GPUs, but it is compiled for " +
                         target.arch() + "; compile it for sm_89 or later (KernelOptions::target) or keep the data in f16");
    if (!backend::is_bulk_async(inst.op)) continue;
    throw CompileError("cutlet: " + where + "kernel '" + f.name() + "' uses " + std::string(ir::mnemonic(inst.op)) +
                       ", a TMA or mbarrier operation of Hopper (sm_90) and later GPUs, but it is compiled for " +
                       target.arch() + "; compile it for sm_90a (KernelOptions::target) or launch it on such a GPU");
  }
}

LlvmResult run_llvm(const ir::Function& f, const CompileOptions& o, bool keep_ir, DumpName& dump_name) {
  if (o.target.host)
    throw CompileError("cutlet: kernel '" + f.name() + "' is compiled for the host CPU, which has no PTX or cubin; "
                       "launch it on the CPU device (Device::cpu()), or compile it for a GPU target");
  check_target_has_ops(f, o.target);
  initialize_llvm();
  LlvmResult r;
  llvm::LLVMContext ctx;
  const std::string arch = o.target.arch();
  auto t0 = Clock::now();
  backend::LoweringOptions lo{o.fma_contraction, o.flush_denormals, o.approx_math, o.line_info, false,
                              o.max_block_threads, o.min_blocks_per_sm};
  ir::Function lowered;
  std::unique_ptr<llvm::Module> module;
  {
    detail::ScopedRange range{"lower", f.name(), arch};
    module = backend::lower_to_llvm(f, ctx, lo, &lowered);
    std::string err;
    llvm::raw_string_ostream es(err);
    if (llvm::verifyModule(*module, &es))
      throw InternalError("cutlet internal error: generated LLVM IR for kernel '" + f.name() +
                          "' is invalid; this is a bug in cutlet, please report it:\n" + err);
  }
  r.lower_ms = ms_since(t0);
  if (f.is_kernel()) backend::check_shared_memory(lowered, *module, o.target);
  r.dynamic_shared_bytes = backend::reserved_dynamic_shared(*module);
  const bool dump_llvm = dump_enabled("llvm", f.name());
  if (keep_ir || dump_llvm) r.llvm_ir = module_text(*module);
  if (dump_llvm) dump("llvm", f.name(), dump_name.get(), r.llvm_ir);

  auto& tm = target_machine(o);
  module->setDataLayout(tm.createDataLayout());
  backend::link_libdevice(*module, o.flush_denormals);
  backend::resolve_reflections(*module, {o.flush_denormals, !o.approx_math, o.target.ptx_sm()});
  t0 = Clock::now();
  if (f.tile_warps() > 0 && o.opt_level > 0)
    for (llvm::Function& fn : *module) backend::order_for_registers(fn);
  {
    detail::ScopedRange range{"llvm-opt", f.name(), arch};
    optimize(*module, tm, o.opt_level);
  }
  r.optimize_ms = ms_since(t0);
  const bool dump_opt = dump_enabled("llvm-opt", f.name());
  if (keep_ir || dump_opt) r.llvm_ir_opt = module_text(*module);
  if (dump_opt) dump("llvm-opt", f.name(), dump_name.get(), r.llvm_ir_opt);

  t0 = Clock::now();
  {
    detail::ScopedRange range{"codegen", f.name(), arch};
    r.ptx = emit_ptx(*module, tm, o.min_blocks_per_sm > 0);
  }
  r.codegen_ms = ms_since(t0);
  if (dump_enabled("ptx", f.name())) dump("ptx", f.name(), dump_name.get(), r.ptx);
  return r;
}

}  // namespace

std::string llvm_version() { return LLVM_VERSION_STRING; }

std::string compiler_build_id() { return CUTLET_COMPILER_BUILD_ID; }

std::string compile_to_ptx(const ir::Function& f, const CompileOptions& options) {
  DumpName dump_name(f, options);
  return run_llvm(f, options, false, dump_name).ptx;
}

CompiledKernel compile(const ir::Function& f, const CompileOptions& options) {
  DumpName dump_name(f, options);
  auto r = run_llvm(f, options, options.keep_llvm_ir, dump_name);
  CompiledKernel k;
  k.name = f.name();
  k.llvm_ir = std::move(r.llvm_ir);
  k.llvm_ir_opt = std::move(r.llvm_ir_opt);
  k.ptx = std::move(r.ptx);
  k.timings.lower_ms = r.lower_ms;
  k.timings.optimize_ms = r.optimize_ms;
  k.timings.codegen_ms = r.codegen_ms;
  auto t0 = Clock::now();
  k.cubin = link_ptx(k.ptx, options.target, k.name, &k.link_log, options.line_info);
  k.timings.link_ms = ms_since(t0);
  k.resources = parse_resource_usage(k.link_log, k.name);
  if (k.resources.registers < 0) {
    // No report: nvJitLink linked this PTX before and answered from its cache.
    const ResourceUsage from_cubin = cubin_resource_usage(k.cubin, k.name);
    k.resources.registers = from_cubin.registers;
    k.resources.stack_bytes = from_cubin.stack_bytes;
    k.resources.shared_bytes = from_cubin.shared_bytes;
    k.resources.constant_bytes = from_cubin.constant_bytes;
  }
  k.resources.dynamic_shared_bytes = r.dynamic_shared_bytes;
  if (dump_enabled("sass", k.name)) {
    if (auto sass = backend::disassemble_for_dump(k.cubin, k.name)) dump("sass", k.name, dump_name.get(), *sass);
  }
  if (dump_enabled("resources", k.name)) dump("resources", k.name, dump_name.get(), k.link_log);
  return k;
}

}  // namespace cutlet
