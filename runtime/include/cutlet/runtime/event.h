// A CUDA event: a marker recorded on a stream, for waiting and for timing.
#pragma once

#include <chrono>
#include <cstdint>

#include "cutlet/runtime/device.h"

namespace cutlet {

class Stream;

/// A point in a stream's work, recorded with record(). Move-only; the destructor destroys
/// the event. Timing events measure the GPU time between two records (elapsed_ms).
class Event {
 public:
  /// A new event on `device` (default: Device::current()); `timing` false makes a lighter
  /// event that cannot be used with elapsed_ms. Throws NoDriverError without a driver.
  explicit Event(Device device = Device::current(), bool timing = true);

  /// Takes over `other`, which is left empty (a null handle; using it throws Error).
  Event(Event&& other) noexcept;
  /// Destroys this event, then takes over `other` as above.
  Event& operator=(Event&& other) noexcept;
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  /// Destroys the event. Never throws.
  ~Event();

  /// Captures the work queued on `stream` so far; the event completes when that work has.
  /// Recording again moves the marker. Throws Error when `stream` is of another device.
  void record(const Stream& stream);
  /// Waits until the work captured by the last record() has finished (returns at once if
  /// never recorded). Throws what failed in that work: on a GPU the context's kernel fault
  /// (ContextFaultError); on the CPU device the KernelError of a kernel before the record
  /// that its stream's synchronize() had not reported yet.
  void synchronize() const;
  /// True when the captured work has finished (or the event was never recorded); throws what
  /// failed in it as synchronize() does.
  bool query() const;
  /// Waits until the captured work has finished, as synchronize() does, but for at most
  /// `timeout`, polling query() with short sleeps (so a hung kernel cannot block the caller):
  /// true when it finished, false when the time ran out first (the work goes on). Errors of
  /// the work throw as in synchronize(). A timeout of zero or less only queries.
  bool synchronize_for(std::chrono::nanoseconds timeout) const;
  /// Milliseconds of GPU time from `start` to `end` (about 0.5 us resolution). Both must be
  /// timing events of one device, recorded and complete (synchronize `end` first);
  /// otherwise throws CudaError (CUDA_ERROR_NOT_READY while `end` is pending).
  static float elapsed_ms(const Event& start, const Event& end);

  /// The CUevent as a void*; null after a move.
  void* handle() const noexcept { return handle_; }
  /// The device this event belongs to.
  Device device() const noexcept { return device_; }

 private:
  void* require(const char* op) const;
  [[noreturn]] void fail(int result, const char* call) const;
  void* handle_ = nullptr;
  Device device_;
  void* stream_ = nullptr;       ///< The CUstream of the last record(), for fault messages.
  bool green_ = false;           ///< That stream is of a green context.
  std::uint64_t generation_ = 0;  ///< Device::generation() when the event was created.
};

}  // namespace cutlet
