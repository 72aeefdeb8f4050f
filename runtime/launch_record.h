// Internal: the last kernel launched on each stream of a device, for fault messages.
#pragma once

#include <cuda.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <source_location>

namespace cutlet::detail {

/// One launch: the kernel's name and the line that launched it (all in static storage).
struct LaunchSite {
  const char* kernel = nullptr;  ///< null when nothing is known
  const char* file = nullptr;
  unsigned line = 0;
  explicit operator bool() const noexcept { return kernel != nullptr; }
};

/// The last launch on each stream of one device, in a small fixed table: recording costs a
/// few atomic operations (no clock, no allocation) and never waits for another thread (a
/// record whose slot another thread is writing is dropped); reading (only when an error is
/// being reported) is lock-free. A stream whose slots are taken by others evicts a record near
/// its hash, so a lookup may answer "unknown" but never another stream's launch.
class LaunchRecords {
 public:
  /// Records that `kernel` (a string in static storage) was launched at `where` on `stream`.
  void record(CUstream stream, const char* kernel, const std::source_location& where) noexcept;
  /// The last launch recorded on `stream`; empty when none is known.
  LaunchSite on(CUstream stream) const noexcept;
  /// The most recent launch recorded on any stream; empty when none.
  LaunchSite latest() const noexcept;
  /// Forgets every record (after the context they refer to is gone).
  void clear() noexcept;

 private:
  static constexpr std::size_t kSlots = 128;  ///< a power of two
  static constexpr std::size_t kProbe = 8;
  struct alignas(64) Slot {  // one cache line each: streams of different threads do not share
    std::atomic<std::uintptr_t> stream{0};  ///< the key; 0: free
    std::atomic<std::uint32_t> seq{0};      ///< odd while a writer holds the slot
    std::atomic<const char*> kernel{nullptr};
    std::atomic<const char*> file{nullptr};
    std::atomic<unsigned> line{0};
  };
  static LaunchSite read(const Slot& slot, std::uintptr_t* key) noexcept;
  Slot slots_[kSlots];
  std::atomic<std::size_t> last_{kSlots};  ///< the slot written last (kSlots: none)
};

}  // namespace cutlet::detail
