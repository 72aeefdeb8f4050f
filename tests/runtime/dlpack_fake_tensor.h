// Hand-made DLPack tensors over made-up CUDA addresses, for the DLPack import tests (no GPU).
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "cutlet/runtime/dlpack.h"

namespace cutlet::test {

/// The address the fake tensors claim their elements start at (never dereferenced).
inline constexpr std::uint64_t kFakeAddress = 0x7f0000000000;

/// A DLManagedTensor (`Managed` = DLManagedTensor) or DLManagedTensorVersioned over
/// kFakeAddress, with byte_offset 256, whose deleter deletes it and counts its calls in
/// `*deleted`. Made with new: the deleter, or the DLPackTensor that owns it, frees it.
template <class Managed>
struct FakeTensor {
  Managed managed = {};
  std::vector<std::int64_t> shape;
  std::vector<std::int64_t> strides;
  int* deleted;

  /// Strides empty: a null strides pointer (compact row-major).
  FakeTensor(DLDevice device, DLDataType dtype, std::vector<std::int64_t> sh, std::vector<std::int64_t> st,
             int* deleted_count)
      : shape(std::move(sh)), strides(std::move(st)), deleted(deleted_count) {
    DLTensor& t = managed.dl_tensor;
    t.data = reinterpret_cast<void*>(static_cast<std::uintptr_t>(kFakeAddress));
    t.device = device;
    t.ndim = static_cast<std::int32_t>(shape.size());
    t.dtype = dtype;
    t.shape = shape.empty() ? nullptr : shape.data();
    t.strides = strides.empty() ? nullptr : strides.data();
    t.byte_offset = 256;
    managed.manager_ctx = this;
    managed.deleter = [](Managed* m) {
      auto* self = static_cast<FakeTensor*>(m->manager_ctx);
      ++*self->deleted;
      delete self;
    };
    if constexpr (requires { managed.version; }) managed.version = DLPackVersion{1, DLPACK_MINOR_VERSION};
  }
};

/// A new fake DLPack 1.x tensor on CUDA device 0; returns its DLManagedTensorVersioned.
inline DLManagedTensorVersioned* fake_versioned(DLDataType dtype, std::vector<std::int64_t> shape,
                                                std::vector<std::int64_t> strides, int* deleted,
                                                std::uint64_t flags = 0, DLDevice device = {kDLCUDA, 0}) {
  auto* f = new FakeTensor<DLManagedTensorVersioned>(device, dtype, std::move(shape), std::move(strides), deleted);
  f->managed.flags = flags;
  return &f->managed;
}

/// A new fake unversioned (DLPack 0.x) tensor on `device`; returns its DLManagedTensor.
inline DLManagedTensor* fake_unversioned(DLDataType dtype, std::vector<std::int64_t> shape,
                                         std::vector<std::int64_t> strides, int* deleted,
                                         DLDevice device = {kDLCUDA, 0}) {
  return &(new FakeTensor<DLManagedTensor>(device, dtype, std::move(shape), std::move(strides), deleted))->managed;
}

}  // namespace cutlet::test
