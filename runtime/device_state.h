// Internal: the process-wide table of per-device state behind cutlet::Device.
#pragma once

#include <atomic>
#include <mutex>
#include <string>

#include "cutlet/runtime/device.h"
#include "driver_api.h"

namespace cutlet::detail {

/// What cutlet knows about one device; filled once, then read without locking.
struct DeviceState {
  std::atomic<bool> ready{false};  ///< Set (release) once the fields below are filled.
  std::mutex init_mutex;           ///< Held while filling them.
  CUdevice handle = 0;             ///< Filled for every device when the table is built.
  CUcontext context = nullptr;     ///< Retained primary context, never released.
  ComputeCapability cc;
  DeviceLimits limits;
  std::string name;
  std::size_t total_memory = 0;
  std::string label;  ///< "device 0 (NVIDIA H200)", for messages.
};

/// The number of visible devices (throws NoDriverError without a driver).
int device_count();

/// The initialised state of device `ordinal`, which must be in range (checked by Device).
/// The first call per device retains its primary context and reads its properties; later
/// calls are one atomic load.
DeviceState& device_state(int ordinal);

/// Makes `state`'s primary context current on the calling thread unless it already is:
/// one cuCtxGetCurrent, plus cuCtxSetCurrent only when the context differs.
inline void ensure_current(const DeviceState& state) {
  const DriverApi& api = driver();
  CUcontext current = nullptr;
  check(api.cuCtxGetCurrent(&current), "cuCtxGetCurrent");
  if (current != state.context) [[unlikely]]
    check(api.cuCtxSetCurrent(state.context), "cuCtxSetCurrent");
}

/// Makes device `ordinal`'s primary context current on the calling thread (see above).
inline void ensure_current(int ordinal) { ensure_current(device_state(ordinal)); }

/// "device N (<name>)", for messages; falls back to "device N" if the name is unknown.
std::string device_label(int ordinal);

}  // namespace cutlet::detail
