// Kernel faults: their attribution to the last launch, the poisoned context, and refusals.
#include "context_fault.h"

#include <string>

#include "device_state.h"

namespace cutlet::detail {
namespace {

std::string site_text(const LaunchSite& site) {
  return "'" + std::string(site.kernel) + "' (launched at " + std::string(site.file) + ":" +
         std::to_string(site.line) + ")";
}

bool same_site(const LaunchSite& a, const LaunchSite& b) {
  return a.kernel == b.kernel && a.file == b.file && a.line == b.line;
}

/// Set while a fault is being reported on this thread, so that a driver call failing inside
/// the report does not report again.
thread_local bool t_reporting = false;

struct Reporting {
  Reporting() { t_reporting = true; }
  ~Reporting() { t_reporting = false; }
};

}  // namespace

bool is_sticky(CUresult result) noexcept {
  switch (result) {
    case CUDA_ERROR_ILLEGAL_ADDRESS:
    case CUDA_ERROR_LAUNCH_TIMEOUT:
    case CUDA_ERROR_ASSERT:
    case CUDA_ERROR_HARDWARE_STACK_ERROR:
    case CUDA_ERROR_ILLEGAL_INSTRUCTION:
    case CUDA_ERROR_MISALIGNED_ADDRESS:
    case CUDA_ERROR_INVALID_ADDRESS_SPACE:
    case CUDA_ERROR_INVALID_PC:
    case CUDA_ERROR_LAUNCH_FAILED:
    case CUDA_ERROR_ECC_UNCORRECTABLE:
    case CUDA_ERROR_NVLINK_UNCORRECTABLE:
    case CUDA_ERROR_TENSOR_MEMORY_LEAK:
    case CUDA_ERROR_EXTERNAL_DEVICE:
      return true;
    default:
      return false;
  }
}

void throw_fault(const DeviceState& state, bool has_stream, CUstream stream, bool poison, CUresult result,
                 std::string call) {
  Reporting reporting;
  const LaunchSite latest = state.launches.latest();
  const LaunchSite here = has_stream ? state.launches.on(stream) : LaunchSite{};
  const LaunchSite& blamed = here ? here : latest;
  std::string hint;
  if (here) {
    hint = "the last kernel launched on this stream was " + site_text(here);
    if (latest && !same_site(latest, here))
      hint += "; the most recent launch on " + state.label + " was " + site_text(latest);
  } else if (latest) {
    hint = std::string(has_stream ? "no kernel launched through cutlet on this stream is known; " : "") +
           "the most recent kernel launched on " + state.label + " was " + site_text(latest);
  } else {
    hint = "no kernel launched through cutlet on " + state.label + " is known";
  }
  if (result == CUDA_ERROR_ASSERT) hint += "; the failed assertion's message is on stderr";
  hint += poison ? "; the error is sticky: the device's context is unusable, and cutlet refuses further "
                   "calls on it; CUDA gives the process no new context on this device after such a fault, so "
                   "the process must exit to use it again (compute-sanitizer finds the faulting access)"
                 : "; the error is sticky: the green context is unusable";
  std::string kernel = blamed ? blamed.kernel : "";
  std::string at = blamed ? std::string(blamed.file) + ":" + std::to_string(blamed.line) : "";
  auto error = std::make_shared<const ContextFaultError>(static_cast<int>(result), std::move(call), hint,
                                                         ordinal_of(state), std::move(kernel), std::move(at),
                                                         false, std::string());
  if (poison) {
    std::lock_guard lock(state.fault_mutex);
    if (!state.fault) {
      state.fault = error;
      state.poisoned.store(true, std::memory_order_release);
    }
  }
  throw ContextFaultError(*error);
}

void throw_poisoned(const DeviceState& state) {
  std::shared_ptr<const ContextFaultError> fault;
  {
    std::lock_guard lock(state.fault_mutex);
    fault = state.fault;
  }
  if (!fault)  // reset in the meantime: nothing to refuse any more
    throw CudaError(CUDA_ERROR_CONTEXT_IS_DESTROYED, "a call on " + state.label,
                    "the context was reset while the call was made; retry it");
  throw ContextFaultError(fault->code(), "a call on " + state.label,
                          "refused without calling the driver: the context was poisoned by an earlier "
                          "kernel fault, first reported as: " +
                              fault->cause() + " [the process must exit to use the device again]",
                          fault->device(), fault->kernel(), fault->launched_at(), true, fault->cause());
}

void throw_stream_error(const DeviceState& state, CUstream stream, bool green, CUresult result, std::string call,
                        const std::string& hint) {
  if (is_sticky(result) && !t_reporting) throw_fault(state, true, stream, !green, result, std::move(call));
  throw_cuda_error(result, std::move(call), hint);
}

void throw_fault_in_current_context(CUresult result, const std::string& call) {
  if (t_reporting || !is_sticky(result)) return;
  const DriverApi* api = g_driver_api.load(std::memory_order_acquire);
  if (!api) return;
  const DeviceState* found = nullptr;
  {
    Reporting reporting;  // finding the device must not report a fault of its own
    try {
      CUcontext current = nullptr;
      if (api->cuCtxGetCurrent(&current) != CUDA_SUCCESS || !current) return;
      const int n = device_count();
      for (int i = 0; i < n && !found; ++i) {
        DeviceState* s = initialised_device_state(i);  // a device never used has no context to blame
        if (s && s->context.load(std::memory_order_acquire) == current) found = s;
      }
    } catch (...) {
      return;
    }
  }
  if (found) throw_fault(*found, false, nullptr, true, result, call);
}

std::uint64_t generation_of(int ordinal) noexcept {
  try {
    return device_state(ordinal).generation.load(std::memory_order_acquire);
  } catch (...) {
    return 0;
  }
}

}  // namespace cutlet::detail
