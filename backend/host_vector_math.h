// Internal: the vector variants of math functions for kernels on the host (glibc's libmvec),
// so that LLVM's vectorizers turn a tile's or a thread loop's calls of expf into calls that
// take 8 lanes at once. Each variant is as accurate as the CUDA math library's function (the
// host math tests check them against its documented maximum errors).
#pragma once

#include <map>
#include <string>
#include <vector>

#include <llvm/Analysis/TargetLibraryInfo.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>

namespace cutlet::backend {

/// Whether the host has the vector math library for its CPU (x86-64 with AVX2, libmvec loaded).
bool host_vector_math();

/// Where the host has vector math: gives the declarations of m's libdevice functions that have
/// vector variants (math maps them to the C library's function) the C library's names, which
/// LLVM knows, and renames them in `math` too.
void name_vectorizable_math(llvm::Module& m, std::map<std::string, void*>& math);

/// Where the host has vector math and libdevice function `libdevice_name` (__nv_expf) has a
/// vector variant for f32: the function of each lane of the f32 vectors `args`, 8 lanes a
/// call. Else nullptr.
llvm::Value* host_vector_math_call(llvm::IRBuilder<>& b, llvm::Module& m, const std::string& libdevice_name,
                                   const std::vector<llvm::Value*>& args);

/// Where the host has vector math: tells `tlii` about the vector variants.
void add_vector_math(llvm::TargetLibraryInfoImpl& tlii, const llvm::Triple& triple);

/// Adds to `symbols` the vector variants optimized module m calls, by name.
void add_vector_math_symbols(const llvm::Module& m, std::map<std::string, void*>& symbols);

}  // namespace cutlet::backend
