// The CPU device: its entry of the device table, its memory, the CUTLET_DEVICE switch.
#include "host_device.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <iterator>
#include <map>
#include <mutex>
#include <thread>
#include <unordered_map>

#include "cutlet/error.h"
#include "cutlet/runtime/host_allocations.h"
#include "allocation_error.h"
#include "device_state.h"
#include "host_queue.h"

namespace cutlet {
namespace detail {
namespace {

std::size_t physical_memory() {
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? static_cast<std::size_t>(pages) * static_cast<std::size_t>(page) : 0;
}

/// The host's last-level cache (L3, else L2): what plays the GPU's L2 for data sizing.
std::size_t host_cache_bytes() {
  for (int level : {_SC_LEVEL3_CACHE_SIZE, _SC_LEVEL2_CACHE_SIZE}) {
    const long bytes = ::sysconf(level);
    if (bytes > 0) return static_cast<std::size_t>(bytes);
  }
  return 0;
}

void fill_cpu_state(DeviceState& s) {
  const int threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  s.cpu = true;
  s.name = "CPU (" + std::to_string(threads) + " hardware threads)";
  s.label = "the CPU device";
  s.total_memory = physical_memory();
  DeviceLimits& l = s.limits;
  l.max_threads_per_block = 1024;
  l.max_block[0] = 1024;
  l.max_block[1] = 1024;
  l.max_block[2] = 64;
  l.max_grid[0] = 2147483647;
  l.max_grid[1] = 65535;
  l.max_grid[2] = 65535;
  l.max_shared_per_block = 48 * 1024;
  l.max_shared_per_block_optin = 227 * 1024;
  l.warp_size = 32;
  l.sm_count = threads;
  l.sm = 0;
  l.cooperative_launch = true;  // every block of the grid resident at once, as fibers
  DeviceProperties& p = s.props;
  p.name = s.name;
  p.sm_count = threads;
  p.warp_size = 32;
  p.max_threads_per_block = l.max_threads_per_block;
  // Each hardware thread keeps up to 1024 threads of a cooperative grid resident, each a fiber
  // with a stack of its own (occupancy.h): 16384 in all where that leaves 512 per hardware
  // thread (a stack and its guard page take two of Linux's memory mappings, of which
  // vm.max_map_count allows 65530 by default).
  p.max_threads_per_sm = std::clamp(16384 / threads / 32 * 32, 512, 1024);
  p.max_blocks_per_sm = 32;
  p.shared_per_block = l.max_shared_per_block;
  p.shared_per_block_optin = l.max_shared_per_block_optin;
  p.shared_per_sm = 228 * 1024;
  p.total_memory = s.total_memory;
  p.unified_addressing = true;
  p.cooperative_launch = true;
  p.integrated = true;
  // Host memory is all the CPU device has: every kind of allocation is host memory that kernels
  // and the host share, and its pools (host_pool.cpp) behave as the driver's.
  p.managed_memory = true;
  p.concurrent_managed_access = true;
  p.memory_pools = true;
  p.can_map_host_memory = true;
  p.l2_cache_bytes = host_cache_bytes();
}

}  // namespace

int cpu_attribute(int attribute) {
  const DeviceState& s = cpu_device_state();
  const DeviceLimits& l = s.limits;
  const DeviceProperties& p = s.props;
  switch (static_cast<CUdevice_attribute>(attribute)) {
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK: return l.max_threads_per_block;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X: return l.max_block[0];
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y: return l.max_block[1];
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z: return l.max_block[2];
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X: return l.max_grid[0];
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y: return l.max_grid[1];
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z: return l.max_grid[2];
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK: return static_cast<int>(l.max_shared_per_block);
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN: return static_cast<int>(l.max_shared_per_block_optin);
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR: return static_cast<int>(p.shared_per_sm);
    case CU_DEVICE_ATTRIBUTE_WARP_SIZE: return l.warp_size;
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: return l.sm_count;
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR: return p.max_threads_per_sm;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR: return p.max_blocks_per_sm;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: return s.cc.major;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: return s.cc.minor;
    case CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH: return l.cooperative_launch ? 1 : 0;
    case CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH: return l.cluster_launch ? 1 : 0;
    case CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING: return p.unified_addressing ? 1 : 0;
    case CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY: return p.managed_memory ? 1 : 0;
    case CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS: return p.concurrent_managed_access ? 1 : 0;
    case CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED: return p.memory_pools ? 1 : 0;
    case CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY: return p.can_map_host_memory ? 1 : 0;
    case CU_DEVICE_ATTRIBUTE_STREAM_PRIORITIES_SUPPORTED: return p.stream_priorities ? 1 : 0;
    case CU_DEVICE_ATTRIBUTE_INTEGRATED: return p.integrated ? 1 : 0;
    case CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE: return static_cast<int>(p.l2_cache_bytes);
    case CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT: return p.async_engine_count;
    default: break;
  }
  throw Error("Device::attribute: the CPU device does not model CUDA device attribute " + std::to_string(attribute) +
              " (it models the block, grid and shared-memory limits, warp size, SM count, residency, launch kinds and "
              "memory features); read Device::properties() instead");
}

DeviceState& cpu_device_state() {
  // Never destroyed, as the GPUs' table is not.
  static DeviceState* state = [] {
    auto* s = new DeviceState;
    fill_cpu_state(*s);
    s->ready.store(true, std::memory_order_release);
    return s;
  }();
  return *state;
}

namespace {

/// The live allocations of host_allocate, by address (for checked kernels and pointer_info).
struct Allocations {
  std::mutex mutex;
  std::map<std::uint64_t, std::size_t> sizes;
  std::unordered_map<std::uint64_t, MemoryKind> kinds;  ///< the pinned and managed ones
};
Allocations& allocations() {
  static auto* a = new Allocations;  // never destroyed: frees may come late in exit
  return *a;
}

}  // namespace

std::uint64_t host_try_allocate(std::size_t bytes, MemoryKind kind) noexcept {
  // More than the host has is refused, as a GPU refuses more than its memory, also where the
  // kernel would overcommit it (and end the process when the pages are touched).
  static const std::size_t physical = physical_memory();
  if (physical > 0 && bytes > physical) return 0;
  const std::size_t rounded = (bytes + kHostAllocationAlign - 1) / kHostAllocationAlign * kHostAllocationAlign;
  void* p = rounded >= bytes ? std::aligned_alloc(kHostAllocationAlign, rounded) : nullptr;
  if (!p) return 0;
  const auto address = reinterpret_cast<std::uint64_t>(p);
  try {
    Allocations& a = allocations();
    std::lock_guard<std::mutex> lock(a.mutex);
    a.sizes[address] = bytes;
    if (kind != MemoryKind::device) a.kinds[address] = kind;
  } catch (...) {
    std::free(p);
    return 0;
  }
  return address;
}

std::uint64_t host_allocate(std::size_t bytes, const std::string& what, MemoryKind kind) {
  const std::uint64_t address = host_try_allocate(bytes, kind);
  if (address == 0) throw_host_allocation_error("host allocation (" + std::to_string(bytes) + " bytes)", bytes, what);
  return address;
}

void host_free(std::uint64_t address) noexcept {
  {
    Allocations& a = allocations();
    std::lock_guard<std::mutex> lock(a.mutex);
    a.sizes.erase(address);
    a.kinds.erase(address);
  }
  std::free(reinterpret_cast<void*>(address));
}

std::optional<MemoryKind> host_allocation_kind(std::uint64_t address) noexcept {
  Allocations& a = allocations();
  std::lock_guard<std::mutex> lock(a.mutex);
  auto above = a.sizes.upper_bound(address);
  if (above == a.sizes.begin()) return std::nullopt;
  const auto holder = std::prev(above);
  if (address >= holder->first + std::max<std::size_t>(holder->second, 1)) return std::nullopt;
  const auto kind = a.kinds.find(holder->first);
  return kind == a.kinds.end() ? MemoryKind::device : kind->second;
}

void host_note_size(std::uint64_t address, std::size_t bytes) noexcept {
  Allocations& a = allocations();
  std::lock_guard<std::mutex> lock(a.mutex);
  if (auto it = a.sizes.find(address); it != a.sizes.end()) it->second = bytes;
}

void host_free_after_work(std::uint64_t address) noexcept {
  synchronize_host_queues();
  host_free(address);
}

}  // namespace detail

HostAllocationsAround host_allocations_around(std::uint64_t address) {
  detail::Allocations& a = detail::allocations();
  std::lock_guard<std::mutex> lock(a.mutex);
  HostAllocationsAround r;
  auto above = a.sizes.upper_bound(address);
  if (above != a.sizes.end()) r.above = HostAllocation{above->first, above->second};
  if (above != a.sizes.begin()) {
    auto below = std::prev(above);
    const HostAllocation b{below->first, below->second};
    if (address < b.address + b.bytes) r.holder = b;
    else r.below = b;
  }
  return r;
}

HostAllocationTotals host_allocation_totals() {
  detail::Allocations& a = detail::allocations();
  std::lock_guard<std::mutex> lock(a.mutex);
  HostAllocationTotals t;
  t.count = a.sizes.size();
  for (const auto& [address, bytes] : a.sizes) t.bytes += bytes;
  return t;
}

bool Device::cpu_selected() {
  static const int selected = [] {
    const char* v = std::getenv("CUTLET_DEVICE");
    const std::string s = v ? v : "";
    if (s == "cpu" || s == "CPU") return 1;
    if (s.empty() || s == "gpu" || s == "cuda" || s == "GPU" || s == "CUDA") return 0;
    return -1;
  }();
  if (selected < 0)
    throw Error(std::string("CUTLET_DEVICE is '") + std::getenv("CUTLET_DEVICE") +
                "'; set it to 'cpu' to run kernels on the CPU device, or to 'gpu' (or leave it unset) for CUDA devices");
  return selected == 1;
}

}  // namespace cutlet
