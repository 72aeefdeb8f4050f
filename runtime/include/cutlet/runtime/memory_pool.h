// The stream-ordered pool allocator (cuMemPool and cuMemAllocFromPoolAsync).
#pragma once

#include <cstddef>
#include <memory>

#include "cutlet/runtime/memory_resource.h"

namespace cutlet {

/// How to create a PoolMemoryResource.
struct PoolOptions {
  /// Memory the pool keeps reserved when streams synchronize instead of returning it to the
  /// driver: with the default 0 a pool shrinks at every synchronization; a threshold at least
  /// the working set makes allocations after the first ones never reach the driver's
  /// allocator. SIZE_MAX keeps everything.
  std::size_t release_threshold = 0;
  /// The most the pool may ever reserve; 0 lets the driver choose (the device's memory).
  std::size_t max_size = 0;
};

/// The pool's memory counters (cuMemPoolGetAttribute), in bytes.
struct PoolUsage {
  std::size_t reserved = 0;       ///< Physically backed memory the pool holds now.
  std::size_t reserved_high = 0;  ///< Peak of `reserved` since creation or reset_peaks().
  std::size_t used = 0;           ///< Memory handed out and not yet freed.
  std::size_t used_high = 0;      ///< Peak of `used` since creation or reset_peaks().
};

/// A stream-ordered memory pool (cuMemAllocFromPoolAsync / cuMemFreeAsync): allocation and
/// free are queued on a stream, cost no device synchronization, and freed blocks are reused
/// by later allocations without calling the driver's allocator while the pool holds enough
/// reserved memory (see PoolOptions::release_threshold). Either a pool of its own (created
/// here, destroyed with the last reference) or a device's default pool (device_default()).
class PoolMemoryResource final : public MemoryResource {
 public:
  /// A new pool of device memory on `device`. Throws Error when the device does not support
  /// memory pools, CudaError when the driver cannot create one.
  explicit PoolMemoryResource(Device device, PoolOptions options = {});
  /// The device's default pool (cuDeviceGetDefaultMemPool), which cuMemAllocAsync and
  /// cudaMallocAsync also use; one shared object per device per process. Not destroyed here.
  /// When its release threshold is the driver's default, 0, the first call sets it to SIZE_MAX:
  /// memory freed to the pool stays reserved for later allocations across synchronizations,
  /// as in PyTorch's and CuPy's caching allocators (trim_to() returns it to the driver). A
  /// threshold set before the first call is kept.
  static const std::shared_ptr<PoolMemoryResource>& device_default(Device device);
  /// Destroys a pool of its own (the driver waits for outstanding frees). Never throws.
  ~PoolMemoryResource() override;

  MemoryKind kind() const noexcept override { return MemoryKind::device; }
  bool stream_ordered() const noexcept override { return true; }
  std::string describe() const override;

  /// The current counters.
  PoolUsage usage() const;
  /// Resets reserved_high and used_high to the current values.
  void reset_peaks();
  /// Sets the release threshold (see PoolOptions).
  void set_release_threshold(std::size_t bytes);
  /// The release threshold.
  std::size_t release_threshold() const;
  /// Returns reserved memory beyond `keep_bytes` that no allocation uses to the driver
  /// (cuMemPoolTrimTo).
  void trim_to(std::size_t keep_bytes);
  /// Lets kernels and copies on `peer` read and write this pool's memory (or revokes it,
  /// `enabled` false), as cuMemPoolSetAccess does; the pool's own device always has access.
  void set_access(Device peer, bool enabled = true);
  /// The CUmemoryPool as a void*.
  void* handle() const noexcept { return pool_; }

 private:
  struct Default {};
  PoolMemoryResource(Device device, void* pool, Default) noexcept;
  std::uint64_t do_allocate(std::size_t bytes, const Stream* stream) override;
  void do_deallocate(std::uint64_t address, std::size_t bytes, const Stream* stream) noexcept override;
  void* pool_ = nullptr;
  bool owning_ = false;
};

}  // namespace cutlet
