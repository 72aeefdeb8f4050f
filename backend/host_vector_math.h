// Internal: the vector variants of math functions for kernels on the host, from SLEEF
// (libsleef, loaded when the process runs), so that LLVM's vectorizers turn a thread loop's
// calls of expf into calls that take 8 or 16 lanes at once, and a tile's registers go to such
// calls directly. Only SLEEF's 1-ulp variants are used: each is as accurate as the CUDA math
// library's function (the host math tests check them against its documented maximum errors).
// Without SLEEF, or on other CPUs than x86-64 with AVX2, the C library's scalar functions run.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <llvm/Analysis/TargetLibraryInfo.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>

namespace cutlet::backend {

/// Whether the host has vector math: x86-64 with AVX2, and SLEEF's library loaded.
bool host_vector_math();

/// Where the host has vector math: gives the declarations of m's libdevice functions that have
/// vector variants (math maps them to the C library's function) the C library's names, which
/// LLVM knows, declared without errno, and renames them in `math` too.
void name_vectorizable_math(llvm::Module& m, std::map<std::string, void*>& math);

/// Where the host has vector math: tells `tlii` about the vector variants.
void add_vector_math(llvm::TargetLibraryInfoImpl& tlii);

/// Where the host has vector math and libdevice function `libdevice_name` (__nv_expf) has a
/// vector variant: the function of each lane of the f32 or f64 vectors `args`, 16 or 8 lanes
/// (AVX-512, where the CPU has it and the vectors are that long) or 8 or 4 (AVX2) a call.
/// Else nullptr.
llvm::Value* host_vector_math_call(llvm::IRBuilder<>& b, llvm::Module& m, const std::string& libdevice_name,
                                   const std::vector<llvm::Value*>& args);

/// SLEEF's function `name` (a vector variant a kernel's code calls), or null without it.
void* vector_math_symbol(const std::string& name);

/// Adds to `symbols` the vector variants module m calls, by name.
void add_vector_math_symbols(const llvm::Module& m, std::map<std::string, void*>& symbols);

}  // namespace cutlet::backend
