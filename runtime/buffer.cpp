// Allocation from memory resources, stream-ordered release, copies and fills of memory.
#include "cutlet/runtime/buffer.h"

#include <cstring>
#include <memory>
#include <string>
#include <vector>
#include <utility>

#include "cutlet/runtime/memory_pool.h"
#include "device_state.h"
#include "host_queue.h"

namespace cutlet {
namespace {

std::string describe(const DeviceMemory& m) {
  if (m.freed())
    return "freed device memory (free() was called on it, so it holds 0 bytes; allocate new "
           "memory instead of using it after free)";
  return m.empty() ? std::string("empty device memory (0 bytes)")
                   : std::to_string(m.bytes()) + "-byte device memory";
}

/// Throws unless [offset, offset + bytes) lies within `m`.
void check_range(const char* op, const DeviceMemory& m, std::size_t bytes, std::size_t offset) {
  if (offset > m.bytes() || bytes > m.bytes() - offset)
    throw Error(std::string("DeviceMemory::") + op + ": " + std::to_string(bytes) +
                " bytes at offset " + std::to_string(offset) + " do not fit in the " + describe(m) +
                "; copy at most " + std::to_string(offset > m.bytes() ? 0 : m.bytes() - offset) +
                " bytes there");
}

void check_stream(const char* op, const DeviceMemory& m, const Stream& stream) {
  if (stream.device() != m.device())
    throw Error(std::string("DeviceMemory::") + op + ": the memory is on " +
                detail::device_label(m.device().ordinal()) + " but the stream on " +
                detail::device_label(stream.device().ordinal()) +
                "; use a stream of the memory's device");
}

}  // namespace

namespace detail {

void throw_buffer_size_error(const char* op, std::size_t wanted, std::size_t available,
                             std::size_t element_size) {
  throw Error(std::string(op) + ": " + std::to_string(wanted) + " elements (" +
              std::to_string(wanted * element_size) + " bytes) do not fit in a buffer of " +
              std::to_string(available) + " elements (" + std::to_string(available * element_size) +
              " bytes)");
}

void throw_freed_buffer(const char* op) {
  throw Error(std::string(op) + ": the buffer was freed by free() and holds no memory any more; "
              "allocate a new buffer instead of using this one after free");
}

void throw_buffer_overflow(std::size_t n, std::size_t element_size) {
  throw Error("Buffer: " + std::to_string(n) + " elements of " + std::to_string(element_size) +
              " bytes overflow the size of an address space");
}

}  // namespace detail

DeviceMemory::DeviceMemory(std::size_t bytes, Device device)
    : DeviceMemory(bytes, DeviceMemoryResource::shared(device)) {}

DeviceMemory::DeviceMemory(std::size_t bytes, std::shared_ptr<MemoryResource> resource)
    : device_(resource ? resource->device() : Device(Device::Unchecked{}, 0)) {
  if (!resource) throw Error("DeviceMemory: null memory resource");
  if (bytes == 0) return;
  generation_ = resource->device().generation();
  address_ = resource->allocate(bytes);
  bytes_ = bytes;
  owning_ = true;
  resource_ = std::move(resource);
}

DeviceMemory::DeviceMemory(std::size_t bytes, const Stream& stream,
                           std::shared_ptr<MemoryResource> resource)
    : device_(resource ? resource->device() : Device(Device::Unchecked{}, 0)) {
  if (!resource) throw Error("DeviceMemory: null memory resource");
  if (bytes == 0) return;
  generation_ = resource->device().generation();
  address_ = resource->allocate(bytes, stream);
  bytes_ = bytes;
  owning_ = true;
  if (resource->stream_ordered()) stream_.emplace(stream.share());
  resource_ = std::move(resource);
}

DeviceMemory::DeviceMemory(std::size_t bytes, const Stream& stream)
    : DeviceMemory(bytes, stream, PoolMemoryResource::device_default(stream.device())) {}

DeviceMemory DeviceMemory::wrap(std::uint64_t address, std::size_t bytes, Device device) {
  if (address == 0 && bytes != 0)
    throw Error("DeviceMemory::wrap: null device address given with " + std::to_string(bytes) +
                " bytes; wrap a valid allocation, or 0 bytes for empty memory");
  DeviceMemory m;
  m.address_ = address;
  m.bytes_ = address == 0 ? 0 : bytes;
  m.device_ = device;
  return m;
}

DeviceMemory::DeviceMemory(DeviceMemory&& other) noexcept
    : address_(std::exchange(other.address_, 0)),
      bytes_(std::exchange(other.bytes_, 0)),
      device_(other.device_),
      owning_(std::exchange(other.owning_, false)),
      freed_(std::exchange(other.freed_, false)),
      resource_(std::move(other.resource_)),
      stream_(std::move(other.stream_)),
      generation_(other.generation_) {
  other.stream_.reset();
}

DeviceMemory& DeviceMemory::operator=(DeviceMemory&& other) noexcept {
  if (this != &other) {
    release();
    address_ = std::exchange(other.address_, 0);
    bytes_ = std::exchange(other.bytes_, 0);
    device_ = other.device_;
    owning_ = std::exchange(other.owning_, false);
    freed_ = std::exchange(other.freed_, false);
    resource_ = std::move(other.resource_);
    stream_ = std::move(other.stream_);
    other.stream_.reset();
    generation_ = other.generation_;
  }
  return *this;
}

DeviceMemory::~DeviceMemory() { release(); }

void DeviceMemory::release() noexcept {
  if (owning_ && address_ != 0 && resource_ &&
      detail::generation_of(device_.ordinal()) == generation_) {
    if (stream_)
      resource_->deallocate(address_, bytes_, *stream_);
    else
      resource_->deallocate(address_, bytes_);
  }
  address_ = 0;
  bytes_ = 0;
  owning_ = false;
  resource_.reset();
  stream_.reset();
}

void DeviceMemory::free() noexcept {
  release();
  freed_ = true;
}

void DeviceMemory::free(const Stream& stream) {
  if (owning_ && address_ != 0) {
    check_stream("free", *this, stream);
    stream_.emplace(stream.share());
  }
  free();
}

void* DeviceMemory::host_pointer() const {
  if (!empty() && device_.is_cpu()) return reinterpret_cast<void*>(static_cast<std::uintptr_t>(address_));
  if (empty() || !resource_ || !resource_->host_accessible())
    throw Error("DeviceMemory::host_pointer: " +
                (empty() ? describe(*this)
                         : resource_ ? resource_->describe() + " is not host-accessible"
                                     : std::string("borrowed memory's kind is unknown")) +
                "; allocate from a PinnedMemoryResource or ManagedMemoryResource to touch it from "
                "the host, or copy it with copy_to_host");
  return reinterpret_cast<void*>(static_cast<std::uintptr_t>(address_));
}

void DeviceMemory::copy_from_host(const Stream& stream, const void* src, std::size_t bytes,
                                  std::size_t offset) {
  check_range("copy_from_host", *this, bytes, offset);
  if (bytes == 0) return;
  if (!src) throw Error("DeviceMemory::copy_from_host: null host source pointer");
  check_stream("copy_from_host", *this, stream);
  if (device_.is_cpu()) {
    // As from pageable memory to a GPU: the source is read now, written when the stream gets there.
    auto copy = std::make_shared<std::vector<char>>(static_cast<const char*>(src), static_cast<const char*>(src) + bytes);
    auto* dst = reinterpret_cast<void*>(static_cast<std::uintptr_t>(address_ + offset));
    detail::host_queue(stream).push_uncaptured([dst, copy] { std::memcpy(dst, copy->data(), copy->size()); },
                                              "a copy from pageable host memory");
    return;
  }
  detail::ensure_current(detail::device_state(device_.ordinal()), stream);
  CUresult r = detail::driver().cuMemcpyHtoDAsync(static_cast<CUdeviceptr>(address_ + offset), src,
                                                  bytes, static_cast<CUstream>(stream.handle()));
  if (r != CUDA_SUCCESS)
    detail::throw_cuda_error(r, "cuMemcpyHtoDAsync(" + std::to_string(bytes) + " bytes)");
}

void DeviceMemory::copy_to_host(const Stream& stream, void* dst, std::size_t bytes,
                                std::size_t offset) const {
  check_range("copy_to_host", *this, bytes, offset);
  if (bytes == 0) return;
  if (!dst) throw Error("DeviceMemory::copy_to_host: null host destination pointer");
  check_stream("copy_to_host", *this, stream);
  if (device_.is_cpu()) {
    auto* src = reinterpret_cast<const void*>(static_cast<std::uintptr_t>(address_ + offset));
    detail::host_queue(stream).push_uncaptured([dst, src, bytes] { std::memcpy(dst, src, bytes); },
                                              "a copy to pageable host memory");
    return;
  }
  detail::ensure_current(detail::device_state(device_.ordinal()), stream);
  CUresult r = detail::driver().cuMemcpyDtoHAsync(dst, static_cast<CUdeviceptr>(address_ + offset),
                                                  bytes, static_cast<CUstream>(stream.handle()));
  if (r != CUDA_SUCCESS)
    detail::throw_cuda_error(r, "cuMemcpyDtoHAsync(" + std::to_string(bytes) + " bytes)");
}

void DeviceMemory::copy_from(const Stream& stream, const DeviceMemory& src, std::size_t bytes) {
  if (bytes > src.bytes_ || bytes > bytes_)
    throw Error("DeviceMemory::copy_from: cannot copy " + std::to_string(bytes) +
                " bytes from a source of " + std::to_string(src.bytes_) +
                " bytes into a destination of " + std::to_string(bytes_) + " bytes" +
                (src.freed_ || freed_ ? std::string(" (") + (src.freed_ ? "the source" : "the destination") +
                                            " was freed by free())"
                                      : std::string()));
  if (bytes == 0) return;
  if (src.address_ < address_ + bytes && address_ < src.address_ + bytes)
    throw Error("DeviceMemory::copy_from: source and destination overlap");
  check_stream("copy_from", *this, stream);
  if (device_.is_cpu() || src.device_.is_cpu()) return copy_with_cpu(stream, src, bytes);
  const detail::DeviceState& dst_state = detail::device_state(device_.ordinal());
  detail::ensure_current(dst_state, stream);
  const detail::DriverApi& api = detail::driver();
  const auto cu_stream = static_cast<CUstream>(stream.handle());
  if (src.device_ == device_) {
    CUresult r = api.cuMemcpyAsync(static_cast<CUdeviceptr>(address_),
                                   static_cast<CUdeviceptr>(src.address_), bytes, cu_stream);
    if (r != CUDA_SUCCESS)
      detail::throw_cuda_error(r, "cuMemcpyAsync(" + std::to_string(bytes) + " bytes)");
    return;
  }
  const detail::DeviceState& src_state = detail::device_state(src.device_.ordinal());
  CUresult r = api.cuMemcpyPeerAsync(static_cast<CUdeviceptr>(address_), dst_state.context.load(std::memory_order_acquire),
                                     static_cast<CUdeviceptr>(src.address_), src_state.context.load(std::memory_order_acquire),
                                     bytes, cu_stream);
  if (r != CUDA_SUCCESS)
    detail::throw_cuda_error(r, "cuMemcpyPeerAsync(" + std::to_string(bytes) + " bytes, " +
                                    src_state.label + " -> " + dst_state.label + ")");
}

void DeviceMemory::copy_with_cpu(const Stream& stream, const DeviceMemory& src, std::size_t bytes) {
  auto* dst_ptr = reinterpret_cast<void*>(static_cast<std::uintptr_t>(address_));
  auto* src_ptr = reinterpret_cast<const void*>(static_cast<std::uintptr_t>(src.address_));
  if (device_.is_cpu() && src.device_.is_cpu()) {
    detail::host_queue(stream).push([dst_ptr, src_ptr, bytes] { std::memcpy(dst_ptr, src_ptr, bytes); },
                                    detail::HostGraphNode::Kind::copy);
    return;
  }
  if (device_.is_cpu()) {
    // From a GPU into the CPU device's memory, when the (CPU) stream gets there: after the
    // GPU's work so far.
    const int ordinal = src.device_.ordinal();
    const std::uint64_t from = src.address_;
    detail::host_queue(stream).push_uncaptured([ordinal, from, dst_ptr, bytes] {
      const detail::DeviceState& s = detail::device_state(ordinal);
      detail::ensure_current(s);
      const detail::DriverApi& api = detail::driver();
      CUresult r = api.cuCtxSynchronize();
      if (r == CUDA_SUCCESS) r = api.cuMemcpyDtoHAsync(dst_ptr, static_cast<CUdeviceptr>(from), bytes, CU_STREAM_LEGACY);
      if (r == CUDA_SUCCESS) r = api.cuStreamSynchronize(CU_STREAM_LEGACY);
      if (r != CUDA_SUCCESS)
        detail::throw_cuda_error(r, "cuMemcpyDtoHAsync(" + std::to_string(bytes) + " bytes, " + s.label + " -> the CPU device)");
    }, "a copy from a GPU");
    return;
  }
  // From the CPU device's memory to a GPU, on the (GPU) stream, once the CPU device's work
  // that may still write it has run.
  detail::synchronize_host_queues();
  copy_from_host(stream, src_ptr, bytes);
}

void DeviceMemory::fill_bytes(const Stream& stream, unsigned char value) {
  if (freed_) throw Error("DeviceMemory::fill_bytes on " + describe(*this));
  if (bytes_ == 0) return;
  check_stream("fill_bytes", *this, stream);
  if (device_.is_cpu()) {
    auto* dst = reinterpret_cast<void*>(static_cast<std::uintptr_t>(address_));
    detail::host_queue(stream).push([dst, value, bytes = bytes_] { std::memset(dst, value, bytes); },
                                    detail::HostGraphNode::Kind::fill);
    return;
  }
  detail::ensure_current(detail::device_state(device_.ordinal()), stream);
  CUresult r = detail::driver().cuMemsetD8Async(static_cast<CUdeviceptr>(address_), value, bytes_,
                                                static_cast<CUstream>(stream.handle()));
  if (r != CUDA_SUCCESS)
    detail::throw_cuda_error(r, "cuMemsetD8Async(" + std::to_string(bytes_) + " bytes)");
}

}  // namespace cutlet
