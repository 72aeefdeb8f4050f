// A device kernels run on: a CUDA GPU (its properties, cached launch limits and primary
// context) or the host CPU.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace cutlet {

class ContextFaultError;

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
  int sm = 0;                    ///< Compute capability as 10 * major + minor (90 for sm_90).
  bool cluster_launch = false;   ///< Thread-block clusters are supported (sm_90 and newer).
  bool cooperative_launch = false;  ///< Cooperative (grid-synchronizing) launches are supported.
};

/// The device attributes that kernels, tuners and memory managers need, read once per
/// device (cuDeviceGetAttribute) and cached. Sizes are in bytes, clocks in kHz.
struct DeviceProperties {
  std::string name;                         ///< Product name, e.g. "NVIDIA H200".
  std::string pci_bus_id;                   ///< "domain:bus:device.function", e.g. "0000:19:00.0".
  ComputeCapability compute_capability;     ///< E.g. {9, 0}.
  int sm_count = 0;                         ///< Streaming multiprocessors.
  int warp_size = 0;                        ///< Threads per warp.
  int max_threads_per_block = 0;            ///< Most threads in one block.
  int max_threads_per_sm = 0;               ///< Most resident threads per SM.
  int max_blocks_per_sm = 0;                ///< Most resident blocks per SM.
  int registers_per_block = 0;              ///< Most 32-bit registers one block may use.
  int registers_per_sm = 0;                 ///< 32-bit registers per SM.
  std::size_t shared_per_block = 0;         ///< Shared memory per block without opting in.
  std::size_t shared_per_block_optin = 0;   ///< Most shared memory a block can opt in to.
  std::size_t shared_per_sm = 0;            ///< Shared memory per SM.
  std::size_t reserved_shared_per_block = 0;  ///< Shared memory the driver reserves per block.
  std::size_t constant_memory = 0;          ///< __constant__ memory.
  std::size_t l2_cache_bytes = 0;           ///< L2 cache size.
  std::size_t persisting_l2_max_bytes = 0;  ///< Most L2 that can be set aside for persisting lines.
  std::size_t total_memory = 0;             ///< Device memory.
  int clock_khz = 0;                        ///< Typical SM clock (0 when the driver no longer reports it).
  int memory_clock_khz = 0;                 ///< Peak memory clock (0 when not reported).
  int memory_bus_width_bits = 0;            ///< Global memory bus width (0 when not reported).
  int async_engine_count = 0;               ///< Copy engines that overlap with kernels.
  bool unified_addressing = false;          ///< Shares one address space with the host.
  bool managed_memory = false;              ///< Can allocate managed (unified) memory.
  bool concurrent_managed_access = false;   ///< CPU and GPU may touch managed memory at once.
  bool memory_pools = false;                ///< Supports cuMemAllocAsync and memory pools.
  bool can_map_host_memory = false;         ///< Can map pinned host memory.
  bool cooperative_launch = false;          ///< Supports cooperative launches.
  bool cluster_launch = false;              ///< Supports thread-block clusters.
  bool stream_priorities = false;           ///< Honours stream priorities.
  bool integrated = false;                  ///< Shares memory with the host (an integrated GPU).
};

/// A CUDA device, named by its ordinal (0 .. count()-1, as CUDA_VISIBLE_DEVICES presents
/// them), or the CPU device (cpu()), on which kernels are compiled for the host CPU and run
/// with the GPU's execution model (see "Kernels on the CPU" in the README). A Device is a cheap value; the state behind it (driver handle, retained primary
/// context, properties, limits) is read once per device per process, on first use, and
/// shared by every Device with that ordinal. cutlet works in primary contexts, like the CUDA
/// runtime, PyTorch and CuPy, so it shares their contexts and the memory allocated in them.
class Device {
 public:
  /// The ordinal of the CPU device.
  static constexpr int kCpuOrdinal = -1;

  /// The number of CUDA devices visible to this process; 1 (the CPU device) when
  /// cpu_selected(). Throws NoDriverError without a usable driver (so it never returns 0).
  static int count();

  /// CUDA device `ordinal` (Device::cpu() is the CPU device). When cpu_selected(), device 0
  /// is the CPU device (and no driver is loaded). Throws Error when it is out of range ("device
  /// 3 requested but 1 CUDA device is present ..."), NoDriverError without a driver.
  explicit Device(int ordinal = 0);

  /// The device of the calling thread's current context, or device 0 when no context is
  /// current; the CPU device when cpu_selected(). Throws NoDriverError without a driver.
  static Device current();

  /// The CPU device: buffers in host memory, streams that run their work in order as it is
  /// queued, kernels compiled for the host CPU by LLVM and run over all its cores with the
  /// GPU's execution model (blocks, threads, shared memory, barriers, warps). Needs no driver.
  static Device cpu() noexcept { return Device(Unchecked{}, kCpuOrdinal); }
  /// True for the CPU device.
  bool is_cpu() const noexcept { return ordinal_ == kCpuOrdinal; }
  /// True when the environment variable CUTLET_DEVICE is `cpu`: then Device(0),
  /// Device::current(), Device::all() and a Stream made without a device mean the CPU device,
  /// so that an unchanged program runs on the CPU. Unset, empty, `gpu` or `cuda`: false.
  /// Throws Error for any other value, naming the accepted ones.
  static bool cpu_selected();

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
  /// driver on each call. Throws CudaError for an attribute the driver does not know. The
  /// CPU device answers the attributes its limits and properties model (block, grid and
  /// shared-memory limits, warp size, SM count, residency, launch kinds, memory features)
  /// and throws Error, naming the attribute, for the others.
  int attribute(int cu_device_attribute) const;
  /// The launch limits, read once and cached: cheap enough to call on every launch. The
  /// reference stays valid for the life of the process.
  const DeviceLimits& limits() const;
  /// Makes this device's primary context current on the calling thread (no driver call when
  /// it already is).
  void set_current() const;
  /// This device's primary CUcontext, as a void*. It is retained once for the process and
  /// never released, so it stays valid until exit (reset() renews what it holds).
  void* context() const;
  /// Waits until all work on this device (all streams of its primary context) has finished.
  /// Throws CudaError for an error raised by that work, e.g. a kernel fault. On the CPU
  /// device that is the KernelError of a failed kernel on any of its streams, reported once:
  /// that stream's synchronize() then no longer reports it.
  void synchronize() const;

  /// Every visible device, in ordinal order. Throws NoDriverError without a driver.
  static std::vector<Device> all();
  /// All the attributes in DeviceProperties, read once and cached; the reference stays valid
  /// for the life of the process.
  const DeviceProperties& properties() const;
  /// Bytes of device memory free right now (cuMemGetInfo; other processes count too).
  std::size_t free_memory() const;
  /// True when kernels and copies on this device can access memory of `peer` directly
  /// (cuDeviceCanAccessPeer); false for the device itself.
  bool can_access_peer(const Device& peer) const;
  /// Lets this device's primary context access the memory of `peer` (cuCtxEnablePeerAccess);
  /// enabling it again does nothing. Access is one-way: enable it on both devices for both
  /// directions. Memory from a PoolMemoryResource needs PoolMemoryResource::set_access too.
  /// Throws Error when the devices cannot access each other (the message says so) or when
  /// `peer` is this device.
  void enable_peer_access(const Device& peer) const;
  /// Revokes access enabled by enable_peer_access; does nothing when it is not enabled.
  void disable_peer_access(const Device& peer) const;

  /// Throws away this device's primary context and makes a fresh one
  /// (cuDevicePrimaryCtxReset): afterwards poisoned() is false, generation() is one higher,
  /// and calls on the device reach the driver again. The driver first waits for the kernels
  /// still running (it cannot stop one: a kernel that never ends makes this never return).
  /// After a sticky kernel fault (ContextFaultError) the CUDA driver makes no new context in
  /// the process: reset() then throws CudaError saying so, and the device stays poisoned;
  /// only a new process can use it again (isolate work that may fault in a child process).
  ///
  /// Everything made in the old context is gone: its memory (Buffer, DeviceMemory, pools'
  /// allocations, pinned and managed memory), Streams, Events, Modules' Functions, graphs.
  /// Make new ones; destroying the old objects is safe (their handles are dropped without
  /// being freed again, so that they never free what the new context reuses). Kernel objects
  /// load their code into the new context at their next launch. The same holds for other
  /// libraries sharing the primary context (the CUDA runtime, PyTorch, CuPy). No other thread
  /// may use the device while this runs. Throws CudaError when the driver refuses.
  void reset() const;
  /// True when a kernel fault has poisoned this device's primary context and reset() has not
  /// been called since: every call on the device then throws ContextFaultError.
  bool poisoned() const;
  /// The first report of the fault that poisoned the primary context, or null when it is not
  /// poisoned.
  std::shared_ptr<const ContextFaultError> fault() const;
  /// How many times reset() has run for this device in this process (0 before the first):
  /// what caches of per-context objects, such as loaded kernels, are keyed by.
  std::uint64_t generation() const;

  /// Same ordinal.
  bool operator==(const Device&) const = default;

 private:
  struct Unchecked {};
  constexpr Device(Unchecked, int ordinal) noexcept : ordinal_(ordinal) {}
  friend class DeviceMemory;  // an empty DeviceMemory names device 0 without a driver
  friend class Stream;        // so does a moved-from or empty Stream
  int ordinal_ = 0;
};

}  // namespace cutlet
