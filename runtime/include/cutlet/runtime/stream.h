// A CUDA stream: an owned one, or a non-owning wrapper around a stream made elsewhere.
#pragma once

#include "cutlet/runtime/device.h"

namespace cutlet {

/// A queue of work on one device, executed in order. Move-only. An owning Stream creates a
/// non-blocking stream (one that does not synchronize with the legacy default stream) and
/// destroys it in its destructor; a wrapped one (wrap()) borrows a stream made by someone
/// else (PyTorch, CuPy, plain CUDA) and never destroys it. All work queued on a stream must
/// be for that stream's device.
class Stream {
 public:
  /// A new owned non-blocking stream on Device::current(). Throws NoDriverError without a
  /// driver, CudaError if the driver cannot create the stream.
  Stream();
  /// A new owned non-blocking stream on `device`.
  explicit Stream(Device device);

  /// A non-owning Stream for `cu_stream` (a CUstream) of `device`'s primary context; no copy,
  /// no check that the stream really belongs to that device (the driver rejects work on a
  /// mismatched stream). A null handle means that context's legacy default stream.
  static Stream wrap(void* cu_stream, Device device) noexcept;

  /// Takes over `other`, which is left non-owning with a null handle (the legacy default
  /// stream of the same device).
  Stream(Stream&& other) noexcept;
  /// Destroys the stream this one owns, if any, then takes over `other` as above.
  Stream& operator=(Stream&& other) noexcept;
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  /// Destroys an owned stream (work already queued still completes; the driver releases the
  /// stream afterwards). Never throws.
  ~Stream();

  /// Waits until all work queued on this stream has finished. Throws CudaError for an error
  /// raised by that work.
  void synchronize() const;
  /// True when all work queued so far has finished, false while some is pending; never
  /// waits. Throws CudaError for an error raised by that work.
  bool query() const;
  /// The CUstream as a void* (null for the legacy default stream).
  void* handle() const noexcept { return handle_; }
  /// The device whose context this stream belongs to.
  Device device() const noexcept { return device_; }
  /// True when this Stream destroys its stream in its destructor.
  bool owning() const noexcept { return owning_; }

 private:
  Stream(void* handle, Device device, bool owning) noexcept;
  void* handle_ = nullptr;
  Device device_;
  bool owning_ = false;
};

}  // namespace cutlet
