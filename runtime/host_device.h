// Internal: the CPU device's state, memory and events (see Device::cpu()).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
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

/// A memory pool of the CPU device (where PoolMemoryResource::handle() points): its blocks
/// come from host_allocate, and it keeps the counters a GPU pool reports (reserved is used:
/// freed memory goes back to the host at once).
struct HostPool {
  std::mutex mutex;
  std::size_t used = 0, used_high = 0, release_threshold = 0;
  std::unordered_map<std::uint64_t, std::size_t> sizes;  ///< live blocks
};

/// An event of the CPU device: where Event::handle() points. The CPU device's streams run
/// their work as it is queued, so an event completes when it is recorded.
struct HostEvent {
  bool timing = true;
  bool recorded = false;
  std::chrono::steady_clock::time_point when{};
};

}  // namespace cutlet::detail
