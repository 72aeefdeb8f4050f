// CCCL interop: cutlet streams as cuda::stream_ref and memory resources as CCCL memory
// resources, so that CUB and Thrust run on cutlet's streams and memory. An optional header:
// it needs the CUDA toolkit's include directory and its cccl directory on the include path
// (nvcc adds both); the core runtime headers do not include CCCL.
#pragma once

#ifndef LIBCUDACXX_ENABLE_EXPERIMENTAL_MEMORY_RESOURCE
#define LIBCUDACXX_ENABLE_EXPERIMENTAL_MEMORY_RESOURCE  // CCCL 2.x-3.0 gate cuda::mr behind it
#endif

#include <cuda/memory_resource>
#include <cuda/stream_ref>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>

#include "cutlet/error.h"
#include "cutlet/runtime/memory_resource.h"
#include "cutlet/runtime/stream.h"

namespace cutlet {

/// `stream` as a non-owning cuda::stream_ref (the same CUstream; no copy). Valid while the
/// stream lives.
inline cuda::stream_ref to_stream_ref(const Stream& stream) noexcept {
  return cuda::stream_ref(static_cast<cudaStream_t>(stream.handle()));
}

/// A cutlet MemoryResource seen as a CCCL memory resource: it satisfies
/// cuda::mr::resource_with<..., cuda::mr::device_accessible> and the async (stream-ordered)
/// resource concept of this CCCL version, and, with HostAccessible, cuda::mr::host_accessible
/// too. Copies share the resource; two adapters compare equal when they share one resource.
/// Alignments up to 256 bytes are honoured (every cutlet resource aligns to 256); larger ones
/// throw Error.
template <bool HostAccessible = false>
class CcclResource {
 public:
  /// Adapts `resource` (not null). With HostAccessible, throws Error unless the resource's
  /// memory is host-accessible (pinned or managed).
  explicit CcclResource(std::shared_ptr<MemoryResource> resource) : resource_(std::move(resource)) {
    if (!resource_) throw Error("CcclResource: null memory resource");
    if (HostAccessible && !resource_->host_accessible())
      throw Error("CcclResource<true>: " + resource_->describe() +
                  " is not host-accessible; use CcclResource<false>, or a pinned or managed resource");
  }

  /// Synchronous allocation (MemoryResource::allocate(bytes)).
  void* allocate(std::size_t bytes, std::size_t alignment = alignof(std::max_align_t)) {
    check_alignment(alignment);
    return to_pointer(resource_->allocate(bytes));
  }
  /// Frees memory from allocate.
  void deallocate(void* ptr, std::size_t bytes, std::size_t = alignof(std::max_align_t)) noexcept {
    resource_->deallocate(to_address(ptr), bytes);
  }
  /// Stream-ordered allocation on `stream` (a stream of the resource's device).
  void* allocate_async(std::size_t bytes, std::size_t alignment, cuda::stream_ref stream) {
    check_alignment(alignment);
    const Stream s = Stream::wrap(stream.get(), resource_->device());
    return to_pointer(resource_->allocate(bytes, s));
  }
  /// Stream-ordered allocation with the default alignment.
  void* allocate_async(std::size_t bytes, cuda::stream_ref stream) {
    return allocate_async(bytes, 256, stream);
  }
  /// Stream-ordered free on `stream`.
  void deallocate_async(void* ptr, std::size_t bytes, std::size_t, cuda::stream_ref stream) noexcept {
    const Stream s = Stream::wrap(stream.get(), resource_->device());
    resource_->deallocate(to_address(ptr), bytes, s);
  }
  /// Stream-ordered free with the default alignment.
  void deallocate_async(void* ptr, std::size_t bytes, cuda::stream_ref stream) noexcept {
    deallocate_async(ptr, bytes, 256, stream);
  }

  /// Same underlying resource.
  bool operator==(const CcclResource& other) const noexcept { return resource_ == other.resource_; }
  /// Different underlying resources.
  bool operator!=(const CcclResource& other) const noexcept { return resource_ != other.resource_; }

  /// The adapted resource.
  const std::shared_ptr<MemoryResource>& resource() const noexcept { return resource_; }

  /// Every cutlet resource is device-accessible.
  friend void get_property(const CcclResource&, cuda::mr::device_accessible) noexcept {}
  /// Host-accessible when HostAccessible.
  template <bool H = HostAccessible>
    requires H
  friend void get_property(const CcclResource&, cuda::mr::host_accessible) noexcept {}

 private:
  static void check_alignment(std::size_t alignment) {
    if (alignment > 256 || (alignment & (alignment - 1)) != 0)
      throw Error("CcclResource: alignment " + std::to_string(alignment) +
                  " is not a power of two up to 256, which cutlet resources guarantee");
  }
  static void* to_pointer(std::uint64_t address) noexcept {
    return reinterpret_cast<void*>(static_cast<std::uintptr_t>(address));
  }
  static std::uint64_t to_address(void* ptr) noexcept { return reinterpret_cast<std::uintptr_t>(ptr); }
  std::shared_ptr<MemoryResource> resource_;
};

}  // namespace cutlet
