// Device properties and the process-wide, once-per-device table of contexts and limits.
#include "cutlet/runtime/device.h"

#include <unistd.h>

#include <memory>
#include <string>

#include "device_state.h"
#include "host_device.h"
#include "host_queue.h"

namespace cutlet {
namespace detail {
namespace {

struct DeviceTable {
  int count = 0;
  std::unique_ptr<DeviceState[]> states;
};

DeviceTable* build_table() {
  const DriverApi& api = driver();
  auto table = std::make_unique<DeviceTable>();
  check(api.cuDeviceGetCount(&table->count), "cuDeviceGetCount");
  table->states = std::make_unique<DeviceState[]>(static_cast<std::size_t>(table->count));
  for (int i = 0; i < table->count; ++i)
    check(api.cuDeviceGet(&table->states[i].handle, i),
          ("cuDeviceGet(" + std::to_string(i) + ")").c_str());
  return table.release();
}

/// Built on first use (thread-safe: a throwing initialiser is retried by the next caller) and
/// deliberately never destroyed, so that objects destroyed at exit can still use it.
DeviceTable& table() {
  static DeviceTable* t = build_table();
  return *t;
}

int get_attribute(const DriverApi& api, CUdevice dev, CUdevice_attribute attr) {
  int value = 0;
  CUresult r = api.cuDeviceGetAttribute(&value, attr, dev);
  if (r != CUDA_SUCCESS)
    throw_cuda_error(r, "cuDeviceGetAttribute(attribute " + std::to_string(attr) + ")");
  return value;
}

/// An attribute the driver may not report (deprecated or newer than the driver): 0 then.
int attr_or_zero(const DriverApi& api, CUdevice dev, CUdevice_attribute attr) {
  int value = 0;
  return api.cuDeviceGetAttribute(&value, attr, dev) == CUDA_SUCCESS ? value : 0;
}

void fill_properties(const DriverApi& api, DeviceState& s) {
  auto attr = [&](CUdevice_attribute a) { return attr_or_zero(api, s.handle, a); };
  auto bytes = [&](CUdevice_attribute a) { return static_cast<std::size_t>(attr(a)); };
  DeviceProperties& p = s.props;
  const DeviceLimits& l = s.limits;
  p.name = s.name;
  char bus[64] = {};
  if (api.cuDeviceGetPCIBusId(bus, sizeof bus - 1, s.handle) == CUDA_SUCCESS) p.pci_bus_id = bus;
  p.compute_capability = s.cc;
  p.sm_count = l.sm_count;
  p.warp_size = l.warp_size;
  p.max_threads_per_block = l.max_threads_per_block;
  p.max_threads_per_sm = attr(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR);
  p.max_blocks_per_sm = attr(CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR);
  p.registers_per_block = attr(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK);
  p.registers_per_sm = attr(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR);
  p.shared_per_block = l.max_shared_per_block;
  p.shared_per_block_optin = l.max_shared_per_block_optin;
  p.shared_per_sm = bytes(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR);
  p.reserved_shared_per_block = bytes(CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK);
  p.constant_memory = bytes(CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY);
  p.l2_cache_bytes = bytes(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE);
  p.persisting_l2_max_bytes = bytes(CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE);
  p.total_memory = s.total_memory;
  p.clock_khz = attr(CU_DEVICE_ATTRIBUTE_CLOCK_RATE);
  p.memory_clock_khz = attr(CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE);
  p.memory_bus_width_bits = attr(CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH);
  p.async_engine_count = attr(CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT);
  p.unified_addressing = attr(CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING) != 0;
  p.managed_memory = attr(CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY) != 0;
  p.concurrent_managed_access = attr(CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS) != 0;
  p.memory_pools = attr(CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED) != 0;
  p.can_map_host_memory = attr(CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY) != 0;
  p.cooperative_launch = l.cooperative_launch;
  p.cluster_launch = l.cluster_launch;
  p.stream_priorities = attr(CU_DEVICE_ATTRIBUTE_STREAM_PRIORITIES_SUPPORTED) != 0;
  p.integrated = attr(CU_DEVICE_ATTRIBUTE_INTEGRATED) != 0;
}

void fill(DeviceState& s, int ordinal) {
  const DriverApi& api = driver();
  char name[256] = {};
  check(api.cuDeviceGetName(name, sizeof name - 1, s.handle), "cuDeviceGetName");
  s.name = name;
  s.label = "device " + std::to_string(ordinal) + " (" + s.name + ")";
  auto attr = [&](CUdevice_attribute a) { return get_attribute(api, s.handle, a); };
  s.cc.major = attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
  s.cc.minor = attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  DeviceLimits& l = s.limits;
  l.max_threads_per_block = attr(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
  l.max_block[0] = attr(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X);
  l.max_block[1] = attr(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y);
  l.max_block[2] = attr(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z);
  l.max_grid[0] = attr(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X);
  l.max_grid[1] = attr(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y);
  l.max_grid[2] = attr(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z);
  l.max_shared_per_block =
      static_cast<std::size_t>(attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK));
  l.max_shared_per_block_optin =
      static_cast<std::size_t>(attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN));
  l.warp_size = attr(CU_DEVICE_ATTRIBUTE_WARP_SIZE);
  l.sm_count = attr(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  std::size_t total = 0;
  check(api.cuDeviceTotalMem(&total, s.handle), "cuDeviceTotalMem");
  s.total_memory = total;
  l.sm = s.cc.sm();
  l.cluster_launch = attr_or_zero(api, s.handle, CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH) != 0;
  l.cooperative_launch = attr_or_zero(api, s.handle, CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH) != 0;
  fill_properties(api, s);
  // Retained once and never released: the context then lives as long as the process, as the
  // CUDA runtime's does, and contexts other libraries share with us are never torn down.
  CUcontext context = nullptr;
  CUresult r = api.cuDevicePrimaryCtxRetain(&context, s.handle);
  if (r != CUDA_SUCCESS)
    throw_cuda_error(r, "cuDevicePrimaryCtxRetain(" + s.label + ")",
                     "the device may be in exclusive-process mode and used by another process");
  s.context.store(context, std::memory_order_release);
}

}  // namespace

int device_count() { return table().count; }

DeviceState& device_state(int ordinal) {
  if (ordinal == Device::kCpuOrdinal) [[unlikely]]
    return cpu_device_state();
  DeviceState& s = table().states[ordinal];
  if (s.ready.load(std::memory_order_acquire)) [[likely]]
    return s;
  std::lock_guard lock(s.init_mutex);
  if (!s.ready.load(std::memory_order_relaxed)) {
    fill(s, ordinal);  // on a throw, ready stays false and the next call tries again
    s.ready.store(true, std::memory_order_release);
  }
  return s;
}

DeviceState* initialised_device_state(int ordinal) noexcept {
  if (ordinal == Device::kCpuOrdinal) return &cpu_device_state();
  if (ordinal < 0 || ordinal >= table().count) return nullptr;
  DeviceState& s = table().states[ordinal];
  return s.ready.load(std::memory_order_acquire) ? &s : nullptr;
}

int ordinal_of(const DeviceState& state) noexcept {
  if (state.cpu) return Device::kCpuOrdinal;
  return static_cast<int>(&state - &table().states[0]);
}

std::string device_label(int ordinal) {
  try {
    return device_state(ordinal).label;
  } catch (const Error&) {
    return "device " + std::to_string(ordinal);
  }
}

}  // namespace detail

int Device::count() { return cpu_selected() ? 1 : detail::device_count(); }

Device::Device(int ordinal) : ordinal_(ordinal) {
  if (cpu_selected()) {
    if (ordinal != 0)
      throw Error("device " + std::to_string(ordinal) + " requested but 1 device is present: CUTLET_DEVICE=cpu makes the "
                  "CPU device the only one (device 0); use device 0, or unset CUTLET_DEVICE for the CUDA devices");
    ordinal_ = kCpuOrdinal;
    return;
  }
  const int n = detail::device_count();
  if (ordinal < 0 || ordinal >= n)
    throw Error("device " + std::to_string(ordinal) + " requested but " + std::to_string(n) +
                (n == 1 ? " CUDA device is" : " CUDA devices are") +
                " present (valid ordinals are 0.." + std::to_string(n - 1) +
                "; CUDA_VISIBLE_DEVICES decides which GPUs are visible)");
}

Device Device::current() {
  if (cpu_selected()) return cpu();
  const detail::DriverApi& api = detail::driver();
  CUcontext ctx = nullptr;
  detail::check(api.cuCtxGetCurrent(&ctx), "cuCtxGetCurrent");
  if (!ctx) return Device(0);
  CUdevice dev = 0;
  detail::check(api.cuCtxGetDevice(&dev), "cuCtxGetDevice");
  const int n = detail::device_count();
  for (int i = 0; i < n; ++i)
    if (detail::device_state(i).handle == dev) return Device(Unchecked{}, i);
  throw InternalError("cutlet internal error: the current context's device (CUdevice " +
                      std::to_string(dev) +
                      ") is not among the visible devices; this is a bug in cutlet, please "
                      "report it");
}

std::string Device::name() const { return detail::device_state(ordinal_).name; }

ComputeCapability Device::compute_capability() const { return detail::device_state(ordinal_).cc; }

int Device::sm_count() const { return detail::device_state(ordinal_).limits.sm_count; }

std::size_t Device::total_memory() const { return detail::device_state(ordinal_).total_memory; }

int Device::attribute(int cu_device_attribute) const {
  if (is_cpu()) return detail::cpu_attribute(cu_device_attribute);
  return detail::get_attribute(detail::driver(), detail::device_state(ordinal_).handle,
                               static_cast<CUdevice_attribute>(cu_device_attribute));
}

const DeviceLimits& Device::limits() const { return detail::device_state(ordinal_).limits; }

void Device::set_current() const { detail::ensure_current(ordinal_); }

void* Device::context() const {
  if (is_cpu()) return nullptr;
  return detail::device_state(ordinal_).context.load(std::memory_order_acquire);
}

std::vector<Device> Device::all() {
  if (cpu_selected()) return {cpu()};
  std::vector<Device> out;
  const int n = detail::device_count();
  for (int i = 0; i < n; ++i) out.push_back(Device(Unchecked{}, i));
  return out;
}

const DeviceProperties& Device::properties() const { return detail::device_state(ordinal_).props; }

std::size_t Device::free_memory() const {
  if (is_cpu()) {
    const long pages = ::sysconf(_SC_AVPHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0 ? static_cast<std::size_t>(pages) * static_cast<std::size_t>(page) : 0;
  }
  const detail::DeviceState& s = detail::device_state(ordinal_);
  detail::ensure_current(s);
  std::size_t free_bytes = 0, total = 0;
  CUresult r = detail::driver().cuMemGetInfo(&free_bytes, &total);
  if (r != CUDA_SUCCESS) detail::throw_cuda_error(r, "cuMemGetInfo(" + s.label + ")");
  return free_bytes;
}

bool Device::can_access_peer(const Device& peer) const {
  if (peer.ordinal_ == ordinal_ || is_cpu() || peer.is_cpu()) return false;
  const detail::DeviceState& a = detail::device_state(ordinal_);
  const detail::DeviceState& b = detail::device_state(peer.ordinal_);
  int can = 0;
  CUresult r = detail::driver().cuDeviceCanAccessPeer(&can, a.handle, b.handle);
  if (r != CUDA_SUCCESS)
    detail::throw_cuda_error(r, "cuDeviceCanAccessPeer(" + a.label + ", " + b.label + ")");
  return can != 0;
}

void Device::enable_peer_access(const Device& peer) const {
  const detail::DeviceState& a = detail::device_state(ordinal_);
  const detail::DeviceState& b = detail::device_state(peer.ordinal_);
  if (peer.ordinal_ == ordinal_)
    throw Error("Device::enable_peer_access: " + a.label +
                " cannot be its own peer; a device always reaches its own memory");
  if (is_cpu() || peer.is_cpu())
    throw Error("Device::enable_peer_access: the CPU device has no peers; copy between it and a GPU through the host");
  if (!can_access_peer(peer))
    throw Error("Device::enable_peer_access: " + a.label + " cannot access the memory of " +
                b.label + " directly (cuDeviceCanAccessPeer says no: no NVLink or PCIe peer "
                "path); copy through DeviceMemory::copy_from, which stages through the host");
  detail::ensure_current(a);
  CUresult r = detail::driver().cuCtxEnablePeerAccess(b.context.load(std::memory_order_acquire), 0);
  if (r != CUDA_SUCCESS && r != CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED)
    detail::throw_cuda_error(r, "cuCtxEnablePeerAccess(" + a.label + " -> " + b.label + ")");
}

void Device::disable_peer_access(const Device& peer) const {
  if (is_cpu() || peer.is_cpu()) return;
  const detail::DeviceState& a = detail::device_state(ordinal_);
  const detail::DeviceState& b = detail::device_state(peer.ordinal_);
  detail::ensure_current(a);
  CUresult r = detail::driver().cuCtxDisablePeerAccess(b.context.load(std::memory_order_acquire));
  if (r != CUDA_SUCCESS && r != CUDA_ERROR_PEER_ACCESS_NOT_ENABLED)
    detail::throw_cuda_error(r, "cuCtxDisablePeerAccess(" + a.label + " -> " + b.label + ")");
}

void Device::synchronize() const {
  if (is_cpu()) return detail::synchronize_host_device();
  const detail::DeviceState& s = detail::device_state(ordinal_);
  detail::ensure_current(s);
  CUresult r = detail::driver().cuCtxSynchronize();
  if (r != CUDA_SUCCESS) detail::throw_cuda_error(r, "cuCtxSynchronize(" + s.label + ")");
}

}  // namespace cutlet
