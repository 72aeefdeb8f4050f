// DLPack interop: export buffers as DLPack tensors, versioned (DLPack 1.x's
// DLManagedTensorVersioned) or not (DLPack 0.x's DLManagedTensor), and import tensors from
// other libraries in either form. An optional header: it includes <dlpack/dlpack.h> of DLPack
// 1.0 or later, which the core runtime headers do not.
#pragma once

#include <dlpack/dlpack.h>

#if !defined(DLPACK_MAJOR_VERSION) || DLPACK_MAJOR_VERSION < 1
// Debian 12's libdlpack-dev is 0.6; cutlet's setup.sh fetches a newer dlpack.h when the
// system's is older than 1.0.
#error "cutlet/runtime/dlpack.h needs dlpack/dlpack.h of DLPack 1.0 or later (DLManagedTensorVersioned); put one first on the include path"
#endif

#include <cstdint>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "cutlet/error.h"
#include "cutlet/runtime/buffer.h"

namespace cutlet {

struct half;      // cutlet/language/half.h: IEEE binary16
struct bfloat16;  // cutlet/language/half.h: bfloat16
struct float8_e4m3;  // cutlet/runtime/float8.h: OCP FP8 E4M3
struct float8_e5m2;  // cutlet/runtime/float8.h: OCP FP8 E5M2

/// The DLPack data type of `T` (one lane): bool (kDLBool, 8 bits), signed and unsigned
/// integers of 8 to 64 bits (kDLInt, kDLUInt), float and double (kDLFloat), cutlet::half
/// (kDLFloat, 16 bits), cutlet::bfloat16 (kDLBfloat, 16 bits), cutlet::float8_e4m3 and
/// cutlet::float8_e5m2 (DLPack 1.1's float8_e4m3fn and float8_e5m2, codes 10 and 12, 8 bits:
/// PyTorch's torch.float8_e4m3fn and torch.float8_e5m2). Other types do not compile.
template <class T>
constexpr DLDataType dlpack_dtype() {
  using U = std::remove_cv_t<T>;
  constexpr auto type = [](DLDataTypeCode code, std::size_t bytes) {
    return DLDataType{static_cast<std::uint8_t>(code), static_cast<std::uint8_t>(8 * bytes), 1};
  };
  if constexpr (std::is_same_v<U, bool>) {
    return type(kDLBool, 1);
  } else if constexpr (std::is_same_v<U, half>) {
    return type(kDLFloat, 2);
  } else if constexpr (std::is_same_v<U, bfloat16>) {
    return type(kDLBfloat, 2);
  } else if constexpr (std::is_same_v<U, float8_e4m3>) {
    return DLDataType{10, 8, 1};  // kDLFloat8_e4m3fn
  } else if constexpr (std::is_same_v<U, float8_e5m2>) {
    return DLDataType{12, 8, 1};  // kDLFloat8_e5m2
  } else {
    static_assert(std::is_arithmetic_v<U> && !std::is_same_v<U, long double>,
                  "cutlet::dlpack_dtype: T must be bool, an integer, float, double, cutlet::half, "
                  "cutlet::bfloat16, cutlet::float8_e4m3 or cutlet::float8_e5m2");
    if constexpr (std::is_floating_point_v<U>)
      return type(kDLFloat, sizeof(U));
    else if constexpr (std::is_signed_v<U>)
      return type(kDLInt, sizeof(U));
    else
      return type(kDLUInt, sizeof(U));
  }
}

/// `dtype` as messages name it: "int32", "uint8", "float16", "bfloat16", "bool", "complex64",
/// "float8_e4m3fn" (the fp8, fp6 and fp4 codes of DLPack 1.1 and later), with "x4" appended
/// for 4 lanes; codes DLPack does not define read "dtype code 42, 8 bits".
std::string dlpack_dtype_name(DLDataType dtype);

/// Exports `memory` as an unversioned DLPack tensor (DLPack 0.x's DLManagedTensor, for
/// consumers that take no other) of `dtype` with `shape` and `strides` (in elements; empty:
/// compact row-major; the tensor always carries explicit strides). The tensor takes over the
/// memory: its deleter, which the consumer calls once, frees it as the memory's destructor
/// would (stream-ordered for pool memory). The device follows the memory's resource: kDLCUDA
/// with the device's ordinal for device memory (and borrowed memory), kDLCUDAHost for pinned
/// and kDLCUDAManaged for managed memory, both with device_id 0 as DLPack prescribes. Throws
/// Error when the shape and strides reach past the memory, when they have different lengths,
/// or hold negative values.
DLManagedTensor* to_dlpack(DeviceMemory&& memory, DLDataType dtype, std::vector<std::int64_t> shape,
                           std::vector<std::int64_t> strides = {});

/// As above for a typed buffer, with T's dtype.
template <class T>
DLManagedTensor* to_dlpack(Buffer<T>&& buffer, std::vector<std::int64_t> shape,
                           std::vector<std::int64_t> strides = {}) {
  return to_dlpack(std::move(buffer).take_memory(), dlpack_dtype<T>(), std::move(shape), std::move(strides));
}

/// Exports `memory` as a DLPack 1.x tensor (DLManagedTensorVersioned, version {1, minor of
/// the dlpack.h cutlet was built with}), as to_dlpack does otherwise. `flags` may hold
/// DLPACK_FLAG_BITMASK_READ_ONLY (consumers must not write the tensor) and
/// DLPACK_FLAG_BITMASK_IS_COPIED (the memory is a copy made for this consumer alone); other
/// bits throw Error.
DLManagedTensorVersioned* to_dlpack_versioned(DeviceMemory&& memory, DLDataType dtype,
                                              std::vector<std::int64_t> shape,
                                              std::vector<std::int64_t> strides = {},
                                              std::uint64_t flags = 0);

/// As above for a typed buffer, with T's dtype.
template <class T>
DLManagedTensorVersioned* to_dlpack_versioned(Buffer<T>&& buffer, std::vector<std::int64_t> shape,
                                              std::vector<std::int64_t> strides = {},
                                              std::uint64_t flags = 0) {
  return to_dlpack_versioned(std::move(buffer).take_memory(), dlpack_dtype<T>(), std::move(shape),
                             std::move(strides), flags);
}

/// A DLPack tensor received from another library (PyTorch, CuPy, JAX...), versioned
/// (DLManagedTensorVersioned) or not (DLManagedTensor): owns it and calls its deleter exactly
/// once, when destroyed or, if the constructor refuses the tensor, before it throws. Views of
/// it (buffer()) borrow its memory and must not outlive it. Move-only. Constructing one, and
/// every accessor but device() and the views, needs no driver.
///
/// Device types: kDLCUDA is device memory of device `device_id`; kDLCUDAManaged is managed
/// memory and kDLCUDAHost page-locked host memory, both addressed through unified addressing,
/// whose device_id DLPack sets to 0; views of all three are on Device(device_id). kDLCPU is
/// host memory (a NumPy array, a CPU tensor): its views are on Device::cpu(), whose kernels
/// read it in place (a GPU kernel launched with one is refused). Under CUTLET_DEVICE=cpu,
/// kDLCUDA device memory is refused: no kernel there can read it. Other device types are
/// refused.
///
/// Read-only tensors (DLPACK_FLAG_BITMASK_READ_ONLY, versioned only) are imported, and
/// read_only() says so; buffer() refuses them, since a Buffer can be written, and
/// read_only_buffer() gives the same view to a caller that promises not to write through it.
class DLPackTensor {
 public:
  /// Takes ownership of the unversioned `tensor` (Error when null). Throws Error, after calling the
  /// tensor's deleter, when its memory is not memory cutlet can use (kDLCUDA, kDLCUDAHost,
  /// kDLCUDAManaged or kDLCPU; the message says what to pass instead), or its dtype is
  /// one cutlet cannot address (vector lanes, sub-byte or opaque elements, an unknown code),
  /// or its shape is missing, negative or has more than 2^63 elements.
  explicit DLPackTensor(DLManagedTensor* tensor);
  /// Takes ownership of the DLPack 1.x `tensor` (Error when null), as above; its major version must
  /// be 1 (any minor version), else the deleter is called and Error thrown. A null strides
  /// pointer (which DLPack 1.2 no longer allows, but older producers send) means compact
  /// row-major, as in DLPack 0.x.
  explicit DLPackTensor(DLManagedTensorVersioned* tensor);
  /// Takes over `other`, which is left empty.
  DLPackTensor(DLPackTensor&& other) noexcept;
  /// Calls this tensor's deleter, then takes over `other`.
  DLPackTensor& operator=(DLPackTensor&& other) noexcept;
  DLPackTensor(const DLPackTensor&) = delete;
  DLPackTensor& operator=(const DLPackTensor&) = delete;
  /// Calls the deleter (if any). Never throws.
  ~DLPackTensor();

  /// True for a DLManagedTensorVersioned (DLPack 1.x), false for a DLManagedTensor.
  bool versioned() const noexcept { return versioned_ != nullptr; }
  /// The producer's DLPack version; {0, 0} for an unversioned tensor, which carries none.
  DLPackVersion version() const;
  /// The producer's flags (DLPACK_FLAG_BITMASK_*); 0 for an unversioned tensor.
  std::uint64_t flags() const;
  /// True when the producer marked the tensor read-only (DLPACK_FLAG_BITMASK_READ_ONLY).
  bool read_only() const { return (flags() & DLPACK_FLAG_BITMASK_READ_ONLY) != 0; }
  /// True when the producer made the tensor as a copy for this consumer alone
  /// (DLPACK_FLAG_BITMASK_IS_COPIED): writes to it reach no one else's data.
  bool copied() const { return (flags() & DLPACK_FLAG_BITMASK_IS_COPIED) != 0; }

  /// The DLTensor (data, device, shape, strides as the producer gave them).
  const DLTensor& dl_tensor() const { return tensor("dl_tensor"); }
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
  /// The DLPack device type (kDLCUDA, kDLCUDAHost, kDLCUDAManaged or kDLCPU).
  DLDeviceType device_type() const;
  /// The device ordinal the producer gave (0 for pinned and managed memory).
  int device_id() const;
  /// The device of the views: Device::cpu() for kDLCPU, else Device(device_id()) (throws
  /// NoDriverError without a driver, Error when the ordinal is out of range).
  Device device() const;
  /// The raw unversioned tensor (still owned); null when empty or versioned.
  DLManagedTensor* get() const noexcept { return unversioned_; }
  /// The raw versioned tensor (still owned); null when empty or unversioned.
  DLManagedTensorVersioned* get_versioned() const noexcept { return versioned_; }
  /// Gives up ownership of an unversioned tensor: returns it, and the caller must now call its
  /// deleter; null when empty. Throws Error (keeping the tensor) when it is versioned.
  DLManagedTensor* release();
  /// Gives up ownership of a versioned tensor, as release() does for an unversioned one.
  DLManagedTensorVersioned* release_versioned();

  /// A borrowed Buffer<T> over the tensor's elements, valid while this DLPackTensor lives.
  /// Throws Error when the tensor is read-only, when T does not match dtype(), or when the
  /// tensor is not contiguous; these checks need no driver.
  template <class T>
  Buffer<T> buffer() const {
    check_view(dlpack_dtype<T>(), sizeof(T), /*write=*/true);
    return Buffer<T>::wrap(data(), static_cast<std::size_t>(size()), device());
  }
  /// As buffer(), but for read-only tensors too: cutlet's buffers carry no read-only mark,
  /// so the caller promises that nothing writes through the view (no kernel stores to it, no
  /// copy or fill targets it).
  template <class T>
  Buffer<T> read_only_buffer() const {
    check_view(dlpack_dtype<T>(), sizeof(T), /*write=*/false);
    return Buffer<T>::wrap(data(), static_cast<std::size_t>(size()), device());
  }

 private:
  void adopt(const DLTensor& t);
  void delete_tensor() noexcept;
  void check_view(DLDataType want, std::size_t element_size, bool write) const;
  const DLTensor& tensor(const char* op) const;
  DLManagedTensor* unversioned_ = nullptr;
  DLManagedTensorVersioned* versioned_ = nullptr;
  std::vector<std::int64_t> strides_;
};

}  // namespace cutlet
