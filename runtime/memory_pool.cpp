// Stream-ordered memory pools: creation, attributes, peer access, allocation and free.
#include "cutlet/runtime/memory_pool.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <mutex>
#include <vector>

#include "allocation_error.h"
#include "cutlet/runtime/stream.h"
#include "device_state.h"
#include "host_queue.h"

namespace cutlet {
namespace {

std::size_t get_attribute(CUmemoryPool pool, CUmemPool_attribute attr, const char* what) {
  cuuint64_t value = 0;
  CUresult r = detail::driver().cuMemPoolGetAttribute(pool, attr, &value);
  if (r != CUDA_SUCCESS) detail::throw_cuda_error(r, std::string("cuMemPoolGetAttribute(") + what + ")");
  return static_cast<std::size_t>(value);
}

void set_attribute(CUmemoryPool pool, CUmemPool_attribute attr, std::size_t v, const char* what) {
  cuuint64_t value = v;
  CUresult r = detail::driver().cuMemPoolSetAttribute(pool, attr, &value);
  if (r != CUDA_SUCCESS) detail::throw_cuda_error(r, std::string("cuMemPoolSetAttribute(") + what + ")");
}

/// The CPU device's pool behind a PoolMemoryResource's handle (a std::shared_ptr<HostPool>,
/// which stream-ordered frees share until their stream reaches them).
detail::HostPool* host_pool(void* handle) { return static_cast<std::shared_ptr<detail::HostPool>*>(handle)->get(); }

void require_pools(const detail::DeviceState& s) {
  if (!s.props.memory_pools)
    throw Error("PoolMemoryResource: " + s.label +
                " does not support stream-ordered memory pools (CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_"
                "SUPPORTED is 0); use DeviceMemoryResource instead");
}

}  // namespace

PoolMemoryResource::PoolMemoryResource(Device device, PoolOptions options)
    : MemoryResource(device) {
  if (device.is_cpu()) {
    pool_ = new std::shared_ptr<detail::HostPool>(std::make_shared<detail::HostPool>(options.release_threshold));
    owning_ = true;
    return;
  }
  const detail::DeviceState& s = detail::device_state(device.ordinal());
  require_pools(s);
  detail::ensure_current(s);
  CUmemPoolProps props = {};
  props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
  props.handleTypes = CU_MEM_HANDLE_TYPE_NONE;
  props.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  props.location.id = device.ordinal();
  props.maxSize = options.max_size;
  CUmemoryPool pool = nullptr;
  CUresult r = detail::driver().cuMemPoolCreate(&pool, &props);
  if (r != CUDA_SUCCESS) detail::throw_cuda_error(r, "cuMemPoolCreate(" + s.label + ")");
  pool_ = pool;
  owning_ = true;
  try {
    set_release_threshold(options.release_threshold);
  } catch (...) {
    detail::driver().cuMemPoolDestroy(pool);
    throw;
  }
}

PoolMemoryResource::PoolMemoryResource(Device device, void* pool, Default) noexcept
    : MemoryResource(device), pool_(pool), owning_(false) {}

const std::shared_ptr<PoolMemoryResource>& PoolMemoryResource::device_default(Device device) {
  static std::mutex mu;
  // Never destroyed: buffers freed during exit may still reach their pool.
  static auto* table = new std::vector<std::shared_ptr<PoolMemoryResource>>();
  std::lock_guard lock(mu);
  if (device.is_cpu()) {
    static auto* cpu = new std::shared_ptr<PoolMemoryResource>(new PoolMemoryResource(
        device,
        new std::shared_ptr<detail::HostPool>(std::make_shared<detail::HostPool>(std::numeric_limits<std::size_t>::max())),
        Default{}));
    return *cpu;
  }
  if (table->empty()) table->resize(static_cast<std::size_t>(Device::count()));
  auto& slot = (*table)[static_cast<std::size_t>(device.ordinal())];
  if (!slot) {
    const detail::DeviceState& s = detail::device_state(device.ordinal());
    require_pools(s);
    CUmemoryPool pool = nullptr;
    CUresult r = detail::driver().cuDeviceGetDefaultMemPool(&pool, s.handle);
    if (r != CUDA_SUCCESS) detail::throw_cuda_error(r, "cuDeviceGetDefaultMemPool(" + s.label + ")");
    // The driver's default threshold, 0, returns every freed byte at the next synchronization,
    // so that a loop of allocate, free and synchronize maps and unmaps memory each time (an
    // algorithm's temporary storage, say). Unless someone chose a threshold, keep it all.
    if (get_attribute(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, "RELEASE_THRESHOLD") == 0)
      set_attribute(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, std::numeric_limits<std::size_t>::max(),
                    "RELEASE_THRESHOLD");
    slot = std::shared_ptr<PoolMemoryResource>(new PoolMemoryResource(device, pool, Default{}));
  }
  return slot;
}

PoolMemoryResource::~PoolMemoryResource() {
  if (!owning_ || !pool_) return;
  if (device().is_cpu()) {
    delete static_cast<std::shared_ptr<detail::HostPool>*>(pool_);  // the last queued free may outlive it
    return;
  }
  if (const detail::DriverApi* api = detail::g_driver_api.load(std::memory_order_acquire))
    api->cuMemPoolDestroy(static_cast<CUmemoryPool>(pool_));  // errors (e.g. at exit) ignored
}

std::string PoolMemoryResource::describe() const {
  return std::string(owning_ ? "a memory pool" : "the default memory pool") + " of " +
         detail::device_label(device().ordinal());
}

PoolUsage PoolMemoryResource::usage() const {
  if (device().is_cpu()) {
    return host_pool(pool_)->usage();
  }
  auto pool = static_cast<CUmemoryPool>(pool_);
  PoolUsage u;
  u.reserved = get_attribute(pool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT, "RESERVED_MEM_CURRENT");
  u.reserved_high = get_attribute(pool, CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH, "RESERVED_MEM_HIGH");
  u.used = get_attribute(pool, CU_MEMPOOL_ATTR_USED_MEM_CURRENT, "USED_MEM_CURRENT");
  u.used_high = get_attribute(pool, CU_MEMPOOL_ATTR_USED_MEM_HIGH, "USED_MEM_HIGH");
  return u;
}

void PoolMemoryResource::reset_peaks() {
  if (device().is_cpu()) {
    host_pool(pool_)->reset_peaks();
    return;
  }
  auto pool = static_cast<CUmemoryPool>(pool_);
  set_attribute(pool, CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH, 0, "RESERVED_MEM_HIGH");
  set_attribute(pool, CU_MEMPOOL_ATTR_USED_MEM_HIGH, 0, "USED_MEM_HIGH");
}

void PoolMemoryResource::set_release_threshold(std::size_t bytes) {
  if (device().is_cpu()) {
    host_pool(pool_)->set_release_threshold(bytes);
    return;
  }
  set_attribute(static_cast<CUmemoryPool>(pool_), CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, bytes,
                "RELEASE_THRESHOLD");
}

std::size_t PoolMemoryResource::release_threshold() const {
  if (device().is_cpu()) {
    return host_pool(pool_)->release_threshold();
  }
  return get_attribute(static_cast<CUmemoryPool>(pool_), CU_MEMPOOL_ATTR_RELEASE_THRESHOLD,
                       "RELEASE_THRESHOLD");
}

void PoolMemoryResource::trim_to(std::size_t keep_bytes) {
  if (device().is_cpu()) return host_pool(pool_)->trim_to(keep_bytes);
  CUresult r = detail::driver().cuMemPoolTrimTo(static_cast<CUmemoryPool>(pool_), keep_bytes);
  if (r != CUDA_SUCCESS) detail::throw_cuda_error(r, "cuMemPoolTrimTo(" + std::to_string(keep_bytes) + " bytes)");
}

void PoolMemoryResource::set_access(Device peer, bool enabled) {
  if (peer == device()) return;  // the owning device always has access
  if (device().is_cpu() || peer.is_cpu())
    throw Error("PoolMemoryResource::set_access: the CPU device and the GPUs cannot access each other's pools; "
                "copy between them through the host");
  const detail::DeviceState& s = detail::device_state(peer.ordinal());
  if (enabled && !device().can_access_peer(peer) && !peer.can_access_peer(device()))
    throw Error("PoolMemoryResource::set_access: " + s.label + " cannot access memory of " +
                detail::device_label(device().ordinal()) + " (no peer path between them)");
  CUmemAccessDesc desc = {};
  desc.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  desc.location.id = peer.ordinal();
  desc.flags = enabled ? CU_MEM_ACCESS_FLAGS_PROT_READWRITE : CU_MEM_ACCESS_FLAGS_PROT_NONE;
  CUresult r = detail::driver().cuMemPoolSetAccess(static_cast<CUmemoryPool>(pool_), &desc, 1);
  if (r != CUDA_SUCCESS) detail::throw_cuda_error(r, "cuMemPoolSetAccess(" + s.label + ")");
}

std::uint64_t PoolMemoryResource::do_allocate(std::size_t bytes, const Stream* stream) {
  if (device().is_cpu()) {
    return host_pool(pool_)->allocate(bytes, describe());
  }
  const detail::DeviceState& s = detail::device_state(device().ordinal());
  const Stream fallback = Stream::legacy_default(device());
  const Stream& on = stream ? *stream : fallback;
  detail::ensure_current(s, on);
  const detail::DriverApi& api = detail::driver();
  CUdeviceptr ptr = 0;
  CUresult r = api.cuMemAllocFromPoolAsync(&ptr, bytes, static_cast<CUmemoryPool>(pool_),
                                           static_cast<CUstream>(on.handle()));
  if (r != CUDA_SUCCESS) {
    std::string extra;
    try {
      const PoolUsage u = usage();
      extra = "the pool holds " + std::to_string(u.reserved) + " bytes reserved, " +
              std::to_string(u.used) + " of them in use";
    } catch (const Error&) {
    }
    detail::throw_allocation_error(r, "cuMemAllocFromPoolAsync(" + std::to_string(bytes) + " bytes)",
                                   bytes, describe(), extra);
  }
  if (!stream) {
    r = api.cuStreamSynchronize(static_cast<CUstream>(on.handle()));
    if (r != CUDA_SUCCESS) {
      api.cuMemFreeAsync(ptr, static_cast<CUstream>(on.handle()));
      detail::throw_cuda_error(r, "cuStreamSynchronize(" + s.label + ") after a pool allocation");
    }
  }
  return ptr;
}

void PoolMemoryResource::do_deallocate(std::uint64_t address, std::size_t, const Stream* stream) noexcept {
  if (device().is_cpu()) {
    const std::shared_ptr<detail::HostPool>& pool = *static_cast<std::shared_ptr<detail::HostPool>*>(pool_);
    if (!pool->owns(address)) return;
    if (stream) {
      // Reusable once the stream reaches the free: the work queued so far may still use it.
      try {
        detail::host_queue(*stream).push_uncaptured([pool, address] { pool->release(address); },
                                                     "a stream-ordered free");
        return;
      } catch (...) {  // no memory to queue it: wait instead
      }
    }
    detail::synchronize_host_queues();
    pool->release(address);
    return;
  }
  try {
    const detail::DeviceState& s = detail::device_state(device().ordinal());
    const Stream fallback = Stream::legacy_default(device());
    const Stream& on = stream ? *stream : fallback;
    detail::ensure_current(s, on);
    const detail::DriverApi& api = detail::driver();
    // Without a stream the caller promised nothing about outstanding work, and the legacy
    // stream orders the free after blocking streams only: wait for the whole device first.
    if (!stream) api.cuCtxSynchronize();
    api.cuMemFreeAsync(static_cast<CUdeviceptr>(address), static_cast<CUstream>(on.handle()));
  } catch (...) {  // never throw from a free
  }
}

}  // namespace cutlet
