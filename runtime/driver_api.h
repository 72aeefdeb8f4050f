// Internal: the CUDA driver entry points, resolved at run time, and the error-check helper.
#pragma once

#include <cuda.h>
#include <cudaTypedefs.h>

#include <atomic>
#include <string>

#include "cutlet/runtime/cuda_error.h"

namespace cutlet::detail {

/// The CUDA version whose ABI every entry point below is requested in. Pinning it (rather
/// than asking for the driver's newest) keeps each pointer's type fixed whatever driver is
/// installed: functions that changed signature later (cuCtxSynchronize and cuCtxGetDevice
/// in 13.0, for instance) still come back in their 12.0 form, matching the typedefs below.
inline constexpr int kDriverAbiVersion = 12000;

/// The driver functions cutlet calls: X(name, version suffix of its PFN_ typedef in
/// cudaTypedefs.h, i.e. the version current in CUDA 12.0). A name like cuMemAlloc is also a
/// macro in cuda.h (-> cuMemAlloc_v2) and so renames the member consistently; the string
/// passed to cuGetProcAddress is the base name, which is what that function expects.
#define CUTLET_DRIVER_FUNCTIONS(X)  \
  X(cuInit, 2000)                   \
  X(cuDriverGetVersion, 2020)       \
  X(cuGetErrorName, 6000)           \
  X(cuGetErrorString, 6000)         \
  X(cuDeviceGetCount, 2000)         \
  X(cuDeviceGet, 2000)              \
  X(cuDeviceGetName, 2000)          \
  X(cuDeviceGetAttribute, 2000)     \
  X(cuDeviceTotalMem, 3020)         \
  X(cuDevicePrimaryCtxRetain, 7000) \
  X(cuCtxGetCurrent, 4000)          \
  X(cuCtxSetCurrent, 4000)          \
  X(cuCtxGetDevice, 2000)           \
  X(cuCtxSynchronize, 2000)         \
  X(cuStreamCreate, 2000)           \
  X(cuStreamDestroy, 4000)          \
  X(cuStreamSynchronize, 2000)      \
  X(cuStreamQuery, 2000)            \
  X(cuEventCreate, 2000)            \
  X(cuEventDestroy, 4000)           \
  X(cuEventRecord, 2000)            \
  X(cuEventSynchronize, 2000)       \
  X(cuEventQuery, 2000)             \
  X(cuEventElapsedTime, 2000)       \
  X(cuMemAlloc, 3020)               \
  X(cuMemFree, 3020)                \
  X(cuMemGetInfo, 3020)             \
  X(cuMemcpyHtoDAsync, 3020)        \
  X(cuMemcpyDtoHAsync, 3020)        \
  X(cuMemcpyDtoDAsync, 3020)        \
  X(cuMemsetD8Async, 3020)          \
  X(cuModuleLoadDataEx, 2010)       \
  X(cuModuleUnload, 2000)           \
  X(cuModuleGetFunction, 2000)      \
  X(cuFuncGetAttribute, 2020)       \
  X(cuFuncSetAttribute, 9000)       \
  X(cuLaunchKernel, 4000)

/// Pointers to the resolved driver functions; all non-null once loaded.
struct DriverApi {
  PFN_cuGetProcAddress_v12000 cuGetProcAddress = nullptr;
#define CUTLET_DRIVER_MEMBER(name, version) PFN_##name##_v##version name = nullptr;
  CUTLET_DRIVER_FUNCTIONS(CUTLET_DRIVER_MEMBER)
#undef CUTLET_DRIVER_MEMBER
  int version = 0;  ///< cuDriverGetVersion's answer.
};

/// Set, once, when the driver has been loaded and initialised; null before or without one.
extern std::atomic<const DriverApi*> g_driver_api;

/// Loads the driver on first use (dlopen, entry points, cuInit(0)); throws NoDriverError.
const DriverApi& load_driver();

/// The loaded driver; throws NoDriverError (saying why) when there is none. Cheap after the
/// first call: one atomic load.
inline const DriverApi& driver() {
  if (const DriverApi* api = g_driver_api.load(std::memory_order_acquire)) [[likely]]
    return *api;
  return load_driver();
}

/// Throws CudaError(result, call, hint). Out of line so that callers stay small.
[[noreturn]] void throw_cuda_error(CUresult result, std::string call, const std::string& hint = {});

/// Throws CudaError naming `call` unless `result` is CUDA_SUCCESS.
inline void check(CUresult result, const char* call) {
  if (result != CUDA_SUCCESS) [[unlikely]]
    throw_cuda_error(result, call);
}

}  // namespace cutlet::detail
