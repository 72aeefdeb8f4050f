// Internal: the CPU device's state, memory and events (see Device::cpu()).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>

#include "cutlet/runtime/memory_pool.h"
#include "cutlet/runtime/memory_resource.h"

namespace cutlet::detail {

struct DeviceState;

/// The CPU device's entry of the device table: filled on first use from the host (hardware
/// threads, memory), with the launch limits of a GPU so that kernels sized for one run.
DeviceState& cpu_device_state();
/// The CPU device's value of the CUdevice_attribute `attribute`, for the attributes its
/// limits and properties model (block, grid and shared-memory limits, warp size, SM count,
/// residency, cooperative and cluster launch, memory features). Throws Error naming the
/// attribute for the others.
int cpu_attribute(int attribute);

/// The alignment, and the granularity, of host_allocate's memory (as cuMemAlloc's).
inline constexpr std::size_t kHostAllocationAlign = 256;

/// `bytes` bytes of host memory for the CPU device, 256-byte aligned as cuMemAlloc's are.
/// Throws CudaError (CUDA_ERROR_OUT_OF_MEMORY) naming the size, `what` was asked and the
/// host's free memory when the host has no such memory.
/// `kind` is the kind of memory it stands for (pointer_info reports it).
std::uint64_t host_allocate(std::size_t bytes, const std::string& what, MemoryKind kind = MemoryKind::device);
/// As host_allocate, but 0 when the host has no such memory: more than its physical memory
/// is refused even where the OS would overcommit it.
std::uint64_t host_try_allocate(std::size_t bytes, MemoryKind kind = MemoryKind::device) noexcept;
/// The kind of the live allocation of host_allocate that holds `address`, if one does.
std::optional<MemoryKind> host_allocation_kind(std::uint64_t address) noexcept;
/// Frees memory from host_allocate.
void host_free(std::uint64_t address) noexcept;
/// Frees memory from host_allocate once the CPU device's work queued so far, which may still
/// use it, has run (as cuMemFree waits for the GPU): the free of memory that is not
/// stream-ordered.
void host_free_after_work(std::uint64_t address) noexcept;

/// Records that the allocation of host_allocate at `address` now serves `bytes` (a pool's
/// block reused for a smaller request): checked kernels see those bounds.
void host_note_size(std::uint64_t address, std::size_t bytes) noexcept;

/// A memory pool of the CPU device (PoolMemoryResource::handle() points to a
/// std::shared_ptr of it), as the
/// driver's pools behave: its blocks come from host_allocate; a freed block is kept for later
/// allocations once its stream reaches the free, while the pool reserves at most
/// release_threshold bytes; and it keeps the counters a GPU pool reports. Thread-safe.
class HostPool {
 public:
  explicit HostPool(std::size_t release_threshold) : release_threshold_(release_threshold) {}
  ~HostPool();
  HostPool(const HostPool&) = delete;
  HostPool& operator=(const HostPool&) = delete;

  /// A block of at least `bytes`: a kept one of at most twice the size, else a new one.
  /// Throws CudaError (CUDA_ERROR_OUT_OF_MEMORY) naming the request, the pool (`what`) and
  /// the host's free memory when the host has none.
  std::uint64_t allocate(std::size_t bytes, const std::string& what);
  /// Whether `address` is a live block of this pool.
  bool owns(std::uint64_t address);
  /// Block `address` is free (its stream reached the free): kept, or given back to the host
  /// past the threshold.
  void release(std::uint64_t address) noexcept;
  /// Gives kept blocks back (the largest first) until at most `keep` bytes are reserved.
  void trim_to(std::size_t keep) noexcept;

  /// Its counters, read at once.
  PoolUsage usage() const;
  std::size_t release_threshold() const;
  void set_release_threshold(std::size_t bytes);
  /// The high-water marks start again from the current use.
  void reset_peaks();

 private:
  /// Hands out `address`, a block of `size` bytes (the lock held).
  std::uint64_t hand_out_locked(std::uint64_t address, std::size_t size);
  void trim_locked(std::size_t keep) noexcept;
  mutable std::mutex mutex_;
  std::size_t used_ = 0, used_high_ = 0, reserved_ = 0, reserved_high_ = 0, release_threshold_;
  std::unordered_map<std::uint64_t, std::size_t> live_;  ///< block -> its size
  std::multimap<std::size_t, std::uint64_t> kept_;       ///< freed blocks by size
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
  /// The error of the stream's work before that record, not yet reported by the stream's
  /// synchronize() when the stream reached it: what synchronizing the event reports.
  std::exception_ptr failed;

  /// The number of the latest record (0 before the first).
  std::uint64_t last_record() {
    std::lock_guard lock(mutex);
    return recorded;
  }
  /// Record `seq` was reached, with `error` pending on its stream.
  void complete(std::uint64_t seq, std::exception_ptr error) {
    {
      std::lock_guard lock(mutex);
      if (seq > completed) {
        completed = seq;
        when = std::chrono::steady_clock::now();
        failed = std::move(error);
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
