// Device properties and the process-wide, once-per-device table of contexts and limits.
#include "cutlet/runtime/device.h"

#include <memory>
#include <string>

#include "device_state.h"

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
  // Retained once and never released: the context then lives as long as the process, as the
  // CUDA runtime's does, and contexts other libraries share with us are never torn down.
  CUresult r = api.cuDevicePrimaryCtxRetain(&s.context, s.handle);
  if (r != CUDA_SUCCESS)
    throw_cuda_error(r, "cuDevicePrimaryCtxRetain(" + s.label + ")",
                     "the device may be in exclusive-process mode and used by another process");
}

}  // namespace

int device_count() { return table().count; }

DeviceState& device_state(int ordinal) {
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

std::string device_label(int ordinal) {
  try {
    return device_state(ordinal).label;
  } catch (const Error&) {
    return "device " + std::to_string(ordinal);
  }
}

}  // namespace detail

int Device::count() { return detail::device_count(); }

Device::Device(int ordinal) : ordinal_(ordinal) {
  const int n = detail::device_count();
  if (ordinal < 0 || ordinal >= n)
    throw Error("device " + std::to_string(ordinal) + " requested but " + std::to_string(n) +
                (n == 1 ? " CUDA device is" : " CUDA devices are") +
                " present (valid ordinals are 0.." + std::to_string(n - 1) +
                "; CUDA_VISIBLE_DEVICES decides which GPUs are visible)");
}

Device Device::current() {
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
  return detail::get_attribute(detail::driver(), detail::device_state(ordinal_).handle,
                               static_cast<CUdevice_attribute>(cu_device_attribute));
}

const DeviceLimits& Device::limits() const { return detail::device_state(ordinal_).limits; }

void Device::set_current() const { detail::ensure_current(ordinal_); }

void* Device::context() const { return detail::device_state(ordinal_).context; }

void Device::synchronize() const {
  const detail::DeviceState& s = detail::device_state(ordinal_);
  detail::ensure_current(s);
  CUresult r = detail::driver().cuCtxSynchronize();
  if (r != CUDA_SUCCESS) detail::throw_cuda_error(r, "cuCtxSynchronize(" + s.label + ")");
}

}  // namespace cutlet
