// Where an algorithm takes its temporary storage from.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "cutlet/runtime/buffer.h"
#include "cutlet/runtime/memory_resource.h"
#include "cutlet/runtime/stream.h"
#include "cutlet/runtime/stream_scratch.h"

namespace cutlet::algorithms {

/// The temporary storage of one algorithm call (reduce's per-block partials, the scans' tile
/// status). By default it is a StreamScratch of the call's stream: on a stream cutlet created,
/// the block the stream keeps from call to call (no allocation once it is large enough, for
/// up to StreamScratch::kMaxKeptBytes), otherwise memory of the device's default memory pool,
/// allocated and freed in stream order (cuMemAllocAsync / cuMemFreeAsync). Either way the
/// call queues its work and returns without waiting for the GPU. Copyable; it holds no
/// memory itself.
class Workspace {
 public:
  /// The default: a StreamScratch of the call's stream.
  Workspace() = default;
  /// Memory from `resource` (not null; Error otherwise), of the stream's device. A
  /// stream-ordered resource (PoolMemoryResource) allocates and frees on the call's stream
  /// without synchronizing; a plain DeviceMemoryResource frees with cuMemFree, which waits for
  /// the device, so the call then returns only once its kernels have finished.
  static Workspace from(std::shared_ptr<MemoryResource> resource);
  /// The caller's memory, used as it is: at least the bytes the algorithm's *_workspace_bytes
  /// function gives (the call throws Error otherwise), on the stream's device, 256-byte
  /// aligned as DeviceMemory is. It must stay alive, and untouched by other work, until the
  /// call's kernels have finished on the stream. Borrowed: `memory` is not freed.
  static Workspace borrow(const DeviceMemory& memory);

  /// True for memory the caller provides (borrow()).
  bool borrowed() const noexcept { return address_ != 0; }
  /// The resource of from(), or null.
  const std::shared_ptr<MemoryResource>& resource() const noexcept { return resource_; }
  /// The caller's memory of borrow(): its address, size and device (0, 0, device 0 otherwise).
  std::uint64_t address() const noexcept { return address_; }
  std::size_t bytes() const noexcept { return bytes_; }
  int device_ordinal() const noexcept { return device_; }

 private:
  std::shared_ptr<MemoryResource> resource_;
  std::uint64_t address_ = 0;
  std::size_t bytes_ = 0;
  int device_ = 0;
};

namespace detail {

/// The temporary memory of one call: the stream's (given back to it when destroyed), owned
/// (given back, in stream order where the resource allows) or the caller's. Move-only.
class Scratch {
 public:
  Scratch(StreamScratch lease) noexcept;
  Scratch(DeviceMemory owned) noexcept;
  Scratch(std::uint64_t borrowed_address) noexcept : address_(borrowed_address) {}
  /// The first byte.
  std::uint64_t address() const noexcept { return address_; }

 private:
  StreamScratch lease_;
  DeviceMemory owned_;
  std::uint64_t address_ = 0;
};

/// `bytes` (> 0) bytes of temporary memory for `algorithm` on `stream`, from `workspace`.
/// Throws Error when borrowed memory is too small or of another device.
Scratch acquire(const Workspace& workspace, const Stream& stream, std::size_t bytes, const char* algorithm);

/// Sets `bytes` bytes at `address` of `stream`'s device to zero, in stream order.
void zero_bytes(const Stream& stream, std::uint64_t address, std::size_t bytes);

/// Copies `bytes` bytes from device address `src` to `dst` (not overlapping), both of
/// `stream`'s device, in stream order.
void copy_bytes(const Stream& stream, std::uint64_t dst, std::uint64_t src, std::size_t bytes);

}  // namespace detail
}  // namespace cutlet::algorithms
