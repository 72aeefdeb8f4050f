// The vector variants of math functions for kernels on the host (host_vector_math.h).
#include "host_vector_math.h"

#include <set>

#include <llvm/Support/DynamicLibrary.h>
#include <llvm/TargetParser/Host.h>
#include <llvm/TargetParser/Triple.h>

namespace cutlet::backend {

namespace {

/// The C library's float functions whose vector variants in libmvec (LLVM's LIBMVEC_X86
/// table) are as accurate as CUDA's: not its double ones (exp, sin and cos are off by more
/// than CUDA's bounds), nor logf's (2.5 ulps where CUDA's is 1).
bool vectorizable(const std::string& c_name) {
  static const std::set<std::string> names = {"sinf", "cosf", "expf"};
  return names.count(c_name) != 0;
}

/// The C library's name of libdevice function `name` (__nv_expf, __nv_fast_expf: expf).
std::string c_name_of(const std::string& name) {
  return name.substr(name.starts_with("__nv_fast_") ? 10 : name.starts_with("__nv_") ? 5 : 0);
}

/// Whether the host CPU has AVX-512 (foundation).
bool host_has_avx512() {
  static const bool has = [] {
    const llvm::StringMap<bool> features = llvm::sys::getHostCPUFeatures();
    auto f = features.find("avx512f");
    return f != features.end() && f->second;
  }();
  return has;
}

}  // namespace

bool host_vector_math() {
  static const bool available = [] {
    const llvm::Triple host(llvm::sys::getProcessTriple());
    if (host.getArch() != llvm::Triple::x86_64 || !host.isOSLinux()) return false;
    const llvm::StringMap<bool> features = llvm::sys::getHostCPUFeatures();
    if (auto avx2 = features.find("avx2"); avx2 == features.end() || !avx2->second) return false;
    return !llvm::sys::DynamicLibrary::LoadLibraryPermanently("libmvec.so.1");
  }();
  return available;
}

void name_vectorizable_math(llvm::Module& m, std::map<std::string, void*>& math) {
  if (!host_vector_math()) return;
  std::map<std::string, void*> named;
  for (const auto& [name, address] : math) {
    const std::string c_name = c_name_of(name);
    llvm::Function* f = m.getFunction(name);
    if (!f || !vectorizable(c_name) || address != llvm::sys::DynamicLibrary::SearchForAddressOfSymbol(c_name)) {
      named.emplace(name, address);
      continue;
    }
    if (llvm::Function* same = m.getFunction(c_name)) {  // __nv_expf and __nv_fast_expf
      f->replaceAllUsesWith(same);
      f->eraseFromParent();
    } else {
      f->setName(c_name);
      // As libdevice's: no errno (which would keep LLVM from vectorizing the calls).
      f->setDoesNotAccessMemory();
      f->setDoesNotThrow();
      f->setWillReturn();
    }
    named.emplace(c_name, address);
  }
  math = std::move(named);
}

llvm::Value* host_vector_math_call(llvm::IRBuilder<>& b, llvm::Module& m, const std::string& libdevice_name,
                                   const std::vector<llvm::Value*>& args) {
  const std::string c_name = c_name_of(libdevice_name);
  if (!host_vector_math() || !vectorizable(c_name) || args.empty()) return nullptr;
  auto* vt = llvm::dyn_cast<llvm::FixedVectorType>(args[0]->getType());
  if (!vt || !vt->getElementType()->isFloatTy()) return nullptr;
  // The AVX-512 variants where the CPU has AVX-512 and the tile 16 registers, else AVX2's.
  const unsigned n = vt->getNumElements();
  const unsigned kLanes = n >= 16 && host_has_avx512() ? 16 : 8;
  auto* chunk_type = llvm::FixedVectorType::get(b.getFloatTy(), kLanes);
  const std::string variant = (kLanes == 16 ? "_ZGVeN16" : "_ZGVdN8") + std::string(args.size(), 'v') + "_" + c_name;
  auto callee = m.getOrInsertFunction(variant, llvm::FunctionType::get(chunk_type, std::vector<llvm::Type*>(args.size(), chunk_type), false));
  if (auto* f = llvm::dyn_cast<llvm::Function>(callee.getCallee())) {
    f->setDoesNotAccessMemory();
    f->setDoesNotThrow();
    f->setWillReturn();
  }
  std::vector<llvm::Value*> chunks;
  for (unsigned first = 0; first < n; first += kLanes) {
    std::vector<int> lanes(kLanes);
    for (unsigned l = 0; l < kLanes; ++l) lanes[l] = first + l < n ? static_cast<int>(first + l) : -1;
    std::vector<llvm::Value*> in;
    for (llvm::Value* a : args) in.push_back(b.CreateShuffleVector(a, lanes));
    chunks.push_back(b.CreateCall(callee, in));
  }
  // The chunks joined, less the lanes past n.
  llvm::Value* out = llvm::PoisonValue::get(vt);
  for (unsigned i = 0; i < n; ++i)
    out = b.CreateInsertElement(out, b.CreateExtractElement(chunks[i / kLanes], std::uint64_t{i % kLanes}), std::uint64_t{i});
  return out;
}

void add_vector_math(llvm::TargetLibraryInfoImpl& tlii, const llvm::Triple& triple) {
  if (host_vector_math()) tlii.addVectorizableFunctionsFromVecLib(llvm::TargetLibraryInfoImpl::LIBMVEC_X86, triple);
}

void add_vector_math_symbols(const llvm::Module& m, std::map<std::string, void*>& symbols) {
  for (const llvm::Function& f : m)
    if (f.isDeclaration() && f.getName().starts_with("_ZGV"))
      if (void* address = llvm::sys::DynamicLibrary::SearchForAddressOfSymbol(f.getName().str()))
        symbols[f.getName().str()] = address;
}

}  // namespace cutlet::backend
