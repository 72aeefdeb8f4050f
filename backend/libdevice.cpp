// libdevice: found once, read once per process, linked lazily (only the functions used).
#include "libdevice.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <mutex>

#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/GlobalVariable.h>
#include <llvm/IR/Instructions.h>
#include <llvm/Linker/Linker.h>
#include <llvm/Support/MemoryBuffer.h>

#include "cutlet/backend/compiler.h"
#include "cutlet/ir/hash.h"

namespace cutlet::backend {
namespace {

/// libdevice as found and read on the first call (null, and `error` set, if it could not be).
const llvm::MemoryBuffer* loaded_libdevice(std::string* error = nullptr) {
  static std::once_flag once;
  static std::unique_ptr<llvm::MemoryBuffer> buffer;
  static std::string failure;
  std::call_once(once, [] {
    std::string path = libdevice_path();
    auto b = llvm::MemoryBuffer::getFile(path);
    if (!b) failure = "cannot read libdevice at " + path + ": " + b.getError().message();
    else buffer = std::move(*b);
  });
  if (error) *error = failure;
  return buffer.get();
}

const llvm::MemoryBuffer& libdevice_buffer() {
  std::string error;
  const llvm::MemoryBuffer* buffer = loaded_libdevice(&error);
  if (!buffer)
    throw CompileError("cutlet: the kernel uses math functions, but " + error +
                       ". Set CUTLET_LIBDEVICE to libdevice.10.bc (in the CUDA toolkit's nvvm/libdevice folder) "
                       "or CUDA_HOME to the toolkit.");
  return *buffer;
}

}  // namespace

std::string libdevice_path() {
  namespace fs = std::filesystem;
  if (const char* p = std::getenv("CUTLET_LIBDEVICE"); p && *p) return p;
  for (const char* var : {"CUDA_HOME", "CUDA_PATH"}) {
    if (const char* home = std::getenv(var); home && *home) {
      fs::path p = fs::path(home) / "nvvm" / "libdevice" / "libdevice.10.bc";
      if (fs::exists(p)) return p.string();
    }
  }
#ifdef CUTLET_LIBDEVICE_DEFAULT
  if (fs::exists(CUTLET_LIBDEVICE_DEFAULT)) return CUTLET_LIBDEVICE_DEFAULT;
#endif
  return "/usr/local/cuda/nvvm/libdevice/libdevice.10.bc";
}

void resolve_reflections(llvm::Module& m, const ReflectValues& values) {
  llvm::Function* reflect = m.getFunction("__nvvm_reflect");
  if (!reflect) return;
  std::vector<llvm::CallInst*> calls;
  for (llvm::User* u : reflect->users())
    if (auto* call = llvm::dyn_cast<llvm::CallInst>(u)) calls.push_back(call);
  for (llvm::CallInst* call : calls) {
    int value = 0;
    auto* gv = llvm::dyn_cast<llvm::GlobalVariable>(call->getArgOperand(0)->stripPointerCasts());
    if (gv && gv->hasInitializer())
      if (auto* data = llvm::dyn_cast<llvm::ConstantDataArray>(gv->getInitializer())) {
        llvm::StringRef name = data->getAsCString();
        if (name == "__CUDA_FTZ") value = values.flush_denormals ? 1 : 0;
        else if (name == "__CUDA_PREC_SQRT" || name == "__CUDA_PREC_DIV") value = values.precise ? 1 : 0;
        else if (name == "__CUDA_ARCH") value = values.arch * 10;
      }
    call->replaceAllUsesWith(llvm::ConstantInt::get(call->getType(), value));
    call->eraseFromParent();
  }
}

void link_libdevice(llvm::Module& m, bool flush_denormals) {
  m.addModuleFlag(llvm::Module::Override, "nvvm-reflect-ftz", flush_denormals ? 1 : 0);
  bool needed = false;
  for (const llvm::Function& f : m)
    if (f.isDeclaration() && f.getName().starts_with("__nv_")) needed = true;
  if (!needed) return;
  auto lib = llvm::getLazyBitcodeModule(libdevice_buffer().getMemBufferRef(), m.getContext());
  if (!lib) throw CompileError("cutlet: cannot parse libdevice: " + llvm::toString(lib.takeError()));
  (*lib)->setTargetTriple(m.getTargetTriple());
  (*lib)->setDataLayout(m.getDataLayout());
  bool failed = llvm::Linker::linkModules(m, std::move(*lib), llvm::Linker::LinkOnlyNeeded,
                                          [](llvm::Module& merged, const llvm::StringSet<>& names) {
                                            for (const auto& n : names)
                                              if (auto* gv = merged.getNamedValue(n.getKey()))
                                                if (!gv->isDeclaration()) gv->setLinkage(llvm::GlobalValue::InternalLinkage);
                                          });
  if (failed) throw CompileError("cutlet: linking libdevice into the kernel failed");
}

}  // namespace cutlet::backend

namespace cutlet {

std::string libdevice_file() { return backend::libdevice_path(); }

std::string libdevice_build_id() {
  static const std::string id = [] {
    const llvm::MemoryBuffer* buffer = backend::loaded_libdevice();
    if (!buffer) return std::string("unreadable");
    Hasher h;
    h.add(std::string_view(buffer->getBufferStart(), buffer->getBufferSize()));
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h.value()));
    return std::to_string(buffer->getBufferSize()) + ":" + hex;
  }();
  return id;
}

}  // namespace cutlet
