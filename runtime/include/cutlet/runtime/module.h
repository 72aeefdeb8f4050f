// Loaded GPU code: a Module (a cubin, fatbin or PTX image) and the kernels (Function) in it.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "cutlet/runtime/device.h"

namespace cutlet {

struct Dim3;

/// A kernel compiled for the CPU device, as whoever compiled it (the JIT) runs it: what a
/// Function of Device::cpu() launches.
class HostEntry {
 public:
  virtual ~HostEntry() = default;
  /// Runs the kernel over `grid` blocks of `block` threads, each block with the kernel's own
  /// shared memory and `dynamic_shared_bytes` more, and returns when every thread has
  /// finished. `args` as launch() takes them. Throws Error for what the kernel did wrong (a
  /// failed assert_, threads that wait for each other forever).
  virtual void run(const Dim3& grid, const Dim3& block, void** args, std::size_t dynamic_shared_bytes) const = 0;
  /// The bytes of each parameter's value, in order: what a launch copies from `args`, since
  /// the kernel runs when its stream gets there.
  virtual const std::vector<std::size_t>& param_sizes() const = 0;
  /// The shared memory the kernel declares itself (its shared_arrays), per block.
  virtual std::size_t static_shared_bytes() const { return 0; }
};

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
/// Module it came from is alive; using it after that is undefined behaviour. It names the
/// kernel both in the device's primary context (handle(), a CUfunction) and independently
/// of any context (kernel_handle(), a CUkernel), so that it also launches on streams of
/// green contexts of its device.
class Function {
 public:
  /// The CUfunction in the device's primary context, as a void*.
  void* handle() const noexcept { return handle_; }
  /// The context-independent CUkernel, as a void* (launchable in any context of the device).
  void* kernel_handle() const noexcept { return kernel_; }
  /// The device whose context the module was loaded into.
  Device device() const noexcept { return device_; }
  /// A Function of the CPU device that runs `entry`, named `name`.
  static Function host(std::shared_ptr<const HostEntry> entry, const std::string& name);
  /// The host kernel a Function of the CPU device runs; null for a GPU kernel.
  const std::shared_ptr<const HostEntry>& host_entry() const noexcept { return host_; }
  /// The kernel's name in the image (its .entry name).
  const std::string& name() const noexcept { return name_; }
  /// The same name as a C string that stays valid until the process exits, also after the
  /// Module is unloaded (launches record it, for the messages of later kernel faults).
  const char* stable_name() const noexcept { return stable_name_; }
  /// Registers, memory sizes and architecture versions, queried from the driver (for a
  /// kernel of the CPU device: the most threads per block, the rest 0).
  FunctionAttributes attributes() const;
  /// The static shared memory the kernel declares (queried once, when it was looked up): a
  /// launch whose dynamic shared memory takes the block past 48 KiB in all opts in for it.
  int static_shared_bytes() const noexcept { return static_shared_bytes_; }

 private:
  friend class Module;
  Function(void* handle, void* kernel, Device device, std::string name, const char* stable_name,
           int static_shared_bytes)
      : handle_(handle), kernel_(kernel), device_(device), name_(std::move(name)),
        stable_name_(stable_name), static_shared_bytes_(static_shared_bytes) {}
  void* handle_;
  void* kernel_;
  Device device_;
  std::string name_;
  const char* stable_name_;
  int static_shared_bytes_;
  std::shared_ptr<const HostEntry> host_;
};

/// Code loaded for a device (cuLibraryLoadData: context-independent, so its kernels run in
/// the primary context and in green contexts alike). Move-only; the destructor unloads it,
/// after which its Functions must not be used.
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

  /// The CUmodule of the device's primary context as a void*; null after a move.
  void* handle() const noexcept { return handle_; }
  /// The CUlibrary as a void*; null after a move.
  void* library() const noexcept { return library_; }
  /// The device the module was loaded on.
  Device device() const noexcept { return device_; }

  /// Takes over `other`, which is left empty (null handle).
  Module(Module&& other) noexcept;
  /// Unloads this module, then takes over `other`.
  Module& operator=(Module&& other) noexcept;
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;
  /// Unloads the library (cuLibraryUnload). Never throws.
  ~Module();

 private:
  Module(void* library, void* handle, Device device) noexcept
      : library_(library), handle_(handle), device_(device) {}
  void* library_ = nullptr;
  void* handle_ = nullptr;
  Device device_;
};

}  // namespace cutlet
