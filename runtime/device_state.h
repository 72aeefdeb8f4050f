// Internal: the process-wide table of per-device state behind cutlet::Device.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "cutlet/runtime/device.h"
#include "cutlet/runtime/stream.h"
#include "context_fault.h"
#include "driver_api.h"
#include "host_device.h"
#include "launch_record.h"
#include "scratch_slot.h"

namespace cutlet::detail {

/// What cutlet knows about one device; filled once, then read without locking. Device::reset
/// changes only the atomic fields, the fault and the launch records.
struct DeviceState {
  std::atomic<bool> ready{false};  ///< Set (release) once the fields below are filled.
  std::mutex init_mutex;           ///< Held while filling them, and during Device::reset.
  CUdevice handle = 0;             ///< Filled for every device when the table is built.
  /// The retained primary context (retained once, never released; Device::reset stores the
  /// handle it has after the reset).
  std::atomic<CUcontext> context{nullptr};
  /// Device::reset calls so far: objects made in an older context are not freed in this one.
  std::atomic<std::uint64_t> generation{0};
  /// True once a kernel fault poisoned the primary context (until Device::reset).
  mutable std::atomic<bool> poisoned{false};
  mutable std::mutex fault_mutex;  ///< Guards `fault`.
  /// The first report of the poisoning fault.
  mutable std::shared_ptr<const ContextFaultError> fault;
  mutable LaunchRecords launches;  ///< The last kernel launched on each stream.
  ComputeCapability cc;
  DeviceLimits limits;
  DeviceProperties props;
  std::string name;
  std::size_t total_memory = 0;
  std::string label;  ///< "device 0 (NVIDIA H200)", for messages.
  bool cpu = false;   ///< The CPU device's entry (host_device.h): no driver behind it.
};

/// The number of visible devices (throws NoDriverError without a driver).
int device_count();

/// The initialised state of device `ordinal`, which must be in range (checked by Device).
/// The first call per device retains its primary context and reads its properties; later
/// calls are one atomic load.
DeviceState& device_state(int ordinal);
/// The state of device `ordinal` if it has been initialised, else nullptr (never initialises:
/// for error reporting, which must not create contexts).
DeviceState* initialised_device_state(int ordinal) noexcept;
/// The ordinal of `state` (one of the table's).
int ordinal_of(const DeviceState& state) noexcept;

/// Throws ContextFaultError (repeated) when a kernel fault has poisoned `state`'s primary
/// context: one atomic load otherwise.
inline void check_usable(const DeviceState& state) {
  if (state.poisoned.load(std::memory_order_acquire)) [[unlikely]]
    throw_poisoned(state);
}

/// Makes `state`'s primary context current on the calling thread unless it already is:
/// one cuCtxGetCurrent, plus cuCtxSetCurrent only when the context differs. Refuses (see
/// check_usable) a poisoned context.
inline void ensure_current(const DeviceState& state) {
  if (state.cpu) return;
  check_usable(state);
  const DriverApi& api = driver();
  CUcontext current = nullptr;
  const CUcontext wanted = state.context.load(std::memory_order_acquire);
  check(api.cuCtxGetCurrent(&current), "cuCtxGetCurrent");
  if (current != wanted) [[unlikely]]
    check(api.cuCtxSetCurrent(wanted), "cuCtxSetCurrent");
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
    return stream.context_ ? static_cast<CUcontext>(stream.context_)
                           : state.context.load(std::memory_order_acquire);
  }
  /// A Stream over `handle` of `device`; `keep` (when set) owns it, `green`/`context` name
  /// the green context it runs in (null for the primary context). An owning one keeps
  /// temporary memory between StreamScratch leases as Stream(device) does.
  static Stream make(void* handle, Device device, bool owning, void* green, void* context,
                     std::shared_ptr<void> keep) {
    Stream s(handle, device, owning);
    s.green_ = green;
    s.context_ = context;
    s.keep_ = std::move(keep);
    if (owning) s.scratch_ = std::make_shared<ScratchSlot>();
    return s;
  }
};

/// Makes the context of `stream` (of device state `state`) current on the calling thread;
/// refuses a poisoned primary context as check_usable does.
inline void ensure_current(const DeviceState& state, const Stream& stream) {
  if (state.cpu) return;
  if (!stream.green_context()) check_usable(state);
  ensure_current(StreamAccess::context(stream, state));
}

/// The number of Device::reset calls for device `ordinal` so far; 0 without a driver.
std::uint64_t generation_of(int ordinal) noexcept;

/// Makes device `ordinal`'s primary context current on the calling thread (see above).
inline void ensure_current(int ordinal) { ensure_current(device_state(ordinal)); }

/// "device N (<name>)", for messages; falls back to "device N" if the name is unknown.
std::string device_label(int ordinal);

}  // namespace cutlet::detail
