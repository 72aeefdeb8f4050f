// Exceptions raised by the runtime: a failed CUDA driver call, and a missing driver.
#pragma once

#include <string>

#include "cutlet/error.h"

namespace cutlet {

/// A CUDA driver call returned an error. what() reads
/// "<call> failed: <NAME>: <driver's description>[; <hint>]", for example
/// "cuMemAlloc(1073741824 bytes) failed: CUDA_ERROR_OUT_OF_MEMORY: out of memory; ...".
/// Errors that the driver reports asynchronously (a kernel fault) surface at the next call
/// that synchronizes and are then sticky for the context, as in CUDA itself.
class CudaError : public Error {
 public:
  /// Builds the error for the CUresult `code` returned by `call` (the driver function name,
  /// with its key arguments, e.g. "cuMemAlloc(4096 bytes)"); `hint`, when not empty, is
  /// appended after "; " and should say what to do. The name and description come from the
  /// driver (cuGetErrorName/cuGetErrorString) when it is loaded, else "CUresult <code>".
  CudaError(int code, std::string call, const std::string& hint = {});

  /// The raw CUresult value (never 0, CUDA_SUCCESS).
  int code() const noexcept { return code_; }
  /// The CUresult's enumerator name, e.g. "CUDA_ERROR_OUT_OF_MEMORY".
  const std::string& name() const noexcept { return name_; }
  /// The call that failed with its key arguments, e.g. "cuMemAlloc(1073741824 bytes)".
  const std::string& call() const noexcept { return call_; }

 private:
  CudaError(int code, std::string call, std::string name, const std::string& message);
  int code_;
  std::string name_;
  std::string call_;
};

/// No usable CUDA driver: libcuda.so.1 could not be loaded, lacks the entry points cutlet
/// needs, or cuInit failed (e.g. no GPU visible). what() starts with "no CUDA driver found"
/// and says why. Tracing and compiling kernels still work; loading and launching do not.
class NoDriverError : public Error {
 public:
  using Error::Error;
};

}  // namespace cutlet
