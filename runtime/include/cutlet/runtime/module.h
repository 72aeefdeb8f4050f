// Loaded GPU code: a Module (a cubin, fatbin or PTX image) and the kernels (Function) in it.
#pragma once

#include <span>
#include <string>
#include <utility>

#include "cutlet/runtime/device.h"

namespace cutlet {

/// Static properties of a compiled kernel, as cuFuncGetAttribute reports them.
struct FunctionAttributes {
  int num_regs = 0;               ///< Registers per thread.
  int shared_size_bytes = 0;      ///< Statically allocated shared memory per block.
  int local_size_bytes = 0;       ///< Local memory (spills, stack) per thread.
  int const_size_bytes = 0;       ///< User constant memory.
  int max_threads_per_block = 0;  ///< Most threads per block this kernel can launch with.
  int ptx_version = 0;            ///< PTX virtual architecture it was compiled for, e.g. 80.
  int binary_version = 0;         ///< Binary architecture it runs as, e.g. 90.
};

/// A kernel in a loaded Module: a copyable, non-owning handle. It is valid only while the
/// Module it came from is alive; using it after that is undefined behaviour.
class Function {
 public:
  /// The CUfunction as a void*.
  void* handle() const noexcept { return handle_; }
  /// The device whose context the module was loaded into.
  Device device() const noexcept { return device_; }
  /// The kernel's name in the image (its .entry name).
  const std::string& name() const noexcept { return name_; }
  /// Registers, memory sizes and architecture versions, queried from the driver.
  FunctionAttributes attributes() const;

 private:
  friend class Module;
  Function(void* handle, Device device, std::string name)
      : handle_(handle), device_(device), name_(std::move(name)) {}
  void* handle_;
  Device device_;
  std::string name_;
};

/// Code loaded into a device's primary context. Move-only; the destructor unloads it, after
/// which its Functions must not be used.
class Module {
 public:
  /// Loads `image` on `device`. The image may be a cubin (ELF), a fatbin, or PTX text, which
  /// the driver compiles for the device (the text need not end in a NUL; a copy with one is
  /// made if it does not). Throws CudaError naming the CUresult; for an image with no code
  /// for this device (CUDA_ERROR_NO_BINARY_FOR_GPU, _INVALID_IMAGE, _INVALID_PTX,
  /// _UNSUPPORTED_PTX_VERSION) the message adds the device's architecture and what to
  /// compile for, and for PTX the driver's compile log.
  static Module load(Device device, std::span<const char> image);

  /// The kernel named `name` (its exact .entry name: mangled, unless declared extern "C" in
  /// CUDA C++). Throws CudaError naming the kernel when there is none.
  Function function(const std::string& name) const;

  /// The CUmodule as a void*; null after a move.
  void* handle() const noexcept { return handle_; }
  /// The device the module was loaded on.
  Device device() const noexcept { return device_; }

  /// Takes over `other`, which is left empty (null handle).
  Module(Module&& other) noexcept;
  /// Unloads this module, then takes over `other`.
  Module& operator=(Module&& other) noexcept;
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;
  /// Unloads the module (cuModuleUnload). Never throws.
  ~Module();

 private:
  Module(void* handle, Device device) noexcept : handle_(handle), device_(device) {}
  void* handle_ = nullptr;
  Device device_;
};

}  // namespace cutlet
