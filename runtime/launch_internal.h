// Internal: what launch.cpp and the extended launch path share.
#pragma once

#include <string>

#include "cutlet/runtime/launch.h"
#include "cutlet/runtime/module.h"
#include "cutlet/runtime/stream.h"
#include "device_state.h"

namespace cutlet::detail {

/// "(x,y,z)", for messages.
std::string dims(const Dim3& d);

/// Throws Error "cannot launch kernel '<kernel_name>' at <file:line>: <problem>".
[[noreturn]] void bad_config(const char* kernel_name, const LaunchConfig& c, const std::string& problem);

/// Throws CudaError for a launch (or graph kernel node) the driver rejected, naming `call`,
/// the kernel and the config, with a hint for the common causes.
[[noreturn]] void launch_failed(CUresult r, const Function& f, const LaunchConfig& c, const char* call);

/// As above for a launch on `stream` the driver rejected, naming `call`, the kernel
/// and the config, with a hint for the common causes; a kernel fault of an earlier launch
/// that surfaced here throws ContextFaultError naming that launch (see throw_stream_error).
[[noreturn]] void launch_failed(CUresult r, const Stream& stream, const Function& f, const LaunchConfig& c,
                                const char* call);

/// Records a successful launch of `f` at `c.where` on `stream` for later fault messages.
inline void record_launch(const DeviceState& s, const Stream& stream, const Function& f,
                          const LaunchConfig& c) noexcept {
  s.launches.record(static_cast<CUstream>(stream.handle()), f.stable_name(), c.where);
}

/// Whether a launch of `f` with `c` takes its block past the default 48 KiB of shared memory
/// (static and dynamic together), so that the kernel must opt in to more dynamic memory.
inline bool needs_shared_opt_in(const Function& f, const LaunchConfig& c, const DeviceLimits& l) noexcept {
  return c.shared_bytes > 0 && c.shared_bytes + static_cast<std::size_t>(f.static_shared_bytes()) > l.max_shared_per_block;
}

/// Raises `f`'s MAX_DYNAMIC_SHARED_SIZE_BYTES to c.shared_bytes (on the context-free kernel of
/// device state `s` when `green`); throws CudaError naming the limit when the driver refuses.
void opt_in_shared(const Function& f, const LaunchConfig& c, const DeviceState& s, bool green);

/// Throws unless a cooperative grid of `config` fits on device state `s` at once
/// (max_cooperative_blocks), naming the limit.
void check_co_residency(const Function& function, const LaunchConfig& config, const DeviceState& s);

/// The launch path for configs with extended attributes and for streams of green contexts:
/// checks the whole config, checks a cooperative grid's co-residency, raises the dynamic
/// shared memory limit when needed, and queues one cuLaunchKernelEx (with the context-free
/// CUkernel on green streams). `state` is the device's.
void launch_extended(const Stream& stream, const Function& function, const LaunchConfig& config,
                     void** args, const DeviceState& state);

}  // namespace cutlet::detail
