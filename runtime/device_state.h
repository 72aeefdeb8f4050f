// Internal: the process-wide table of per-device state behind cutlet::Device.
#pragma once

#include <atomic>
#include <mutex>
#include <string>

#include "cutlet/runtime/device.h"
#include "cutlet/runtime/stream.h"
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
  DeviceProperties props;
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

/// Makes `context` current on the calling thread unless it already is.
inline void ensure_current(CUcontext context) {
  const DriverApi& api = driver();
  CUcontext current = nullptr;
  check(api.cuCtxGetCurrent(&current), "cuCtxGetCurrent");
  if (current != context) [[unlikely]]
    check(api.cuCtxSetCurrent(context), "cuCtxSetCurrent");
}

/// What the runtime's sources read and build inside a Stream.
struct StreamAccess {
  /// The context `stream`'s work runs in: its green context's, else `state`'s primary one.
  static CUcontext context(const Stream& stream, const DeviceState& state) noexcept {
    return stream.context_ ? static_cast<CUcontext>(stream.context_) : state.context;
  }
  /// A Stream over `handle` of `device`; `keep` (when set) owns it, `green`/`context` name
  /// the green context it runs in (null for the primary context).
  static Stream make(void* handle, Device device, bool owning, void* green, void* context,
                     std::shared_ptr<void> keep) noexcept {
    Stream s(handle, device, owning);
    s.green_ = green;
    s.context_ = context;
    s.keep_ = std::move(keep);
    return s;
  }
};

/// Makes the context of `stream` (of device state `state`) current on the calling thread.
inline void ensure_current(const DeviceState& state, const Stream& stream) {
  ensure_current(StreamAccess::context(stream, state));
}

/// Makes device `ordinal`'s primary context current on the calling thread (see above).
inline void ensure_current(int ordinal) { ensure_current(device_state(ordinal)); }

/// "device N (<name>)", for messages; falls back to "device N" if the name is unknown.
std::string device_label(int ordinal);

}  // namespace cutlet::detail
