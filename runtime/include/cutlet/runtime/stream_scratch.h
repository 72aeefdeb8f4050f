// Temporary device memory for the work of one call on one stream, kept by an owned stream
// from call to call so that a library call's temporaries cost no allocation.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "cutlet/runtime/buffer.h"
#include "cutlet/runtime/stream.h"

namespace cutlet {

/// At least the asked-for bytes of device memory (256-byte aligned, contents undefined) for
/// work queued on one stream while this object lives: what a library call (cutlet's
/// algorithms) needs for its temporaries. Move-only.
///
/// A stream cutlet created (Stream(device), GreenContext::create_stream) keeps one block
/// between leases: a lease of at most kMaxKeptBytes takes it when it is large enough, without
/// calling any allocator, and gives it back when destroyed; otherwise (the first lease, a
/// block too small, or one another lease holds: a nested call, another thread's call on the
/// same stream) the lease gets a new block of the next power of two of at least 64 KiB. Of
/// two blocks the larger is kept, the other freed on the stream. The kept block counts as
/// used memory of the device's default pool until trim() or the Stream's release frees it (on
/// the stream), so each such stream holds at most kMaxKeptBytes. For a wrapped stream, the
/// default streams (Stream::legacy_default, Stream::per_thread_default), a stream being
/// captured into a graph (the graph gets its own allocation, as cuMemAllocAsync gives it
/// during capture) and a lease of more than kMaxKeptBytes, the memory comes from the device's
/// default memory pool, stream-ordered, and is freed on the stream when this object is
/// destroyed.
///
/// Only work queued on `stream` may use the memory, and only work queued while this object
/// lives: a later lease on the same stream may hand the same memory to the next call, which
/// the stream runs after this one's work. A lease taken before a capture begins must not be
/// used by the captured work (the graph could run beside later calls that get the same
/// block): take it inside the capture.
class StreamScratch {
 public:
  /// The largest lease a stream keeps its block for (4 MiB).
  static constexpr std::size_t kMaxKeptBytes = std::size_t{4} << 20;

  /// No memory.
  StreamScratch() noexcept = default;
  /// At least `bytes` bytes for work queued on `stream` (empty memory for 0). Throws what
  /// DeviceMemory(bytes, stream) throws when an allocation is needed and fails, and CudaError
  /// (ContextFaultError for a faulted context) when the driver cannot tell whether the
  /// stream is being captured.
  StreamScratch(std::size_t bytes, const Stream& stream);
  /// Takes over `other`'s memory; `other` is left empty.
  StreamScratch(StreamScratch&& other) noexcept = default;
  StreamScratch& operator=(StreamScratch&&) = delete;
  StreamScratch(const StreamScratch&) = delete;
  StreamScratch& operator=(const StreamScratch&) = delete;
  /// Gives the memory back to its stream's kept block, or frees it on the stream. Never throws.
  ~StreamScratch();

  /// The device address of the first byte; 0 when empty.
  std::uint64_t address() const noexcept { return memory_.address(); }
  /// The size of the memory: at least the bytes asked for (a kept block may be larger).
  std::size_t bytes() const noexcept { return memory_.bytes(); }
  /// True when the memory goes back to the stream on destruction (kept there if it is the
  /// larger block, see above), false when it is freed then (or is empty).
  bool kept() const noexcept { return slot_ != nullptr; }

  /// Frees the block `stream` keeps, on the stream (nothing for a stream that keeps none). A
  /// lease holding it now gives it back when done, as usual.
  static void trim(const Stream& stream);

 private:
  DeviceMemory memory_;
  std::shared_ptr<detail::ScratchSlot> slot_;  ///< Where memory_ goes back; null: freed instead.
};

}  // namespace cutlet
