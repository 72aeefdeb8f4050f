// Resetting a device's primary context after a kernel fault, and asking whether one happened.
#include <string>

#include "cutlet/runtime/device.h"
#include "device_state.h"

namespace cutlet {

void Device::reset() const {
  if (is_cpu()) return;  // nothing to throw away: no context, and no fault poisons it
  detail::DeviceState& s = detail::device_state(ordinal_);
  const detail::DriverApi& api = detail::driver();
  std::lock_guard lock(s.init_mutex);
  CUresult r = api.cuDevicePrimaryCtxReset(s.handle);
  if (r != CUDA_SUCCESS)
    throw CudaError(static_cast<int>(r), "cuDevicePrimaryCtxReset(" + s.label + ")");
  // Objects of the old context stop freeing their handles from here on.
  s.generation.fetch_add(1, std::memory_order_acq_rel);
  // The reset context is made again by a retain; the release keeps the one retain cutlet
  // holds for the process. The handle usually stays the same, but is taken as it comes.
  CUcontext context = nullptr;
  r = api.cuDevicePrimaryCtxRetain(&context, s.handle);
  if (r != CUDA_SUCCESS) {
    // After a sticky fault (an illegal address, a trap) the driver makes no new context in
    // this process: the device stays poisoned, with its first fault as the cause.
    std::string cause;
    {
      std::lock_guard fault_lock(s.fault_mutex);
      if (s.fault) cause = std::string(" after ") + s.fault->what();
    }
    throw CudaError(static_cast<int>(r), "cuDevicePrimaryCtxRetain(" + s.label + ") after a reset",
                    "the CUDA driver gives a process no new context on a device whose context a kernel fault "
                    "killed" + cause + "; the process must exit to use the device again (run work that may "
                    "fault, such as untrusted tuning candidates, in a child process)");
  }
  api.cuDevicePrimaryCtxRelease(s.handle);
  s.context.store(context, std::memory_order_release);
  api.cuCtxSetCurrent(context);
  s.launches.clear();
  std::lock_guard fault_lock(s.fault_mutex);
  s.fault.reset();
  s.poisoned.store(false, std::memory_order_release);
}

bool Device::poisoned() const {
  return detail::device_state(ordinal_).poisoned.load(std::memory_order_acquire);
}

std::shared_ptr<const ContextFaultError> Device::fault() const {
  const detail::DeviceState& s = detail::device_state(ordinal_);
  std::lock_guard lock(s.fault_mutex);
  return s.fault;
}

std::uint64_t Device::generation() const {
  return detail::device_state(ordinal_).generation.load(std::memory_order_acquire);
}

}  // namespace cutlet
