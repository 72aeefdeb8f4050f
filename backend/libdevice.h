// Internal: linking NVIDIA's libdevice (the CUDA math library as LLVM bitcode).
#pragma once

#include <string>

#include <llvm/IR/Module.h>

namespace cutlet::backend {

/// Where libdevice.10.bc is: $CUTLET_LIBDEVICE, else $CUDA_HOME (or $CUDA_PATH)/nvvm/libdevice,
/// else the toolkit cutlet was built with, else /usr/local/cuda.
std::string libdevice_path();

/// Links the libdevice functions that `m` calls into it (only those, with internal linkage
/// so that O3 inlines and drops them) and sets NVVM's flush-to-zero reflection flag. Does
/// nothing when `m` calls none. Throws CompileError when libdevice cannot be read.
void link_libdevice(llvm::Module& m, bool flush_denormals);

/// What libdevice's __nvvm_reflect queries answer (nvcc's defaults: precise division and
/// square root, no flush to zero).
struct ReflectValues {
  bool flush_denormals = false;  ///< __CUDA_FTZ
  bool precise = true;           ///< __CUDA_PREC_DIV, __CUDA_PREC_SQRT
  int arch = 90;                 ///< __CUDA_ARCH / 10
};

/// Replaces every __nvvm_reflect call in `m` by its answer, so that libdevice picks the
/// code paths these options ask for (LLVM's NVVMReflect pass only knows __CUDA_FTZ).
void resolve_reflections(llvm::Module& m, const ReflectValues& values);

}  // namespace cutlet::backend
