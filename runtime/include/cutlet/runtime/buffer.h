// Memory from a resource: the untyped owner DeviceMemory and the typed array Buffer<T>.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <type_traits>
#include <vector>

#include "cutlet/error.h"
#include "cutlet/runtime/device.h"
#include "cutlet/runtime/memory_resource.h"
#include "cutlet/runtime/stream.h"

namespace cutlet {

/// A block of memory from a MemoryResource (device, pool, pinned host or managed memory), or
/// borrowed (wrap(): memory allocated by someone else, never freed here). Move-only. Owned
/// memory keeps its resource alive and goes back to it when destroyed or free()d; memory
/// allocated on a stream from a stream-ordered resource (a pool) keeps that stream alive and
/// is freed on it, ordered after the work queued there, without synchronizing.
///
/// Copies and fills are asynchronous on the given stream, which must belong to the memory's
/// device; host memory passed to them must stay valid until the stream reaches the copy
/// (with pageable host memory the driver may finish the copy before returning). Operations
/// of zero bytes do nothing and are allowed on empty memory; any other operation on empty
/// or freed memory, or one that reaches past either end, throws Error naming both sizes.
class DeviceMemory {
 public:
  /// Empty: address 0, 0 bytes, device 0, not owning. Needs no driver.
  DeviceMemory() noexcept : device_(Device::Unchecked{}, 0) {}

  /// Allocates `bytes` bytes on `device` with cuMemAlloc (DeviceMemoryResource::shared):
  /// 256-byte aligned, contents undefined; 0 bytes gives empty memory. When the allocation
  /// fails, throws CudaError whose message says how many bytes were asked for and how many
  /// are free on the device.
  DeviceMemory(std::size_t bytes, Device device);
  /// Allocates `bytes` bytes from `resource` (not null), usable as soon as this returns; the
  /// memory is on the resource's device and goes back to the resource when freed.
  DeviceMemory(std::size_t bytes, std::shared_ptr<MemoryResource> resource);
  /// Allocates `bytes` bytes from `resource` ordered on `stream` (for stream-ordered
  /// resources: usable by work queued on `stream` from now on, and freed on `stream` later;
  /// others ignore the stream). Throws Error when `stream` is of another device.
  DeviceMemory(std::size_t bytes, const Stream& stream, std::shared_ptr<MemoryResource> resource);
  /// Allocates `bytes` bytes ordered on `stream` from its device's default memory pool
  /// (PoolMemoryResource::device_default, as cuMemAllocAsync does).
  DeviceMemory(std::size_t bytes, const Stream& stream);

  /// Borrows `bytes` bytes at device address `address` on `device`, without copying and
  /// without taking ownership: the memory must outlive this object and every use of it.
  /// Throws Error when `address` is 0 but `bytes` is not.
  static DeviceMemory wrap(std::uint64_t address, std::size_t bytes, Device device);

  /// Takes over `other`, which is left empty (on the same device).
  DeviceMemory(DeviceMemory&& other) noexcept;
  /// Frees owned memory, then takes over `other` as above.
  DeviceMemory& operator=(DeviceMemory&& other) noexcept;
  DeviceMemory(const DeviceMemory&) = delete;
  DeviceMemory& operator=(const DeviceMemory&) = delete;
  /// Frees owned memory as free() does. Never throws; a failure there (e.g. during process
  /// exit) is ignored. Memory of a context that Device::reset destroyed is only forgotten.
  ~DeviceMemory();

  /// Gives owned memory back to its resource now: on the stream it was allocated on when
  /// that was stream-ordered, otherwise at once (cuMemFree waits for the device). Borrowed
  /// memory is only forgotten. Afterwards the object is empty and marked freed, so that a
  /// later copy or fill says the memory was freed. Never throws.
  void free() noexcept;
  /// As free(), but ordered on `stream` (e.g. the stream that used the memory last), which
  /// must be of the memory's device (Error otherwise).
  void free(const Stream& stream);

  /// The device address of the first byte; 0 when empty.
  std::uint64_t address() const noexcept { return address_; }
  /// Size in bytes.
  std::size_t bytes() const noexcept { return bytes_; }
  /// The device the memory lives on (for pinned host memory: the device that mapped it).
  Device device() const noexcept { return device_; }
  /// True when the destructor frees the memory.
  bool owning() const noexcept { return owning_; }
  /// True when there is no memory (address 0).
  bool empty() const noexcept { return address_ == 0; }
  /// True after free() (until something is moved into this object).
  bool freed() const noexcept { return freed_; }
  /// The resource the memory came from and goes back to; null for borrowed or empty memory.
  const std::shared_ptr<MemoryResource>& resource() const noexcept { return resource_; }
  /// The memory as a host pointer, for pinned and managed memory (host-accessible
  /// resources); throws Error for device memory, borrowed memory or empty memory.
  void* host_pointer() const;

  /// Copies `bytes` bytes from host `src` to this memory at byte `offset` (cuMemcpyHtoDAsync).
  void copy_from_host(const Stream& stream, const void* src, std::size_t bytes,
                      std::size_t offset = 0);
  /// Copies `bytes` bytes at byte `offset` of this memory to host `dst` (cuMemcpyDtoHAsync).
  /// `dst` holds the data only once the stream has reached the copy (synchronize it).
  void copy_to_host(const Stream& stream, void* dst, std::size_t bytes,
                    std::size_t offset = 0) const;
  /// Copies the first `bytes` bytes of `src` to the start of this memory. Memory of the same
  /// device is copied with cuMemcpyAsync; memory of another device with cuMemcpyPeerAsync,
  /// directly over NVLink/PCIe when peer access is enabled (Device::enable_peer_access),
  /// staged through the host otherwise. `stream` must be of this (the destination) memory's
  /// device; the two ranges must not overlap (Error).
  void copy_from(const Stream& stream, const DeviceMemory& src, std::size_t bytes);
  /// Sets every byte to `value` (cuMemsetD8Async).
  void fill_bytes(const Stream& stream, unsigned char value);

 private:
  void release() noexcept;
  /// copy_from where either memory is the CPU device's.
  void copy_with_cpu(const Stream& stream, const DeviceMemory& src, std::size_t bytes);
  std::uint64_t address_ = 0;
  std::size_t bytes_ = 0;
  Device device_;
  bool owning_ = false;
  bool freed_ = false;
  std::shared_ptr<MemoryResource> resource_;
  std::optional<Stream> stream_;  ///< Where a stream-ordered allocation is freed.
  /// Device::generation() at allocation: memory of a context that Device::reset destroyed
  /// is never freed again (its addresses may belong to new allocations by then).
  std::uint64_t generation_ = 0;
};

namespace detail {
/// Throws Error: `op` would touch `wanted` elements of `element_size` bytes where only
/// `available` exist.
[[noreturn]] void throw_buffer_size_error(const char* op, std::size_t wanted, std::size_t available,
                                          std::size_t element_size);
/// Throws Error: `op` was called on a buffer after its free().
[[noreturn]] void throw_freed_buffer(const char* op);
/// Throws Error: `n` elements of `element_size` bytes overflow std::size_t.
[[noreturn]] void throw_buffer_overflow(std::size_t n, std::size_t element_size);
}  // namespace detail

/// A typed array of `T` in device memory, owned or borrowed (see DeviceMemory, whose rules
/// for streams, asynchrony, empty buffers and size errors apply). Move-only. `T` must be
/// trivially copyable, since its bytes are copied between host and device as they are.
template <class T>
class Buffer {
  static_assert(std::is_trivially_copyable_v<T>,
                "cutlet::Buffer<T>: T must be trivially copyable, because its bytes are copied "
                "to and from the device unchanged");

 public:
  /// The element type.
  using element_type = T;

  /// Empty: no memory, data() == 0. Needs no driver.
  Buffer() noexcept = default;

  /// `n` uninitialised elements on `device` (default: the current device).
  explicit Buffer(std::size_t n, Device device = Device::current())
      : memory_(byte_count(n), device) {}

  /// `n` uninitialised elements from `resource` (see DeviceMemory), usable at once.
  Buffer(std::size_t n, std::shared_ptr<MemoryResource> resource)
      : memory_(byte_count(n), std::move(resource)) {}
  /// `n` uninitialised elements from `resource`, ordered on `stream` and, for a stream-ordered
  /// resource, freed on it later.
  Buffer(std::size_t n, const Stream& stream, std::shared_ptr<MemoryResource> resource)
      : memory_(byte_count(n), stream, std::move(resource)) {}
  /// `n` uninitialised elements from `stream`'s device's default memory pool, ordered on
  /// `stream` and freed on it later (cuMemAllocAsync / cuMemFreeAsync).
  Buffer(std::size_t n, const Stream& stream) : memory_(byte_count(n), stream) {}

  /// A buffer on `stream`'s device holding a copy of `host`; the copy is asynchronous on
  /// `stream`, so `host` must stay valid until the stream reaches it.
  Buffer(const Stream& stream, std::span<const T> host) : Buffer(host.size(), stream.device()) {
    copy_from_host(stream, host);
  }
  /// As above, for a vector.
  Buffer(const Stream& stream, const std::vector<T>& host)
      : Buffer(stream, std::span<const T>(host)) {}

  /// Borrows `n` elements at device address `device_ptr` on `device` (see
  /// DeviceMemory::wrap): no copy, never freed here.
  static Buffer wrap(std::uint64_t device_ptr, std::size_t n, Device device) {
    Buffer b;
    b.memory_ = DeviceMemory::wrap(device_ptr, byte_count(n), device);
    return b;
  }

  /// Number of elements.
  std::size_t size() const noexcept { return memory_.bytes() / sizeof(T); }
  /// Size in bytes, size() * sizeof(T).
  std::size_t bytes() const noexcept { return memory_.bytes(); }
  /// Device address of element 0; 0 when empty.
  std::uint64_t data() const noexcept { return memory_.address(); }
  /// The device the elements live on.
  Device device() const noexcept { return memory_.device(); }
  /// True when the buffer has no memory.
  bool empty() const noexcept { return memory_.empty(); }
  /// The underlying untyped memory.
  const DeviceMemory& memory() const noexcept { return memory_; }
  /// Moves the underlying memory out (e.g. to hand it to to_dlpack); the buffer is left empty.
  DeviceMemory take_memory() && noexcept { return std::move(memory_); }
  /// The resource the elements came from; null for borrowed or empty buffers.
  const std::shared_ptr<MemoryResource>& resource() const noexcept { return memory_.resource(); }
  /// True after free().
  bool freed() const noexcept { return memory_.freed(); }
  /// Gives the memory back now (see DeviceMemory::free); the buffer is then empty.
  void free() noexcept { memory_.free(); }
  /// Gives the memory back ordered on `stream` (see DeviceMemory::free).
  void free(const Stream& stream) { memory_.free(stream); }
  /// The elements as a host span, for pinned or managed memory (DeviceMemory::host_pointer
  /// throws otherwise). Managed memory may be read here only while no kernel uses it.
  std::span<T> host_span() const {
    return {static_cast<T*>(memory_.host_pointer()), size()};
  }

  /// Copies `host` to elements [0, host.size()); throws Error if host.size() > size().
  void copy_from_host(const Stream& stream, std::span<const T> host) {
    if (freed()) [[unlikely]]
      detail::throw_freed_buffer("Buffer::copy_from_host");
    if (host.size() > size())
      detail::throw_buffer_size_error("Buffer::copy_from_host", host.size(), size(), sizeof(T));
    memory_.copy_from_host(stream, host.data(), host.size_bytes());
  }
  /// Copies elements [0, host.size()) to `host`; throws Error if host.size() > size(). The
  /// values are there once the stream has reached the copy.
  void copy_to_host(const Stream& stream, std::span<T> host) const {
    if (freed()) [[unlikely]]
      detail::throw_freed_buffer("Buffer::copy_to_host");
    if (host.size() > size())
      detail::throw_buffer_size_error("Buffer::copy_to_host", host.size(), size(), sizeof(T));
    memory_.copy_to_host(stream, host.data(), host.size_bytes());
  }
  /// All elements copied to a new vector; synchronizes `stream`, so the values are ready.
  std::vector<T> to_host(const Stream& stream) const {
    std::vector<T> out(size());
    copy_to_host(stream, std::span<T>(out));
    stream.synchronize();
    return out;
  }
  /// Copies all of `src` to elements [0, src.size()); throws Error if src.size() > size().
  void copy_from(const Stream& stream, const Buffer& src) {
    if (freed()) [[unlikely]]
      detail::throw_freed_buffer("Buffer::copy_from");
    if (src.size() > size())
      detail::throw_buffer_size_error("Buffer::copy_from", src.size(), size(), sizeof(T));
    memory_.copy_from(stream, src.memory_, src.bytes());
  }
  /// Sets every byte of every element to `value`.
  void fill_bytes(const Stream& stream, unsigned char value) { memory_.fill_bytes(stream, value); }

 private:
  static std::size_t byte_count(std::size_t n) {
    if (n > std::numeric_limits<std::size_t>::max() / sizeof(T))
      detail::throw_buffer_overflow(n, sizeof(T));
    return n * sizeof(T);
  }
  DeviceMemory memory_;
};

}  // namespace cutlet
