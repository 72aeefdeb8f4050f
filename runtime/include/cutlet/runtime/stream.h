// A CUDA stream: an owned one, a non-owning wrapper around a stream made elsewhere, or one of
// the two default streams.
#pragma once

#include <functional>
#include <memory>

#include "cutlet/runtime/device.h"

namespace cutlet {

class Event;
class GreenContext;
class DeviceMemory;
class StreamScratch;
namespace detail {
struct StreamAccess;
struct ScratchSlot;
}

/// How to create a Stream.
struct StreamOptions {
  /// True: the stream does not synchronize with the legacy default stream (what cutlet,
  /// PyTorch and CuPy use). False: work on it waits for, and is waited for by, the legacy
  /// default stream, as with cudaStreamCreate's default flag.
  bool non_blocking = true;
  /// Scheduling priority: lower numbers are higher priorities, as in CUDA. The driver clamps
  /// the value into Stream::priority_range(); 0 is the default (lowest) priority.
  int priority = 0;
};

/// The range of stream priorities a device honours: `greatest` (the highest priority) is
/// numerically <= `least` (the default). {0, 0} when priorities are not supported.
struct StreamPriorityRange {
  int least = 0;     ///< The lowest priority, the default (0 on current GPUs and the CPU device).
  int greatest = 0;  ///< The highest priority (e.g. -5).
};

/// A queue of work on one device, executed in order. Move-only. An owning Stream creates a
/// stream and releases it when neither it nor any buffer freed on it needs it any more (a
/// Buffer allocated stream-ordered keeps its stream alive until it is freed on it); a
/// wrapped one (wrap()) borrows a stream made by someone else (PyTorch, CuPy, plain CUDA)
/// and never destroys it. An owning Stream also keeps the temporary memory of cutlet's library
/// calls on it from call to call, at most 4 MiB (StreamScratch; StreamScratch::trim frees
/// it). All work queued on a stream must be for that stream's device;
/// cutlet makes the stream's context current itself before every call that uses it, so
/// which device is current on the calling thread never matters.
class Stream {
 public:
  /// A new owned non-blocking stream on Device::current(). Throws NoDriverError without a
  /// driver, CudaError if the driver cannot create the stream.
  Stream();
  /// A new owned non-blocking stream of default priority on `device`.
  explicit Stream(Device device);
  /// A new owned stream on `device` with `options` (blocking or not, priority).
  Stream(Device device, StreamOptions options);

  /// A non-owning Stream for `cu_stream` (a CUstream) of `device`'s primary context; no copy,
  /// no check that the stream really belongs to that device (the driver rejects work on a
  /// mismatched stream). A null handle means that context's default stream (the legacy one,
  /// as cutlet's driver calls use legacy default-stream semantics).
  static Stream wrap(void* cu_stream, Device device) noexcept;
  /// The legacy default stream of `device`'s primary context (CU_STREAM_LEGACY): it waits for
  /// all blocking streams of the context and they wait for it.
  static Stream legacy_default(Device device) noexcept;
  /// The calling thread's per-thread default stream of `device`'s primary context
  /// (CU_STREAM_PER_THREAD): a blocking stream private to each host thread. The handle is
  /// the same on every thread; which stream it means depends on the thread that uses it.
  static Stream per_thread_default(Device device) noexcept;
  /// The priorities `device` supports (cuCtxGetStreamPriorityRange).
  static StreamPriorityRange priority_range(Device device);

  /// Takes over `other`, which is left non-owning with a null handle (the legacy default
  /// stream of the same device).
  Stream(Stream&& other) noexcept;
  /// Releases the stream this one owns, if any, then takes over `other` as above.
  Stream& operator=(Stream&& other) noexcept;
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  /// Releases an owned stream (work already queued still completes; the driver destroys the
  /// stream afterwards, once no buffer needs it for its stream-ordered free). Never throws.
  ~Stream();

  /// Waits until all work queued on this stream has finished. Throws CudaError for an error
  /// raised by that work.
  void synchronize() const;
  /// True when all work queued so far has finished, false while some is pending; never
  /// waits. Throws CudaError for an error raised by that work.
  bool query() const;
  /// Makes work queued on this stream after this call wait until `event` has completed
  /// (cuStreamWaitEvent); the host does not wait. An event never recorded is complete.
  /// Events and streams of different devices may be combined.
  void wait(const Event& event) const;
  /// Makes work queued on this stream after this call wait for all work queued on `other`
  /// so far (records an event on `other` and waits for it).
  void wait(const Stream& other) const;
  /// Queues `fn` to run on a driver thread once all earlier work on the stream has finished;
  /// later work waits for it to return (cuLaunchHostFunc). `fn` must not call CUDA (the
  /// driver forbids it and may deadlock); an exception it throws is caught and reported on
  /// stderr, since there is no caller to receive it.
  void launch_host_function(std::function<void()> fn) const;
  /// This stream's priority (cuStreamGetPriority); lower is more urgent.
  int priority() const;
  /// True when the stream does not synchronize with the legacy default stream.
  bool non_blocking() const;

  /// The CUstream as a void* (null for the legacy default stream made by wrap(nullptr); the
  /// special handles 0x1 and 0x2 for legacy_default() and per_thread_default()).
  void* handle() const noexcept { return handle_; }
  /// The device whose context this stream belongs to.
  Device device() const noexcept { return device_; }
  /// True when this Stream created the stream and releases it.
  bool owning() const noexcept { return owning_; }
  /// The CUgreenCtx this stream runs in (see GreenContext::create_stream), or null for a
  /// stream of the device's primary context.
  void* green_context() const noexcept { return green_; }
  /// The CUcontext whose work this is: the green context's (as cuCtxFromGreenCtx gives it)
  /// for a green stream, else the device's primary context.
  void* context() const;

 private:
  friend class GreenContext;
  friend class DeviceMemory;
  friend class StreamScratch;
  friend struct detail::StreamAccess;
  Stream(void* handle, Device device, bool owning) noexcept;
  /// A non-owning copy that shares the owned stream's lifetime (for buffers that free on it).
  Stream share() const noexcept;
  void* handle_ = nullptr;
  Device device_;
  bool owning_ = false;
  void* green_ = nullptr;    ///< CUgreenCtx, or null.
  void* context_ = nullptr;  ///< CUcontext of the green context, or null for the primary one.
  std::shared_ptr<void> keep_;  ///< Destroys the owned stream (and releases a green context).
  /// The temporary memory an owned stream keeps between StreamScratch leases; null for
  /// wrapped and default streams and for share() copies.
  std::shared_ptr<detail::ScratchSlot> scratch_;
};

}  // namespace cutlet
