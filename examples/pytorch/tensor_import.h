// Tensors of other Python libraries (PyTorch, CuPy, JAX...) borrowed for one call, without a
// copy, and the stream that call runs on.
//
// A tensor whose type has a DLPack C exchange API (type(t).__dlpack_c_exchange_api__, DLPack
// 1.3; PyTorch 2.10 and later) is read through it: a C call fills a DLTensor, and the same table
// gives the library's current stream, so no Python code runs. Any other DLPack producer goes
// through its __dlpack__() method (nanobind's ndarray import), which costs microseconds per
// tensor in Python, and the caller must name the stream.
#pragma once

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <cutlet/runtime/device.h>
#include <cutlet/runtime/stream.h>

#include "dlpack_include.h"

namespace cutlet_torch {

namespace nb = nanobind;

/// The DLPack C exchange API of Python type `type` (its `__dlpack_c_exchange_api__` capsule, of
/// DLPack major version 1, with the non-owning import and the current-stream query), or null
/// when it has none. Looked up once per type; the types seen are kept alive for the process.
/// Needs the GIL.
const DLPackExchangeAPI* exchange_api(PyTypeObject* type);

/// One tensor argument of a call: its DLTensor, borrowed from the Python object. The data,
/// shape and strides stay valid until the call returns to Python (the caller holds the
/// object); the kernel may run later, which is safe on the stream the producer uses, since its
/// allocator reuses memory in that stream's order.
class BorrowedTensor {
 public:
  /// Borrows `object`, named `name` in error messages (a string literal). Throws
  /// nb::type_error when `object` is no DLPack producer, nb::python_error when the producer
  /// refuses it.
  BorrowedTensor(nb::handle object, const char* name);

  /// The tensor as DLPack describes it (data is the address of element 0 less byte_offset).
  const DLTensor& dl() const noexcept { return tensor_; }
  /// The argument's name, for messages.
  const char* name() const noexcept { return name_; }
  /// The producer's exchange API; null for a tensor imported through __dlpack__().
  const DLPackExchangeAPI* api() const noexcept { return api_; }

 private:
  DLTensor tensor_{};
  const char* name_;
  const DLPackExchangeAPI* api_ = nullptr;
  nb::ndarray<> imported_;  ///< holds a tensor imported through __dlpack__()
};

/// The stream a call on `t` (a CUDA tensor) runs on, on `t`'s device: `stream` when the caller
/// gave one (a CUstream as an int, 0 for the legacy default stream, or an object with a
/// `cuda_stream` attribute such as torch.cuda.Stream), else, when `stream` is None, the
/// producer's current stream for that device (PyTorch's torch.cuda.current_stream()). Throws
/// cutlet::Error naming `op` when `stream` is None and `t` came through __dlpack__(), whose
/// producer has no way to say which stream is current.
cutlet::Stream launch_stream(const BorrowedTensor& t, nb::handle stream, const char* op);

}  // namespace cutlet_torch
