// Internal: recognising kernel faults, poisoning a device's context, and refusing calls on it.
#pragma once

#include <cuda.h>

#include <string>

namespace cutlet::detail {

struct DeviceState;

/// True for the CUresults of a kernel fault, which leave the context unusable.
bool is_sticky(CUresult result) noexcept;

/// Throws ContextFaultError for the sticky `result` of `call` on device `state`, attributed to
/// the last launch recorded on `stream` when `has_stream` (else to the device's most recent
/// launch). With `poison` (a fault of the primary context) the error is kept as the context's
/// cause and later calls are refused with it; the first cause stays when one is already kept.
[[noreturn]] void throw_fault(const DeviceState& state, bool has_stream, CUstream stream, bool poison,
                              CUresult result, std::string call);

/// Throws ContextFaultError (repeated) for a call refused because `state`'s primary context is
/// poisoned.
[[noreturn]] void throw_poisoned(const DeviceState& state);

/// Throws for a failed call on `stream` of device `state`: a fault as throw_fault does (the
/// context poisoned unless the stream is of a green context, `green`), anything else as
/// throw_cuda_error does with `hint`.
[[noreturn]] void throw_stream_error(const DeviceState& state, CUstream stream, bool green, CUresult result,
                                     std::string call, const std::string& hint = {});

/// For throw_cuda_error: throws ContextFaultError for the sticky `result` of `call`, attributed
/// to the device whose primary context is current on this thread (and poisoning it); when that
/// cannot be found, returns so that the caller throws a plain CudaError.
void throw_fault_in_current_context(CUresult result, const std::string& call);

}  // namespace cutlet::detail
