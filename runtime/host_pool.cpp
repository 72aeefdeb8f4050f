// The CPU device's memory pools (HostPool): freed blocks kept up to a release threshold.
#include <algorithm>
#include <iterator>

#include "allocation_error.h"
#include "host_device.h"

namespace cutlet::detail {
namespace {

std::size_t rounded(std::size_t bytes) {
  return (bytes + kHostAllocationAlign - 1) / kHostAllocationAlign * kHostAllocationAlign;
}

}  // namespace

HostPool::~HostPool() { trim_to(0); }

std::uint64_t HostPool::allocate(std::size_t bytes, const std::string& what) {
  const std::size_t size = rounded(bytes);
  {
    std::lock_guard lock(mutex_);
    auto it = size >= bytes ? kept_.lower_bound(size) : kept_.end();
    if (it != kept_.end() && it->first <= 2 * size) {
      const auto [block_size, address] = *it;
      kept_.erase(it);
      host_note_size(address, bytes);
      return hand_out_locked(address, block_size);
    }
  }
  const std::uint64_t address = host_try_allocate(bytes);
  std::lock_guard lock(mutex_);
  if (address == 0)
    throw_host_allocation_error("host allocation (" + std::to_string(bytes) + " bytes) from a pool", bytes, what,
                                "the pool holds " + std::to_string(reserved_) + " bytes reserved, " +
                                    std::to_string(used_) + " of them in use");
  reserved_ += size;
  reserved_high_ = std::max(reserved_high_, reserved_);
  return hand_out_locked(address, size);
}

std::uint64_t HostPool::hand_out_locked(std::uint64_t address, std::size_t size) {
  live_.emplace(address, size);
  used_ += size;
  used_high_ = std::max(used_high_, used_);
  return address;
}

bool HostPool::owns(std::uint64_t address) {
  std::lock_guard lock(mutex_);
  return live_.count(address) != 0;
}

void HostPool::release(std::uint64_t address) noexcept {
  std::lock_guard lock(mutex_);
  auto it = live_.find(address);
  if (it == live_.end()) return;
  used_ -= it->second;
  try {
    kept_.emplace(it->second, address);
  } catch (...) {  // no memory to keep it: give it back
    reserved_ -= it->second;
    host_free(address);
  }
  live_.erase(it);
  trim_locked(release_threshold_);
}

void HostPool::trim_to(std::size_t keep) noexcept {
  std::lock_guard lock(mutex_);
  trim_locked(keep);
}

void HostPool::trim_locked(std::size_t keep) noexcept {
  while (reserved_ > keep && !kept_.empty()) {
    auto largest = std::prev(kept_.end());
    reserved_ -= largest->first;
    host_free(largest->second);
    kept_.erase(largest);
  }
}

PoolUsage HostPool::usage() const {
  std::lock_guard lock(mutex_);
  return {reserved_, reserved_high_, used_, used_high_};
}

std::size_t HostPool::release_threshold() const {
  std::lock_guard lock(mutex_);
  return release_threshold_;
}

void HostPool::set_release_threshold(std::size_t bytes) {
  std::lock_guard lock(mutex_);
  release_threshold_ = bytes;
}

void HostPool::reset_peaks() {
  std::lock_guard lock(mutex_);
  used_high_ = used_;
  reserved_high_ = reserved_;
}

}  // namespace cutlet::detail
