// CCCL interop: cutlet streams as cuda::stream_ref and memory resources as CCCL memory
// resources, so that CUB and Thrust run on cutlet's streams and memory. An optional header:
// it needs the CUDA toolkit's include directory and its cccl directory on the include path
// (nvcc adds both); the core runtime headers do not include CCCL. It follows the CCCL it is
// compiled with: CCCL 2.x and 3.0 (CUDA 12.x, 13.0) and CCCL 3.1 and later (CUDA 13.1 on),
// which renamed the memory-resource concepts.
#pragma once

#ifndef LIBCUDACXX_ENABLE_EXPERIMENTAL_MEMORY_RESOURCE
#define LIBCUDACXX_ENABLE_EXPERIMENTAL_MEMORY_RESOURCE  // CCCL 2.x and 3.0 gate cuda::mr behind it
#endif

#include <cuda/memory_resource>
#include <cuda/stream_ref>

#if !defined(CCCL_MAJOR_VERSION) || !defined(CCCL_MINOR_VERSION)
#error "cutlet/runtime/cccl.h: the CCCL on the include path defines no CCCL_MAJOR_VERSION (CCCL 2.x or later is needed)"
#endif

/// 1 when the CCCL in use names its memory-resource concepts as CCCL 3.1 and later do:
/// cuda::mr::synchronous_resource (allocate_sync / deallocate_sync) and cuda::mr::resource,
/// stream-ordered (allocate / deallocate with the stream first); 0 for the names of CCCL 2.x
/// and 3.0: cuda::mr::resource (allocate / deallocate, synchronous) and
/// cuda::mr::async_resource (allocate_async / deallocate_async, the stream last).
#if CCCL_MAJOR_VERSION > 3 || (CCCL_MAJOR_VERSION == 3 && CCCL_MINOR_VERSION >= 1)
#define CUTLET_CCCL_SYNCHRONOUS_RESOURCE 1
#else
#define CUTLET_CCCL_SYNCHRONOUS_RESOURCE 0
#endif

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
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

/// A cutlet MemoryResource seen as a CCCL memory resource, under the concept names of the
/// CCCL in use (see CUTLET_CCCL_SYNCHRONOUS_RESOURCE). With CCCL 3.1 and later it satisfies
/// cuda::mr::synchronous_resource_with<..., cuda::mr::device_accessible> and the
/// stream-ordered cuda::mr::resource_with<..., cuda::mr::device_accessible>; with CCCL 2.x
/// and 3.0, cuda::mr::resource_with and cuda::mr::async_resource_with. With HostAccessible it
/// has cuda::mr::host_accessible too. Copies share the resource; two adapters compare equal
/// when they share one resource. Alignments up to 256 bytes are honoured (every cutlet
/// resource aligns to 256); larger ones throw Error.
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

#if CUTLET_CCCL_SYNCHRONOUS_RESOURCE
  /// Synchronous allocation (MemoryResource::allocate(bytes)): usable as soon as it returns.
  void* allocate_sync(std::size_t bytes, std::size_t alignment = 256) {
    check_alignment(alignment);
    return to_pointer(resource_->allocate(bytes));
  }
  /// Frees memory from allocate_sync.
  void deallocate_sync(void* ptr, std::size_t bytes, std::size_t = 256) noexcept {
    resource_->deallocate(to_address(ptr), bytes);
  }
  /// Stream-ordered allocation on `stream` (a stream of the resource's device).
  void* allocate(cuda::stream_ref stream, std::size_t bytes, std::size_t alignment = 256) {
    check_alignment(alignment);
    return to_pointer(resource_->allocate(bytes, wrap(stream)));
  }
  /// Stream-ordered free on `stream` of memory from either allocation.
  void deallocate(cuda::stream_ref stream, void* ptr, std::size_t bytes, std::size_t = 256) noexcept {
    resource_->deallocate(to_address(ptr), bytes, wrap(stream));
  }
#else
  /// Synchronous allocation (MemoryResource::allocate(bytes)): usable as soon as it returns.
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
    return to_pointer(resource_->allocate(bytes, wrap(stream)));
  }
  /// Stream-ordered allocation with the default alignment.
  void* allocate_async(std::size_t bytes, cuda::stream_ref stream) {
    return allocate_async(bytes, 256, stream);
  }
  /// Stream-ordered free on `stream`.
  void deallocate_async(void* ptr, std::size_t bytes, std::size_t, cuda::stream_ref stream) noexcept {
    resource_->deallocate(to_address(ptr), bytes, wrap(stream));
  }
  /// Stream-ordered free with the default alignment.
  void deallocate_async(void* ptr, std::size_t bytes, cuda::stream_ref stream) noexcept {
    deallocate_async(ptr, bytes, 256, stream);
  }
#endif

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
  Stream wrap(cuda::stream_ref stream) const noexcept { return Stream::wrap(stream.get(), resource_->device()); }
  std::shared_ptr<MemoryResource> resource_;
};

}  // namespace cutlet
