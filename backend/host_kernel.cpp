// HostKernel: cutlet IR lowered for the host CPU as a block in phases (host_phases.h), or, where
// phases cannot express the kernel, as one thread that host_block.cpp runs as fibers;
// optimized for the host's CPU and loaded with ORC's LLJIT.
#include "cutlet/backend/host_kernel.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <thread>
#include <vector>

#include <llvm/ExecutionEngine/JITEventListener.h>
#include <llvm/ExecutionEngine/Orc/Core.h>
#include <llvm/ExecutionEngine/Orc/RTDyldObjectLinkingLayer.h>
#include <llvm/ExecutionEngine/SectionMemoryManager.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/ExecutionEngine/Orc/ThreadSafeModule.h>
#include <llvm/IR/DIBuilder.h>
#include <llvm/IR/InlineAsm.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/DynamicLibrary.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/TargetParser/Host.h>
#include <llvm/TargetParser/SubtargetFeature.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include "host_block.h"
#include "host_check.h"
#include "host_kernel_image.h"
#include "host_cooperative_grid.h"
#include "host_fault_guard.h"
#include "host_phases.h"
#include "host_thread_pool.h"
#include "host_vector_math.h"
#include "host_math.h"
#include "host_narrow_fma.h"
#include "host_soft_float.h"
#include "lowering.h"

namespace cutlet {
namespace {

/// The entry point of kernels run as fibers: runs one thread (backend::HostThreadEntry).
constexpr const char* kThreadEntry = "cutlet_host_thread";
/// The entry point of kernels lowered in phases (backend::kPhasesEntry): runs a block.
using PhasesFn = std::uint32_t (*)(void** args, const std::uint32_t* shape, std::uint32_t bx, std::uint32_t by,
                                   std::uint32_t bz, void* shared, void* scratch);

/// A host runtime function host-lowered code calls (host_block.h), and whether it needs its
/// thread to run in a block of fibers.
struct HostFunction {
  const char* name;
  void* address;
  bool in_block;
};
const HostFunction kHostFunctions[] = {
    {"cutlet_host_special", reinterpret_cast<void*>(&cutlet_host_special), true},
    {"cutlet_host_shared", reinterpret_cast<void*>(&cutlet_host_shared), true},
    {"cutlet_host_barrier", reinterpret_cast<void*>(&cutlet_host_barrier), true},
    {"cutlet_host_grid_sync", reinterpret_cast<void*>(&cutlet_host_grid_sync), true},
    {"cutlet_host_barrier_reduce", reinterpret_cast<void*>(&cutlet_host_barrier_reduce), true},
    {"cutlet_host_warp", reinterpret_cast<void*>(&cutlet_host_warp), true},
    {"cutlet_host_active_mask", reinterpret_cast<void*>(&cutlet_host_active_mask), true},
    {"cutlet_host_assert_fail", reinterpret_cast<void*>(&cutlet_host_assert_fail), true},
    {"cutlet_host_vprintf", reinterpret_cast<void*>(&cutlet_host_vprintf), false},
    {"cutlet_host_lanes", reinterpret_cast<void*>(&cutlet_host_lanes), false},
    {"cutlet_host_phases_assert_fail", reinterpret_cast<void*>(&cutlet_host_phases_assert_fail), false},
    {"cutlet_host_check", reinterpret_cast<void*>(&cutlet_host_check), false},
    {"cutlet_host_check_barrier", reinterpret_cast<void*>(&cutlet_host_check_barrier), false},
    {"cutlet_host_f32_to_e4m3", reinterpret_cast<void*>(&cutlet_host_f32_to_e4m3), false},
    {"cutlet_host_f32_to_e5m2", reinterpret_cast<void*>(&cutlet_host_f32_to_e5m2), false},
    {"cutlet_host_e4m3_to_f32", reinterpret_cast<void*>(&cutlet_host_e4m3_to_f32), false},
    {"cutlet_host_e5m2_to_f32", reinterpret_cast<void*>(&cutlet_host_e5m2_to_f32), false},
};

/// Whether lowered kernel `m` calls the host runtime where a thread needs its block (its
/// threads wait for each other, use shared memory, read their indices in device functions or
/// may stop the block): then its threads run as fibers.
bool calls_host_runtime(const llvm::Module& m) {
  for (const HostFunction& h : kHostFunctions)
    if (const llvm::Function* f = m.getFunction(h.name); h.in_block && f && !f->use_empty()) return true;
  return false;
}

/// Whether region r (in a loop) reads memory other blocks may be writing: atomics, and loads
/// past the cache (the look-back of scans spins on those).
bool polls_memory(const ir::Function& fn, const ir::Region& r) {
  for (ir::InstId id : r.body) {
    const ir::Instruction& inst = fn.inst(id);
    if (inst.op == ir::Opcode::Atomic) return true;
    if (inst.op == ir::Opcode::Load && ir::ops::Load(inst).hint() != ir::CacheHint::Default &&
        ir::ops::Load(inst).hint() != ir::CacheHint::ReadOnly)
      return true;
    for (const ir::Region& sub : inst.regions)
      if (polls_memory(fn, sub)) return true;
  }
  return false;
}

/// Whether a block of kernel `fn` may wait for other blocks: a while loop polls memory.
bool may_wait_for_other_blocks(const ir::Function& fn, const ir::Region& r) {
  for (ir::InstId id : r.body) {
    const ir::Instruction& inst = fn.inst(id);
    if (inst.op == ir::Opcode::While && polls_memory(fn, inst.regions[0])) return true;
    for (const ir::Region& sub : inst.regions)
      if (may_wait_for_other_blocks(fn, sub)) return true;
  }
  return false;
}

void initialize_host_llvm() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    llvm::sys::DynamicLibrary::LoadLibraryPermanently(nullptr);  // the process's own symbols (libm)
  });
}

std::string text_of(const llvm::Module& m) {
  std::string s;
  llvm::raw_string_ostream os(s);
  m.print(os, nullptr);
  return s;
}

/// The host implementations of the libdevice functions lowered kernel `m` calls, by their
/// libdevice names: host_math's, else the C library's function of the name less "__nv_" (or
/// "__nv_fast_": approximate math is exact on the host) taking and returning the same float
/// types (expf for __nv_expf and __nv_fast_expf, sin for __nv_sin). Those without one are
/// left out, for check_runs_on_host to refuse.
std::map<std::string, void*> host_math_symbols(const llvm::Module& m) {
  std::map<std::string, void*> found;
  for (const llvm::Function& f : m) {
    if (!f.isDeclaration() || !f.getName().starts_with("__nv_")) continue;
    const std::string name = f.getName().str();
    if (void* own = backend::host_libdevice_function(name)) {
      found[name] = own;
      continue;
    }
    const std::string host = backend::c_library_name(name);
    const bool floats_only = f.getReturnType()->isFloatingPointTy() &&
                             std::all_of(f.arg_begin(), f.arg_end(), [](const llvm::Argument& a) {
                               return a.getType()->isFloatTy() || a.getType()->isDoubleTy();
                             });
    if (!floats_only) continue;
    if (void* address = llvm::sys::DynamicLibrary::SearchForAddressOfSymbol(host)) found[name] = address;
  }
  return found;
}

/// Throws CompileError when lowered kernel `m` uses what the host target cannot run yet:
/// GPU intrinsics, inline PTX, functions of libraries, shared arrays of device functions. `math` are the libdevice functions the host has (host_math_symbols).
void check_runs_on_host(const llvm::Module& m, const std::string& kernel, const std::map<std::string, void*>& math) {
  auto refuse = [&](const std::string& what) {
    throw CompileError("cutlet: kernel '" + kernel + "' uses " + what +
                       ", which the CPU target does not run yet; run it on a GPU (the CPU runs per-thread "
                       "kernels, and tile kernels without tensor-core dots, asynchronous copies or TMA)");
  };
  for (const llvm::GlobalVariable& g : m.globals())
    if (g.getAddressSpace() == 3) refuse("a shared_array inside a device function");
  std::set<std::string> allowed;
  for (const auto& [name, address] : math) allowed.insert(name);
  for (const HostFunction& h : kHostFunctions) allowed.insert(h.name);
  for (const llvm::Function& f : m) {
    if (f.isDeclaration()) {
      if (f.use_empty()) continue;
      if (f.getName().starts_with("llvm.nvvm.")) refuse("the GPU operation " + f.getName().str());
      if (!f.isIntrinsic() && !allowed.count(f.getName().str())) refuse("the library function " + f.getName().str());
      continue;
    }
    for (const llvm::BasicBlock& bb : f)
      for (const llvm::Instruction& inst : bb) {
        if (const auto* call = llvm::dyn_cast<llvm::CallBase>(&inst); call && call->isInlineAsm())
          refuse("inline PTX (" + llvm::cast<llvm::InlineAsm>(call->getCalledOperand())->getAsmString() + ")");
      }
  }
}

/// The kernel's parameters, loaded from `args` (args[i] points to parameter i's value; a
/// record goes by value, the kernel copying it from the slot itself).
std::vector<llvm::Value*> load_params(llvm::IRBuilder<>& b, llvm::Value* args, llvm::Function& kernel, const ir::Function& fn) {
  llvm::Type* ptr = b.getPtrTy();
  std::vector<llvm::Value*> params;
  for (unsigned i = 0; i < fn.params().size(); ++i) {
    llvm::Value* slot = b.CreateLoad(ptr, b.CreateConstInBoundsGEP1_32(ptr, args, i));
    params.push_back(fn.type_of(fn.params()[i]).is_record() ? slot : b.CreateLoad(kernel.getArg(i)->getType(), slot));
  }
  return params;
}

/// With line info, gives entry point `entry` a debug scope and its `call` of the kernel a
/// location: otherwise the inliner drops the kernel's lines from the code inlined into it.
void give_debug_scope(llvm::Module& m, llvm::Function& entry, llvm::Function& kernel, llvm::CallInst* call) {
  llvm::DISubprogram* sp = kernel.getSubprogram();
  if (!sp) return;
  llvm::DIBuilder di(m, /*AllowUnresolved=*/false, sp->getUnit());
  auto* scope = di.createFunction(sp->getFile(), entry.getName(), entry.getName(), sp->getFile(), sp->getLine(),
                                  di.createSubroutineType(di.getOrCreateTypeArray({})), sp->getLine(),
                                  llvm::DINode::FlagArtificial, llvm::DISubprogram::SPFlagDefinition);
  entry.setSubprogram(scope);
  call->setDebugLoc(llvm::DILocation::get(m.getContext(), sp->getLine(), 0, scope));
  di.finalizeSubprogram(scope);
  di.finalize();
}

/// Adds `cutlet_host_thread(args, state)` to `m`: runs `kernel` as the thread whose special
/// registers `state` holds.
void add_thread_entry(llvm::Module& m, llvm::Function& kernel, const ir::Function& fn) {
  llvm::LLVMContext& ctx = m.getContext();
  llvm::Type* ptr = llvm::PointerType::get(ctx, 0);
  auto* fty = llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), {ptr, ptr}, false);
  auto* thread_fn = llvm::Function::Create(fty, llvm::GlobalValue::ExternalLinkage, kThreadEntry, m);
  thread_fn->addFnAttr(llvm::Attribute::NoUnwind);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", thread_fn));
  std::vector<llvm::Value*> params = load_params(b, thread_fn->getArg(0), kernel, fn);
  params.push_back(thread_fn->getArg(1));
  give_debug_scope(m, *thread_fn, kernel, b.CreateCall(&kernel, params));
  b.CreateRetVoid();
}

void optimize_for_host(llvm::Module& m, llvm::TargetMachine& tm, int opt_level) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder pb(&tm);
  // The C library's math functions the kernel calls, with their vector variants.
  llvm::TargetLibraryInfoImpl tlii(llvm::Triple(m.getTargetTriple()));
  backend::add_vector_math(tlii);
  fam.registerPass([&] { return llvm::TargetLibraryAnalysis(tlii); });
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  const llvm::OptimizationLevel level = opt_level <= 0   ? llvm::OptimizationLevel::O0
                                        : opt_level == 1 ? llvm::OptimizationLevel::O1
                                        : opt_level == 2 ? llvm::OptimizationLevel::O2
                                                         : llvm::OptimizationLevel::O3;
  llvm::ModulePassManager mpm =
      level == llvm::OptimizationLevel::O0 ? pb.buildO0DefaultPipeline(level) : pb.buildPerModuleDefaultPipeline(level);
  mpm.run(m, mam);
}

template <class T>
T unwrap(llvm::Expected<T> v, const std::string& kernel, const char* stage) {
  if (!v) throw CompileError("cutlet: " + std::string(stage) + " of kernel '" + kernel + "' for the CPU failed: " +
                             llvm::toString(v.takeError()));
  return std::move(*v);
}

/// The host CPU as the JIT compiles for it: its name and features (AVX-512 where it has it),
/// FMA contraction as `fma_contraction` asks.
llvm::orc::JITTargetMachineBuilder host_machine(const std::string& kernel, int opt_level, bool fma_contraction) {
  auto jtmb = unwrap(llvm::orc::JITTargetMachineBuilder::detectHost(), kernel, "finding the host CPU");
  jtmb.setCPU(llvm::sys::getHostCPUName().str());
  llvm::SubtargetFeatures features;
  for (const auto& [feature, on] : llvm::sys::getHostCPUFeatures()) features.AddFeature(feature, on);
  jtmb.addFeatures(features.getFeatures());
  jtmb.setCodeGenOptLevel(opt_level <= 0 ? llvm::CodeGenOptLevel::None : llvm::CodeGenOptLevel::Aggressive);
  jtmb.getOptions().AllowFPOpFusion = fma_contraction ? llvm::FPOpFusion::Fast : llvm::FPOpFusion::Standard;
  return jtmb;
}

/// The object file of optimized module `m`, as the JIT would make it.
std::string emit_object(llvm::Module& m, llvm::TargetMachine& tm, const std::string& kernel) {
  llvm::SmallVector<char, 0> bytes;
  llvm::raw_svector_ostream os(bytes);
  llvm::legacy::PassManager pm;
  if (tm.addPassesToEmitFile(pm, os, nullptr, llvm::CodeGenFileType::ObjectFile))
    throw CompileError("cutlet: the host target cannot emit object code for kernel '" + kernel + "'");
  pm.run(m);
  return std::string(bytes.begin(), bytes.end());
}

/// What a host kernel runs: its JIT and entry point.
struct Linked {
  std::unique_ptr<llvm::orc::LLJIT> jit;
  PhasesFn phases = nullptr;                  ///< the block in phases, or
  backend::HostThreadEntry thread = nullptr;  ///< one thread, run as a fiber
};

/// Loads the object code of `image` into a JIT of its own, the runtime functions and `math`
/// (the math functions it calls, by name) defined for it, and finds its entry point.
Linked link(const backend::HostKernelImage& image, llvm::orc::JITTargetMachineBuilder jtmb,
            const std::map<std::string, void*>& math) {
  const std::string& kernel = image.name;
  Linked impl;
  llvm::orc::LLJITBuilder builder;
  builder.setJITTargetMachineBuilder(std::move(jtmb));
  // With line info, the code is announced to debuggers (GDB's JIT interface, which LLDB reads
  // too), so that they can set breakpoints on the kernel's source lines and step through them.
  if (image.line_info)
    builder.setObjectLinkingLayerCreator([](llvm::orc::ExecutionSession& session, const llvm::Triple&)
                                             -> llvm::Expected<std::unique_ptr<llvm::orc::ObjectLayer>> {
      auto layer = std::make_unique<llvm::orc::RTDyldObjectLinkingLayer>(
          session, [] { return std::make_unique<llvm::SectionMemoryManager>(); });
      layer->registerJITEventListener(*llvm::JITEventListener::createGDBRegistrationListener());
      return layer;
    });
  impl.jit = unwrap(builder.create(), kernel, "starting the JIT");
  llvm::orc::SymbolMap runtime;
  for (const HostFunction& h : kHostFunctions)
    runtime[impl.jit->mangleAndIntern(h.name)] = {llvm::orc::ExecutorAddr::fromPtr(h.address), llvm::JITSymbolFlags::Exported};
  for (const auto& [name, address] : math)
    runtime[impl.jit->mangleAndIntern(name)] = {llvm::orc::ExecutorAddr::fromPtr(address), llvm::JITSymbolFlags::Exported};
  for (const auto& [name, address] : backend::host_soft_float_functions())
    runtime[impl.jit->mangleAndIntern(name)] = {llvm::orc::ExecutorAddr::fromPtr(address), llvm::JITSymbolFlags::Exported};
  if (llvm::Error e = impl.jit->getMainJITDylib().define(llvm::orc::absoluteSymbols(std::move(runtime))))
    throw CompileError("cutlet: preparing the JIT for kernel '" + kernel + "' failed: " + llvm::toString(std::move(e)));
  if (llvm::Error e = impl.jit->addObjectFile(llvm::MemoryBuffer::getMemBufferCopy(image.object, kernel)))
    throw CompileError("cutlet: loading kernel '" + kernel + "' for the CPU failed: " + llvm::toString(std::move(e)));
  auto address = unwrap(impl.jit->lookup(image.phases ? backend::kPhasesEntry : kThreadEntry), kernel, "linking");
  if (image.phases) impl.phases = address.toPtr<PhasesFn>();
  else impl.thread = address.toPtr<backend::HostThreadEntry>();
  return impl;
}

/// Where the host has math function `name` of a kernel's object code: host_math's or the C
/// library's for a libdevice name (as host_math_symbols resolves it), SLEEF's vector
/// functions, the C library's names otherwise. Null when this process has none.
void* math_symbol(const std::string& name) {
  if (name.starts_with("__nv_")) {
    if (void* own = backend::host_libdevice_function(name)) return own;
    return llvm::sys::DynamicLibrary::SearchForAddressOfSymbol(backend::c_library_name(name));
  }
  if (void* vector = backend::vector_math_symbol(name)) return vector;
  return llvm::sys::DynamicLibrary::SearchForAddressOfSymbol(name);
}

/// Frees what ::operator new with 64-byte alignment gave.
struct AlignedDelete {
  void operator()(std::byte* p) const { ::operator delete(p, std::align_val_t{64}); }
};

}  // namespace

struct HostKernel::Impl {
  backend::HostKernelImage image;  ///< what it is (HostKernel::image)
  Linked linked;
};

HostKernel::HostKernel(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
HostKernel::HostKernel(HostKernel&&) noexcept = default;
HostKernel& HostKernel::operator=(HostKernel&&) noexcept = default;
HostKernel::~HostKernel() = default;

const std::string& HostKernel::name() const { return impl_->image.name; }
const std::string& HostKernel::llvm_ir() const { return impl_->image.llvm_ir; }
bool HostKernel::runs_in_phases() const { return impl_->linked.phases != nullptr; }
std::size_t HostKernel::static_shared_bytes() const { return impl_->image.reserved_shared; }
const std::vector<std::size_t>& HostKernel::param_sizes() const { return impl_->image.param_sizes; }

HostKernel HostKernel::compile(const ir::Function& kernel, const CompileOptions& options) {
  if (!kernel.is_kernel())
    throw CompileError("cutlet: '" + kernel.name() + "' is a device function; only kernels run on the CPU");
  initialize_host_llvm();
  auto impl = std::make_unique<Impl>();
  impl->image.name = kernel.name();
  impl->image.waits_for_other_blocks = may_wait_for_other_blocks(kernel, kernel.body());
  impl->image.checked = options.checked;
  if (kernel.tile_warps() > 0) impl->image.tile_threads = static_cast<std::uint32_t>(32 * kernel.tile_warps());

  auto context = std::make_unique<llvm::LLVMContext>();
  backend::LoweringOptions lo{options.fma_contraction, options.flush_denormals, options.approx_math, options.line_info, true};
  lo.checked = options.checked;
  // Threads that wait for each other run in phases where the kernel allows, else as fibers
  // (where its ops wait inside their own lowering, or its device functions need their thread).
  // With line info each thread is a fiber of its own, whose variables a debugger can show.
  lo.host_phases = backend::runs_in_phases(kernel) && !options.line_info;
  std::unique_ptr<llvm::Module> module = backend::lower_to_llvm(kernel, *context, lo);
  if (lo.host_phases && calls_host_runtime(*module)) {
    lo.host_phases = false;
    module = backend::lower_to_llvm(kernel, *context, lo);
  }
  // The math the kernel calls: libdevice's names resolved to the host's, and the vector
  // functions tiles call (again after optimization, for those the vectorizers add).
  std::map<std::string, void*> math = host_math_symbols(*module);
  backend::add_vector_math_symbols(*module, math);
  check_runs_on_host(*module, kernel.name(), math);
  backend::name_vectorizable_math(*module, math);

  llvm::orc::JITTargetMachineBuilder jtmb = host_machine(kernel.name(), options.opt_level, options.fma_contraction);
  auto tm = unwrap(jtmb.createTargetMachine(), kernel.name(), "making a host target machine");
  module->setTargetTriple(tm->getTargetTriple().str());
  module->setDataLayout(tm->createDataLayout());

  for (std::size_t i = 0; i < kernel.params().size(); ++i) {
    // A struct by value arrives as a pointer to its bytes (byval), all of which the kernel reads.
    const ir::Type t = kernel.type_of(kernel.params()[i]);
    impl->image.param_sizes.push_back(t.is_record() ? static_cast<std::size_t>(t.record_size())
                                              : module->getDataLayout().getTypeAllocSize(backend::llvm_type(*context, t)));
  }
  const bool phases = lo.host_phases;
  if (phases) {
    impl->image.scratch_per_thread = backend::phases_scratch_per_thread(*module);
    impl->image.exchange_bytes = backend::phases_exchange_bytes(*module);
    impl->image.phase_errors = backend::phases_errors(*module);
  } else {
    llvm::Function* fn = module->getFunction(kernel.name());
    CUTLET_ASSERT(fn != nullptr, "the host lowering made no kernel function");
    add_thread_entry(*module, *fn, kernel);
    const llvm::Function* sync = module->getFunction("cutlet_host_grid_sync");
    impl->image.grid_syncs = sync && !sync->use_empty();
  }
  if (kernel.shared_bytes() > 0) impl->image.reserved_shared = static_cast<std::size_t>((kernel.shared_bytes() + 15) / 16 * 16);
  {
    std::string err;
    llvm::raw_string_ostream es(err);
    if (llvm::verifyModule(*module, &es))
      throw InternalError("cutlet internal error: the host LLVM IR for kernel '" + kernel.name() +
                          "' is invalid; this is a bug in cutlet, please report it:\n" + err);
  }
  if (options.fma_contraction) backend::contract_narrow_float_multiply_adds(*module);
  optimize_for_host(*module, *tm, options.opt_level);
  backend::add_vector_math_symbols(*module, math);
  impl->image.llvm_ir = text_of(*module);

  impl->image.object = emit_object(*module, *tm, kernel.name());
  impl->image.phases = phases;
  impl->image.line_info = options.line_info;
  impl->image.opt_level = options.opt_level;
  impl->image.fma_contraction = options.fma_contraction;
  for (const auto& [name, address] : math) impl->image.math_symbols.push_back(name);
  impl->linked = link(impl->image, std::move(jtmb), math);
  return HostKernel(std::move(impl));
}

std::string HostKernel::image() const { return impl_->image.serialize(); }

HostKernel HostKernel::load(std::string_view image) {
  initialize_host_llvm();
  std::optional<backend::HostKernelImage> parsed = backend::HostKernelImage::parse(image);
  if (!parsed) throw CompileError("cutlet: not the image of a host kernel of this cutlet (another format, or damaged)");
  auto impl = std::make_unique<Impl>();
  impl->image = std::move(*parsed);
  std::map<std::string, void*> math;
  for (const std::string& name : impl->image.math_symbols) {
    void* address = math_symbol(name);
    if (!address)
      throw CompileError("cutlet: the host code of kernel '" + impl->image.name + "' calls " + name +
                         ", which this process does not have (was it compiled where SLEEF is installed?)");
    math[name] = address;
  }
  impl->linked = link(impl->image, host_machine(impl->image.name, static_cast<int>(impl->image.opt_level), impl->image.fma_contraction), math);
  return HostKernel(std::move(impl));
}

std::string HostKernel::host_identity() {
  initialize_host_llvm();
  std::string text = llvm::sys::getProcessTriple() + " " + llvm::sys::getHostCPUName().str();
  for (const auto& [feature, on] : llvm::sys::getHostCPUFeatures())
    if (on) text += " +" + feature.str();
  text += backend::host_vector_math() ? " sleef" : " libm";
  return text;
}

void HostKernel::run(HostDim grid, HostDim block, void** args, std::size_t dynamic_shared_bytes) const {
  if (grid.count() == 0 || block.count() == 0)
    throw Error("cutlet: kernel '" + impl_->image.name + "' launched on the CPU with an empty grid or block (" +
                std::to_string(grid.x) + "x" + std::to_string(grid.y) + "x" + std::to_string(grid.z) + " blocks of " +
                std::to_string(block.x) + "x" + std::to_string(block.y) + "x" + std::to_string(block.z) +
                " threads); every dimension must be at least 1");
  if (block.count() > 1024)
    throw Error("cutlet: kernel '" + impl_->image.name + "' launched on the CPU with blocks of " +
                std::to_string(block.count()) + " threads; a block has at most 1024, as on the GPU");
  if (impl_->image.tile_threads > 0) block = {impl_->image.tile_threads, 1, 1};  // a tile kernel's own (ir::choose_host_warps)
  const std::uint32_t shape[6] = {block.x, block.y, block.z, grid.x, grid.y, grid.z};
  const std::uint32_t grid_dims[3] = {grid.x, grid.y, grid.z}, block_dims[3] = {block.x, block.y, block.z};
  const std::size_t shared_bytes = impl_->image.reserved_shared + dynamic_shared_bytes;
  const std::uint64_t blocks = grid.count();
  if (impl_->image.grid_syncs)
    return backend::run_cooperative_grid(impl_->image.name, impl_->linked.thread, args, grid_dims, block_dims, shared_bytes,
                                         impl_->image.checked);
  // Each worker takes the next `chunk` blocks at a time: neighbouring blocks, whose memory
  // is mostly neighbouring too, run one after the other on one core. Blocks that may wait
  // for earlier ones (a scan's look-back) go one at a time, so that the block one waits for
  // runs beside it rather than after it on the same core.
  backend::HostThreadPool& pool = backend::HostThreadPool::instance();
  const std::uint64_t chunk =
      impl_->image.waits_for_other_blocks ? 1 : std::clamp<std::uint64_t>(blocks / (16 * (std::uint64_t{pool.size()} + 1)), 1, 64);
  std::atomic<std::uint64_t> next{0};
  std::atomic<bool> stop{false};
  std::mutex failure_mutex;
  std::exception_ptr failure;
  auto work = [&] {
    std::unique_ptr<backend::HostBlockRunner> runner;
    std::vector<std::byte> shared;
    std::unique_ptr<std::byte[], AlignedDelete> scratch;
    try {
      if (impl_->linked.thread) runner = std::make_unique<backend::HostBlockRunner>();
      if (impl_->linked.phases) {
        shared.resize(shared_bytes);
        scratch.reset(static_cast<std::byte*>(
            ::operator new(std::max<std::size_t>(64, impl_->image.exchange_bytes + impl_->image.scratch_per_thread * block.count()),
                           std::align_val_t{64})));
      }
      auto run_block = [&](std::uint64_t i) {
        const auto bx = static_cast<std::uint32_t>(i % grid.x);
        const auto by = static_cast<std::uint32_t>(i / grid.x % grid.y);
        const auto bz = static_cast<std::uint32_t>(i / (std::uint64_t{grid.x} * grid.y));
        if (impl_->image.checked && !runner) backend::host_check_begin_block(shared.data(), shared_bytes);
        if (runner) {
          runner->run(impl_->image.name, impl_->linked.thread, args, grid_dims, block_dims, {bx, by, bz}, shared_bytes, impl_->image.checked);
        } else if (const std::uint32_t failed = impl_->linked.phases(args, shape, bx, by, bz, shared.data(), scratch.get())) {
          if (failed == backend::kPhasesAssertFailed)
            throw Error("cutlet: kernel '" + impl_->image.name + "' on the CPU: " + backend::host_phases_failure());
          throw Error("cutlet: kernel '" + impl_->image.name + "' on the CPU stopped in block (" + std::to_string(bx) + ", " +
                      std::to_string(by) + ", " + std::to_string(bz) + "): " + impl_->image.phase_errors.at(failed - 1));
        }
        if (impl_->image.checked && !backend::host_check_failure().empty())
          throw Error("cutlet: kernel '" + impl_->image.name + "' on the CPU, checked: " + backend::host_check_failure());
      };
      std::uint64_t current = 0;  // the block running, for a fault's message
      auto run_blocks = [&] {
        for (std::uint64_t first = next.fetch_add(chunk); first < blocks; first = next.fetch_add(chunk)) {
          const std::uint64_t last = std::min(blocks, first + chunk);
          for (std::uint64_t i = first; i < last && !stop.load(std::memory_order_relaxed); ++i) {
            current = i;
            run_block(i);
          }
        }
      };
      if (const std::optional<backend::HostFault> fault = backend::catch_faults(run_blocks)) {
        runner.reset();  // its fibers were dropped in the middle of the block
        backend::HostBlockRunner::forget_dropped_block();
        throw HostKernelFault(backend::fault_message(impl_->image.name, *fault,
                                           "block (" + std::to_string(current % grid.x) + ", " +
                                               std::to_string(current / grid.x % grid.y) + ", " +
                                               std::to_string(current / (std::uint64_t{grid.x} * grid.y)) + ")"),
                              fault->illegal_address());
      }
    } catch (...) {
      stop = true;  // the other workers stop after their block
      next = blocks;
      std::lock_guard<std::mutex> lock(failure_mutex);
      if (!failure) failure = std::current_exception();
    }
  };
  // The calling thread and the pool's threads take blocks in order until none is left.
  pool.run(static_cast<unsigned>(std::min<std::uint64_t>(blocks - 1, pool.size())), work);
  if (failure) std::rethrow_exception(failure);
}

}  // namespace cutlet
