// Memory resources: the MemoryResource interface and the plain device, pinned host and
// managed allocators (the stream-ordered pool is in memory_pool.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "cutlet/runtime/device.h"

namespace cutlet {

class Stream;

/// Where a resource's memory lives, which decides who can touch it.
enum class MemoryKind {
  device,       ///< Device memory: kernels and copies only.
  pinned_host,  ///< Page-locked host memory, mapped into the device's address space.
  managed,      ///< Managed (unified) memory, migrated between host and device on demand.
};

/// Something that hands out and takes back memory, in the manner of cuda.core's
/// MemoryResource and C++'s std::pmr::memory_resource. Allocations are addresses in CUDA's
/// unified address space (for host-accessible kinds, also valid host pointers), at least
/// 256-byte aligned. A stream-ordered resource orders allocate(bytes, stream) and
/// deallocate(..., stream) on that stream: the memory may be used by work queued on the
/// stream after the allocation, and is reused only after the work queued before the
/// deallocation has finished. The others ignore the stream: their memory is usable as soon
/// as allocate returns, and deallocate waits for the device where the driver requires it.
/// Resources are shared through std::shared_ptr so that every Buffer keeps its own alive.
class MemoryResource {
 public:
  virtual ~MemoryResource() = default;
  MemoryResource(const MemoryResource&) = delete;
  MemoryResource& operator=(const MemoryResource&) = delete;

  /// `bytes` bytes usable as soon as this returns; 0 bytes gives address 0. A stream-ordered
  /// resource allocates on the device's legacy default stream and waits for it. Throws
  /// CudaError when the memory cannot be had: the message says how many bytes were asked
  /// for and how many are free.
  std::uint64_t allocate(std::size_t bytes);
  /// `bytes` bytes for work queued on `stream` from now on (see the class comment); the
  /// stream must be of this resource's device (Error otherwise). 0 bytes gives address 0.
  std::uint64_t allocate(std::size_t bytes, const Stream& stream);
  /// Returns memory from allocate(bytes); `address` 0 does nothing. Never throws (a failure,
  /// e.g. during process exit, is ignored).
  void deallocate(std::uint64_t address, std::size_t bytes) noexcept;
  /// Returns memory once the work queued on `stream` so far has finished (stream-ordered
  /// resources) or at once. Never throws.
  void deallocate(std::uint64_t address, std::size_t bytes, const Stream& stream) noexcept;

  /// Where the memory lives.
  virtual MemoryKind kind() const noexcept = 0;
  /// True when allocate/deallocate with a stream are ordered on it (cuMemAllocAsync pools).
  virtual bool stream_ordered() const noexcept { return false; }
  /// True: every cutlet resource hands out memory that kernels of its device can access.
  bool device_accessible() const noexcept { return true; }
  /// True when host code may read and write the memory directly (pinned and managed).
  bool host_accessible() const noexcept { return kind() != MemoryKind::device; }
  /// The device whose context allocates (for pinned host memory: the context that maps it).
  Device device() const noexcept { return device_; }
  /// A short description for messages, e.g. "the cuMemAlloc device memory of device 0 (...)".
  virtual std::string describe() const = 0;

 protected:
  /// A resource of `device`.
  explicit MemoryResource(Device device) noexcept : device_(device) {}
  /// Allocates `bytes` > 0 bytes, ordered on `stream` when it is not null and the resource is
  /// stream-ordered. Throws CudaError on failure.
  virtual std::uint64_t do_allocate(std::size_t bytes, const Stream* stream) = 0;
  /// Frees `address` (not 0), ordered on `stream` when not null and stream-ordered. Never
  /// throws.
  virtual void do_deallocate(std::uint64_t address, std::size_t bytes,
                             const Stream* stream) noexcept = 0;

 private:
  Device device_;
};

/// Plain device memory from cuMemAlloc, freed with cuMemFree (which waits for the device).
/// Not stream-ordered: prefer PoolMemoryResource for frequent allocations.
class DeviceMemoryResource final : public MemoryResource {
 public:
  /// Allocates on `device`.
  explicit DeviceMemoryResource(Device device) noexcept : MemoryResource(device) {}
  /// The process-wide instance for `device` (what Buffer(n, device) allocates from).
  static const std::shared_ptr<DeviceMemoryResource>& shared(Device device);
  MemoryKind kind() const noexcept override { return MemoryKind::device; }
  std::string describe() const override;

 private:
  std::uint64_t do_allocate(std::size_t bytes, const Stream* stream) override;
  void do_deallocate(std::uint64_t address, std::size_t bytes, const Stream* stream) noexcept override;
};

/// Page-locked host memory (cuMemHostAlloc, portable and mapped), readable and writable by
/// the host and by kernels of every device (through unified addressing), and the fastest
/// source or target of host-device copies. Freed with cuMemFreeHost.
class PinnedMemoryResource final : public MemoryResource {
 public:
  /// Pinned memory allocated through `device`'s primary context.
  explicit PinnedMemoryResource(Device device = Device(0)) noexcept : MemoryResource(device) {}
  MemoryKind kind() const noexcept override { return MemoryKind::pinned_host; }
  std::string describe() const override;

 private:
  std::uint64_t do_allocate(std::size_t bytes, const Stream* stream) override;
  void do_deallocate(std::uint64_t address, std::size_t bytes, const Stream* stream) noexcept override;
};

/// Managed (unified) memory from cuMemAllocManaged, attached globally: any stream of any
/// device and the host may touch it (the host only while no kernel using it runs, unless
/// the device reports concurrent_managed_access). Freed with cuMemFree.
class ManagedMemoryResource final : public MemoryResource {
 public:
  /// Managed memory allocated through `device`'s primary context.
  explicit ManagedMemoryResource(Device device = Device(0)) noexcept : MemoryResource(device) {}
  MemoryKind kind() const noexcept override { return MemoryKind::managed; }
  std::string describe() const override;

 private:
  std::uint64_t do_allocate(std::size_t bytes, const Stream* stream) override;
  void do_deallocate(std::uint64_t address, std::size_t bytes, const Stream* stream) noexcept override;
};

/// What the driver (or the CPU device) knows about an address (cuPointerGetAttribute).
struct PointerInfo {
  /// Where it lives: device, pinned host (a host pointer the driver knows), or managed;
  /// unregistered pageable host memory is reported as `known == false`.
  MemoryKind kind = MemoryKind::device;
  bool known = false;  ///< False for an address no CUDA allocation covers.
  /// Ordinal of the device the memory belongs to: Device::kCpuOrdinal (-1) for the CPU
  /// device's memory; -1 when not known.
  int device = -1;
};

/// Asks the driver where `address` lives, and for an address it does not know, the CPU
/// device (whose allocations are of the kind of their resource: device memory, pinned or
/// managed). Never throws for an unknown address (known == false then).
PointerInfo pointer_info(std::uint64_t address);

}  // namespace cutlet
