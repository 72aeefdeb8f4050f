// DLPack interop: export buffers as DLManagedTensor and import tensors from other libraries.
// An optional header: it includes <dlpack/dlpack.h> (Debian's libdlpack-dev), which the core
// runtime headers do not.
#pragma once

#include <dlpack/dlpack.h>

#include <cstdint>
#include <span>
#include <type_traits>
#include <vector>

#include "cutlet/error.h"
#include "cutlet/runtime/buffer.h"

namespace cutlet {

/// The DLPack data type of `T` (one lane): signed and unsigned integers, floating point and
/// bool. Other types do not compile.
template <class T>
constexpr DLDataType dlpack_dtype() {
  static_assert(std::is_arithmetic_v<T>, "cutlet::dlpack_dtype: T must be a number or bool");
  if constexpr (std::is_same_v<T, bool>)
    return DLDataType{static_cast<std::uint8_t>(kDLUInt), 8, 1};  // DLPack 0.6 has no kDLBool
  else if constexpr (std::is_floating_point_v<T>)
    return DLDataType{static_cast<std::uint8_t>(kDLFloat), static_cast<std::uint8_t>(8 * sizeof(T)), 1};
  else if constexpr (std::is_signed_v<T>)
    return DLDataType{static_cast<std::uint8_t>(kDLInt), static_cast<std::uint8_t>(8 * sizeof(T)), 1};
  else
    return DLDataType{static_cast<std::uint8_t>(kDLUInt), static_cast<std::uint8_t>(8 * sizeof(T)), 1};
}

/// Exports `memory` as a DLPack tensor of `dtype` with `shape` and `strides` (in elements;
/// empty: compact row-major). The tensor takes over the memory: its deleter frees it as the
/// memory's destructor would (stream-ordered for pool memory). The device type follows the
/// memory's resource: kDLCUDA for device memory (and borrowed memory), kDLCUDAHost for
/// pinned, kDLCUDAManaged for managed memory. Throws Error when the shape and strides reach
/// past the memory, or when they have different lengths.
DLManagedTensor* to_dlpack(DeviceMemory&& memory, DLDataType dtype, std::vector<std::int64_t> shape,
                           std::vector<std::int64_t> strides = {});

/// As above for a typed buffer, with T's dtype.
template <class T>
DLManagedTensor* to_dlpack(Buffer<T>&& buffer, std::vector<std::int64_t> shape,
                           std::vector<std::int64_t> strides = {}) {
  return to_dlpack(std::move(buffer).take_memory(), dlpack_dtype<T>(), std::move(shape), std::move(strides));
}

/// A DLPack tensor received from another library (PyTorch, CuPy, JAX...): owns the
/// DLManagedTensor and calls its deleter when destroyed. Views of it (buffer()) borrow its
/// memory and must not outlive it. Move-only.
class DLPackTensor {
 public:
  /// Takes ownership of `tensor` (not null). Throws Error, after calling the tensor's deleter,
  /// when its memory is not CUDA memory cutlet can use (kDLCUDA, kDLCUDAHost or
  /// kDLCUDAManaged), when it has vector lanes, or a negative extent. Needs no driver.
  explicit DLPackTensor(DLManagedTensor* tensor);
  /// Takes over `other`, which is left empty.
  DLPackTensor(DLPackTensor&& other) noexcept;
  /// Calls this tensor's deleter, then takes over `other`.
  DLPackTensor& operator=(DLPackTensor&& other) noexcept;
  DLPackTensor(const DLPackTensor&) = delete;
  DLPackTensor& operator=(const DLPackTensor&) = delete;
  /// Calls the deleter (if any). Never throws.
  ~DLPackTensor();

  /// The extents.
  std::span<const std::int64_t> shape() const;
  /// The strides in elements (computed as compact row-major when the producer gave none).
  std::span<const std::int64_t> strides() const noexcept { return strides_; }
  /// The element type.
  DLDataType dtype() const;
  /// The number of elements (product of the shape).
  std::int64_t size() const;
  /// True when the strides are compact row-major (extents of 1 may have any stride).
  bool contiguous() const;
  /// The address of element [0, ..., 0] (data + byte_offset).
  std::uint64_t data() const;
  /// The DLPack device type (kDLCUDA, kDLCUDAHost or kDLCUDAManaged).
  DLDeviceType device_type() const;
  /// The device ordinal the producer gave (0 for host memory).
  int device_id() const;
  /// The memory as a cutlet Device (throws NoDriverError without a driver, Error when the
  /// ordinal is out of range).
  Device device() const;
  /// The raw tensor (still owned).
  DLManagedTensor* get() const noexcept { return tensor_; }
  /// Gives up ownership: returns the tensor, whose deleter the caller must now call.
  DLManagedTensor* release() noexcept;

  /// A borrowed Buffer<T> over the tensor's elements, valid while this DLPackTensor lives.
  /// Throws Error when T does not match dtype(), or when the tensor is not contiguous.
  template <class T>
  Buffer<T> buffer() const {
    check_view(dlpack_dtype<T>(), sizeof(T));
    return Buffer<T>::wrap(data(), static_cast<std::size_t>(size()), device());
  }

 private:
  void check_view(DLDataType want, std::size_t element_size) const;
  const DLTensor& tensor(const char* op) const;
  DLManagedTensor* tensor_ = nullptr;
  std::vector<std::int64_t> strides_;
};

}  // namespace cutlet
