// Internal: the CPU device's state, memory and events (see Device::cpu()).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

namespace cutlet::detail {

struct DeviceState;

/// The CPU device's entry of the device table: filled on first use from the host (hardware
/// threads, memory), with the launch limits of a GPU so that kernels sized for one run.
DeviceState& cpu_device_state();

/// `bytes` bytes of host memory for the CPU device, 256-byte aligned as cuMemAlloc's are.
/// Throws Error naming the size when the host has no such memory.
std::uint64_t host_allocate(std::size_t bytes, const std::string& what);
/// Frees memory from host_allocate.
void host_free(std::uint64_t address) noexcept;
/// Frees memory from host_allocate once the CPU device's work queued so far, which may still
/// use it, has run (as cuMemFree waits for the GPU): the free of memory that is not
/// stream-ordered.
void host_free_after_work(std::uint64_t address) noexcept;

/// A memory pool of the CPU device (where PoolMemoryResource::handle() points): its blocks
/// come from host_allocate, and it keeps the counters a GPU pool reports (reserved is used:
/// freed memory goes back to the host at once).
struct HostPool {
  std::mutex mutex;
  std::size_t used = 0, used_high = 0, release_threshold = 0;
  std::unordered_map<std::uint64_t, std::size_t> sizes;  ///< live blocks
};

/// An event of the CPU device (Event::handle() points to a std::shared_ptr<HostEvent>, which
/// the operations its records and waits queue share): record() numbers each record, and its
/// queue marks that number complete when it reaches it.
struct HostEvent {
  bool timing = true;
  std::mutex mutex;
  std::condition_variable done;
  std::uint64_t recorded = 0;   ///< records so far
  std::uint64_t completed = 0;  ///< the last record its stream reached
  std::chrono::steady_clock::time_point when{};  ///< when that was

  /// The number of the latest record (0 before the first).
  std::uint64_t last_record() {
    std::lock_guard lock(mutex);
    return recorded;
  }
  /// Record `seq` was reached.
  void complete(std::uint64_t seq) {
    {
      std::lock_guard lock(mutex);
      if (seq > completed) {
        completed = seq;
        when = std::chrono::steady_clock::now();
      }
    }
    done.notify_all();
  }
  /// Waits until record `seq` has been reached.
  void wait(std::uint64_t seq) {
    std::unique_lock lock(mutex);
    done.wait(lock, [&] { return completed >= seq; });
  }
};

/// The HostEvent behind the handle of an Event of the CPU device.
inline const std::shared_ptr<HostEvent>& host_event(void* handle) {
  return *static_cast<const std::shared_ptr<HostEvent>*>(handle);
}

}  // namespace cutlet::detail
