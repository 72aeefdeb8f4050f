// Formats CudaError messages from a CUresult, using the driver's own names when it is loaded.
#include "cutlet/runtime/cuda_error.h"

#include "driver_api.h"

namespace cutlet {
namespace {

std::string error_name(int code) {
  const char* name = nullptr;
  if (const detail::DriverApi* api = detail::g_driver_api.load(std::memory_order_acquire))
    api->cuGetErrorName(static_cast<CUresult>(code), &name);
  return name ? std::string(name) : "CUresult " + std::to_string(code);
}

std::string error_description(int code) {
  const char* text = nullptr;
  if (const detail::DriverApi* api = detail::g_driver_api.load(std::memory_order_acquire))
    api->cuGetErrorString(static_cast<CUresult>(code), &text);
  return text ? std::string(text) : "unrecognized CUDA driver error";
}

}  // namespace

CudaError::CudaError(int code, std::string call, const std::string& hint)
    : CudaError(code, std::move(call), error_name(code),
                error_description(code) + (hint.empty() ? "" : "; " + hint)) {}

CudaError::CudaError(int code, std::string call, std::string name, const std::string& message)
    : Error(call + " failed: " + name + ": " + message),
      code_(code),
      name_(std::move(name)),
      call_(std::move(call)) {}

ContextFaultError::ContextFaultError(int code, std::string call, const std::string& hint, int device,
                                     std::string kernel, std::string launched_at, bool repeated,
                                     std::string cause)
    : CudaError(code, std::move(call), hint),
      device_(device),
      kernel_(std::move(kernel)),
      launched_at_(std::move(launched_at)),
      repeated_(repeated),
      cause_(std::move(cause)),
      what_text_(what()) {}

}  // namespace cutlet
