// Exceptions raised by the runtime: a failed CUDA driver call, a kernel fault that poisoned a
// context, and a missing driver.
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

  /// Builds the error with its CUresult's name and the message given, without asking the
  /// driver: for failures cutlet reports in CUDA's terms itself, such as a kernel failing on
  /// the CPU device (CUDA_ERROR_ASSERT for a failed assert_).
  CudaError(int code, std::string call, std::string name, const std::string& message);

 private:
  int code_;
  std::string name_;
  std::string call_;
};

/// A kernel fault (an illegal or misaligned address, a trap or failed assert_, an illegal
/// instruction, a hardware stack error) that made a device's primary context unusable. CUDA
/// reports such a fault at the next call that synchronizes or launches, on any stream of the
/// context, and every later call on the context fails with it ("sticky" errors).
///
/// The first report's what() is CudaError's text followed by the kernel last launched through
/// cutlet on the stream the error surfaced on (else the most recent launch on the device) and
/// the source line that launched it. From then on cutlet refuses calls on the context without
/// asking the driver: each throws a ContextFaultError with repeated() true, the same code(),
/// kernel() and launched_at(), and cause() holding the first report's what(). Device::reset()
/// makes a fresh context and ends the refusals.
class ContextFaultError : public CudaError {
 public:
  /// The error for CUresult `code` of `call` (formatted as CudaError does, `hint` appended);
  /// `device` is the ordinal, `kernel` and `launched_at` ("file:line") name the launch it is
  /// attributed to (empty when unknown), `repeated` marks a refusal after the first report,
  /// and `cause` is the first report's what() (empty: this error is the first report).
  ContextFaultError(int code, std::string call, const std::string& hint, int device, std::string kernel,
                    std::string launched_at, bool repeated, std::string cause);

  /// The ordinal of the device whose context is poisoned.
  int device() const noexcept { return device_; }
  /// The kernel the fault is attributed to (the last one launched where it surfaced), or ""
  /// when no launch through cutlet is known.
  const std::string& kernel() const noexcept { return kernel_; }
  /// Where that kernel was launched, as "file:line", or "" when unknown.
  const std::string& launched_at() const noexcept { return launched_at_; }
  /// False for the first report of the fault, true for a later call refused because of it.
  bool repeated() const noexcept { return repeated_; }
  /// The what() of the first report (for the first report itself, its own what()).
  const std::string& cause() const noexcept { return cause_.empty() ? what_text_ : cause_; }

 private:
  int device_;
  std::string kernel_;
  std::string launched_at_;
  bool repeated_;
  std::string cause_;
  std::string what_text_;
};

/// A kernel of the CPU device that failed while it ran (a failed assert_, threads that wait
/// for each other forever, an access checked mode refused, a hardware fault such as a write
/// where nothing is mapped), reported in CUDA's terms (CUDA_ERROR_ASSERT for a failed assert_,
/// CUDA_ERROR_ILLEGAL_ADDRESS for a bad access the hardware caught, else
/// CUDA_ERROR_LAUNCH_FAILED) at the next synchronization of its stream or of the device, or of
/// an event recorded after it. call() names the kernel and the source line that launched it.
/// Unlike a GPU's kernel fault it poisons nothing: it is reported once, and later work runs.
class KernelError : public CudaError {
 public:
  using CudaError::CudaError;
};

/// No usable CUDA driver: libcuda.so.1 could not be loaded, lacks the entry points cutlet
/// needs, or cuInit failed (e.g. no GPU visible). what() starts with "no CUDA driver found"
/// and says why. Tracing and compiling kernels still work; loading and launching do not.
class NoDriverError : public Error {
 public:
  using Error::Error;
};

}  // namespace cutlet
