// A CUDA device: its properties, cached launch limits and primary context.
#pragma once

#include <cstddef>
#include <string>

namespace cutlet {

/// A compute capability such as 9.0 (H100/H200) or 8.0 (A100).
struct ComputeCapability {
  int major = 0;  ///< Major version, e.g. 9.
  int minor = 0;  ///< Minor version, e.g. 0.
  /// The two digits of "sm_XY": 10 * major + minor, e.g. 90.
  int sm() const { return major * 10 + minor; }
  /// Ordered by (major, minor).
  auto operator<=>(const ComputeCapability&) const = default;
};

/// The device limits a launch is checked against. Read once per device and cached.
struct DeviceLimits {
  int max_threads_per_block = 0;         ///< Most threads in one block (1024 today).
  long long max_block[3] = {0, 0, 0};    ///< Most threads along block x, y, z.
  long long max_grid[3] = {0, 0, 0};     ///< Most blocks along grid x, y, z.
  std::size_t max_shared_per_block = 0;  ///< Shared bytes a block gets without opting in (48 KiB).
  std::size_t max_shared_per_block_optin = 0;  ///< Most shared bytes a block can opt in to.
  int warp_size = 0;                           ///< Threads per warp (32).
  int sm_count = 0;                            ///< Number of streaming multiprocessors.
};

/// A CUDA device, named by its ordinal (0 .. count()-1, as CUDA_VISIBLE_DEVICES presents
/// them). A Device is a cheap value; the state behind it (driver handle, retained primary
/// context, properties, limits) is read once per device per process, on first use, and
/// shared by every Device with that ordinal. cutlet works in primary contexts, like the CUDA
/// runtime, PyTorch and CuPy, so it shares their contexts and the memory allocated in them.
class Device {
 public:
  /// The number of CUDA devices visible to this process. Throws NoDriverError without a
  /// usable driver (so it never returns 0).
  static int count();

  /// Device `ordinal`. Throws Error when it is out of range ("device 3 requested but 1 CUDA
  /// device is present ..."), NoDriverError without a driver.
  explicit Device(int ordinal = 0);

  /// The device of the calling thread's current context, or device 0 when no context is
  /// current. Throws NoDriverError without a driver.
  static Device current();

  /// The ordinal this Device was made with.
  int ordinal() const noexcept { return ordinal_; }
  /// The product name, e.g. "NVIDIA H200".
  std::string name() const;
  /// The compute capability, e.g. {9, 0}.
  ComputeCapability compute_capability() const;
  /// The number of streaming multiprocessors.
  int sm_count() const;
  /// Total device memory in bytes.
  std::size_t total_memory() const;
  /// The raw value of a CUdevice_attribute (pass the enumerator from cuda.h); queries the
  /// driver on each call. Throws CudaError for an attribute the driver does not know.
  int attribute(int cu_device_attribute) const;
  /// The launch limits, read once and cached: cheap enough to call on every launch. The
  /// reference stays valid for the life of the process.
  const DeviceLimits& limits() const;
  /// Makes this device's primary context current on the calling thread (no driver call when
  /// it already is).
  void set_current() const;
  /// This device's primary CUcontext, as a void*. It is retained once for the process and
  /// never released, so it stays valid until exit.
  void* context() const;
  /// Waits until all work on this device (all streams of its primary context) has finished.
  /// Throws CudaError for an error raised by that work, e.g. a kernel fault.
  void synchronize() const;

  /// Same ordinal.
  bool operator==(const Device&) const = default;

 private:
  struct Unchecked {};
  constexpr Device(Unchecked, int ordinal) noexcept : ordinal_(ordinal) {}
  friend class DeviceMemory;  // an empty DeviceMemory names device 0 without a driver
  int ordinal_ = 0;
};

}  // namespace cutlet
