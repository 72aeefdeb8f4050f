// The vector variants of math functions for kernels on the host, from SLEEF
// (host_vector_math.h).
#include "host_vector_math.h"

#include <dlfcn.h>

#include <set>

#include <llvm/Support/DynamicLibrary.h>
#include <llvm/TargetParser/Host.h>
#include <llvm/TargetParser/Triple.h>

#include "host_math.h"

namespace cutlet::backend {
namespace {

/// The functions SLEEF has 1-ulp variants of (Sleef_<name>f8_u10avx2, Sleef_<name>d4_u10avx2,
/// and the avx512f ones of twice the lanes), by their C library names less the f of floats.
/// Left out: cbrt (cutlet's own, more accurate than the C library's) and those whose
/// variants SLEEF gives other accuracies.
const std::set<std::string>& sleef_functions() {
  static const std::set<std::string> names = {"sin",  "cos",   "tan",   "asin", "acos",  "atan",  "atan2", "sinh",
                                              "cosh", "tanh",  "asinh", "acosh", "atanh", "exp",   "exp2",  "exp10",
                                              "expm1", "log",  "log2",  "log10", "log1p", "pow",   "erf"};
  return names;
}

/// SLEEF's name for C library function `c_name` (expf, exp) in `lanes` lanes of f32 (or f64).
std::string sleef_name(const std::string& c_name, bool f32, unsigned lanes) {
  const std::string base = f32 ? c_name.substr(0, c_name.size() - 1) : c_name;
  const bool wide = lanes == (f32 ? 16u : 8u);
  return "Sleef_" + base + (f32 ? "f" : "d") + std::to_string(lanes) + "_u10" + (wide ? "avx512f" : "avx2");
}

/// Whether C library function `c_name` of f32 (else f64) arguments has SLEEF variants.
bool vectorizable(const std::string& c_name, bool f32) {
  if (f32 && (c_name.empty() || c_name.back() != 'f')) return false;
  return sleef_functions().count(f32 ? c_name.substr(0, c_name.size() - 1) : c_name) != 0;
}

bool host_has(const char* feature) {
  const llvm::StringMap<bool> features = llvm::sys::getHostCPUFeatures();
  auto f = features.find(feature);
  return f != features.end() && f->second;
}

/// SLEEF's library, opened once (null when the host has no vector math).
void* sleef() {
  static void* handle = [] () -> void* {
    const llvm::Triple host(llvm::sys::getProcessTriple());
    if (host.getArch() != llvm::Triple::x86_64 || !host.isOSLinux() || !host_has("avx2") || !host_has("fma")) return nullptr;
    return dlopen("libsleef.so.3", RTLD_NOW | RTLD_LOCAL);
  }();
  return handle;
}

bool host_avx512() {
  static const bool has = host_has("avx512f");
  return has;
}

}  // namespace

bool host_vector_math() { return sleef() != nullptr; }

void name_vectorizable_math(llvm::Module& m, std::map<std::string, void*>& math) {
  if (!host_vector_math()) return;
  std::map<std::string, void*> named;
  for (const auto& [name, address] : math) {
    const std::string c_name = c_library_name(name);
    llvm::Function* f = m.getFunction(name);
    const bool f32 = f && f->getReturnType()->isFloatTy();
    if (!f || !vectorizable(c_name, f32) || address != llvm::sys::DynamicLibrary::SearchForAddressOfSymbol(c_name)) {
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

void add_vector_math(llvm::TargetLibraryInfoImpl& tlii) {
  if (!host_vector_math()) return;
  /// A vector variant as the vectorizer names it.
  struct Variant {
    std::string c_name, vector_name, mangled;
    unsigned lanes;
  };
  // VecDesc keeps views of its names: they live as long as the process.
  static const std::vector<Variant> variants = [] {
    std::vector<Variant> v;
    for (const std::string& base : sleef_functions())
      for (const bool f32 : {true, false})
        for (const unsigned lanes : f32 ? std::vector<unsigned>{8, 16} : std::vector<unsigned>{4, 8}) {
          if (lanes == (f32 ? 16u : 8u) && !host_avx512()) continue;
          const std::string c_name = f32 ? base + "f" : base;
          std::string vector_name = sleef_name(c_name, f32, lanes);
          if (!dlsym(sleef(), vector_name.c_str())) continue;
          const std::string params(base == "pow" || base == "atan2" ? 2 : 1, 'v');
          v.push_back({c_name, std::move(vector_name), "_ZGV_LLVM_N" + std::to_string(lanes) + params, lanes});
        }
    return v;
  }();
  std::vector<llvm::VecDesc> descs;
  for (const Variant& v : variants)
    descs.emplace_back(v.c_name, v.vector_name, llvm::ElementCount::getFixed(v.lanes), false, v.mangled);
  tlii.addVectorizableFunctions(descs);
}

llvm::Value* host_vector_math_call(llvm::IRBuilder<>& b, llvm::Module& m, const std::string& libdevice_name,
                                   const std::vector<llvm::Value*>& args) {
  if (!host_vector_math() || args.empty()) return nullptr;
  auto* vt = llvm::dyn_cast<llvm::FixedVectorType>(args[0]->getType());
  if (!vt || !(vt->getElementType()->isFloatTy() || vt->getElementType()->isDoubleTy())) return nullptr;
  const bool f32 = vt->getElementType()->isFloatTy();
  const std::string c_name = c_library_name(libdevice_name);
  if (!vectorizable(c_name, f32)) return nullptr;
  const unsigned n = vt->getNumElements(), narrow = f32 ? 8 : 4;
  const unsigned lanes = n >= 2 * narrow && host_avx512() ? 2 * narrow : narrow;
  const std::string variant = sleef_name(c_name, f32, lanes);
  if (!dlsym(sleef(), variant.c_str())) return nullptr;
  auto* chunk_type = llvm::FixedVectorType::get(vt->getElementType(), lanes);
  auto callee = m.getOrInsertFunction(variant, llvm::FunctionType::get(chunk_type, std::vector<llvm::Type*>(args.size(), chunk_type), false));
  if (auto* f = llvm::dyn_cast<llvm::Function>(callee.getCallee())) {
    f->setDoesNotAccessMemory();
    f->setDoesNotThrow();
    f->setWillReturn();
  }
  std::vector<llvm::Value*> chunks;
  for (unsigned first = 0; first < n; first += lanes) {
    std::vector<int> pick(lanes);
    for (unsigned l = 0; l < lanes; ++l) pick[l] = first + l < n ? static_cast<int>(first + l) : -1;
    std::vector<llvm::Value*> in;
    for (llvm::Value* a : args) in.push_back(b.CreateShuffleVector(a, pick));
    chunks.push_back(b.CreateCall(callee, in));
  }
  // The chunks joined, less the lanes past n.
  llvm::Value* out = llvm::PoisonValue::get(vt);
  for (unsigned i = 0; i < n; ++i)
    out = b.CreateInsertElement(out, b.CreateExtractElement(chunks[i / lanes], std::uint64_t{i % lanes}), std::uint64_t{i});
  return out;
}

void* vector_math_symbol(const std::string& name) {
  if (!name.starts_with("Sleef_") || !host_vector_math()) return nullptr;
  return dlsym(sleef(), name.c_str());
}

void add_vector_math_symbols(const llvm::Module& m, std::map<std::string, void*>& symbols) {
  if (!host_vector_math()) return;
  for (const llvm::Function& f : m)
    if (f.isDeclaration())
      if (void* address = vector_math_symbol(f.getName().str())) symbols[f.getName().str()] = address;
}

}  // namespace cutlet::backend
