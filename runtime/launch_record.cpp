// The per-stream table of last launches that fault messages name.
#include "launch_record.h"

#include <thread>

namespace cutlet::detail {
namespace {

/// The table's key for a stream: the null handle (the context's default stream) gets a
/// value of its own, since 0 marks a free slot.
std::uintptr_t key_of(CUstream stream) noexcept {
  const auto k = reinterpret_cast<std::uintptr_t>(stream);
  return k == 0 ? ~std::uintptr_t{0} : k;
}

std::size_t home_of(std::uintptr_t key) noexcept {
  std::uint64_t h = key;
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  return static_cast<std::size_t>(h);
}

}  // namespace

void LaunchRecords::record(CUstream stream, const char* kernel,
                           const std::source_location& where) noexcept {
  const std::uintptr_t key = key_of(stream);
  const std::size_t home = home_of(key);
  std::size_t at = kSlots;
  for (std::size_t i = 0; i < kProbe && at == kSlots; ++i) {
    const std::size_t k = (home + i) & (kSlots - 1);
    Slot& s = slots_[k];
    std::uintptr_t cur = s.stream.load(std::memory_order_acquire);
    if (cur == 0 && s.stream.compare_exchange_strong(cur, key, std::memory_order_acq_rel)) cur = key;
    if (cur == key) at = k;
  }
  // All taken by other streams: evict one of them, turn by turn.
  if (at == kSlots) at = (home + (slots_[home & (kSlots - 1)].seq.load(std::memory_order_relaxed) >> 1)) & (kSlots - 1);
  Slot& target = slots_[at];
  std::uint32_t seq = target.seq.load(std::memory_order_relaxed);
  if ((seq & 1) != 0 ||
      !target.seq.compare_exchange_strong(seq, seq + 1, std::memory_order_acquire, std::memory_order_relaxed))
    return;  // another thread is writing this slot: its record stands
  std::atomic_thread_fence(std::memory_order_release);  // readers see the odd count before the fields change
  target.stream.store(key, std::memory_order_relaxed);  // an evicted slot changes hands here
  target.kernel.store(kernel, std::memory_order_relaxed);
  target.file.store(where.file_name(), std::memory_order_relaxed);
  target.line.store(where.line(), std::memory_order_relaxed);
  target.seq.store(seq + 2, std::memory_order_release);
  last_.store(at, std::memory_order_relaxed);
}

LaunchSite LaunchRecords::read(const Slot& s, std::uintptr_t* key) noexcept {
  for (;;) {
    const std::uint32_t before = s.seq.load(std::memory_order_acquire);
    if (before & 1) {
      std::this_thread::yield();
      continue;
    }
    LaunchSite site;
    *key = s.stream.load(std::memory_order_relaxed);
    site.kernel = s.kernel.load(std::memory_order_relaxed);
    site.file = s.file.load(std::memory_order_relaxed);
    site.line = s.line.load(std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_acquire);
    if (s.seq.load(std::memory_order_relaxed) == before) return site;
  }
}

LaunchSite LaunchRecords::on(CUstream stream) const noexcept {
  const std::uintptr_t key = key_of(stream);
  const std::size_t home = home_of(key);
  for (std::size_t i = 0; i < kProbe; ++i) {
    std::uintptr_t found = 0;
    const LaunchSite site = read(slots_[(home + i) & (kSlots - 1)], &found);
    if (found == key && site) return site;
  }
  return {};
}

LaunchSite LaunchRecords::latest() const noexcept {
  const std::size_t at = last_.load(std::memory_order_relaxed);
  if (at >= kSlots) return {};
  std::uintptr_t key = 0;
  const LaunchSite site = read(slots_[at], &key);
  return key != 0 ? site : LaunchSite{};
}

void LaunchRecords::clear() noexcept {
  for (Slot& s : slots_) {
    std::uint32_t seq = s.seq.load(std::memory_order_relaxed);
    while ((seq & 1) != 0 ||
           !s.seq.compare_exchange_weak(seq, seq + 1, std::memory_order_acquire, std::memory_order_relaxed))
      seq = s.seq.load(std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_release);
    s.kernel.store(nullptr, std::memory_order_relaxed);
    s.file.store(nullptr, std::memory_order_relaxed);
    s.line.store(0, std::memory_order_relaxed);
    s.stream.store(0, std::memory_order_relaxed);
    s.seq.store(seq + 2, std::memory_order_release);
  }
  last_.store(kSlots, std::memory_order_relaxed);
}

}  // namespace cutlet::detail
