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
  X(cuDevicePrimaryCtxRelease, 11000) \
  X(cuDevicePrimaryCtxReset, 11000) \
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
  X(cuLaunchKernel, 4000)           \
  CUTLET_DRIVER_FUNCTIONS_12(X)

/// The rest of the functions every CUDA 12.0 driver has: peers, stream priorities and
/// waits, host functions, capture and graphs, pools and other allocators, extended launches,
/// occupancy, and context-independent libraries.
#define CUTLET_DRIVER_FUNCTIONS_12(X)                        \
  X(cuDeviceGetPCIBusId, 4010)                               \
  X(cuDeviceCanAccessPeer, 4000)                             \
  X(cuCtxEnablePeerAccess, 4000)                             \
  X(cuCtxDisablePeerAccess, 4000)                            \
  X(cuCtxGetStreamPriorityRange, 5050)                       \
  X(cuStreamCreateWithPriority, 5050)                        \
  X(cuStreamGetPriority, 5050)                               \
  X(cuStreamGetFlags, 5050)                                  \
  X(cuStreamWaitEvent, 3020)                                 \
  X(cuLaunchHostFunc, 10000)                                 \
  X(cuStreamBeginCapture, 10010)                             \
  X(cuStreamEndCapture, 10000)                               \
  X(cuStreamIsCapturing, 10000)                              \
  X(cuGraphCreate, 10000)                                    \
  X(cuGraphDestroy, 10000)                                   \
  X(cuGraphAddKernelNode, 12000)                             \
  X(cuGraphAddMemcpyNode, 10000)                             \
  X(cuGraphAddMemsetNode, 10000)                             \
  X(cuGraphAddEmptyNode, 10000)                              \
  X(cuGraphAddDependencies, 10000)                           \
  X(cuGraphGetNodes, 10000)                                  \
  X(cuGraphNodeGetType, 10000)                               \
  X(cuGraphKernelNodeGetParams, 12000)                       \
  X(cuGraphKernelNodeSetAttribute, 11000)                    \
  X(cuGraphInstantiateWithFlags, 11040)                      \
  X(cuGraphLaunch, 10000)                                    \
  X(cuGraphUpload, 11010)                                    \
  X(cuGraphExecDestroy, 10000)                               \
  X(cuGraphExecKernelNodeSetParams, 12000)                   \
  X(cuMemAllocAsync, 11020)                                  \
  X(cuMemAllocFromPoolAsync, 11020)                          \
  X(cuMemFreeAsync, 11020)                                   \
  X(cuMemPoolCreate, 11020)                                  \
  X(cuMemPoolDestroy, 11020)                                 \
  X(cuMemPoolSetAttribute, 11020)                            \
  X(cuMemPoolGetAttribute, 11020)                            \
  X(cuMemPoolTrimTo, 11020)                                  \
  X(cuMemPoolSetAccess, 11020)                               \
  X(cuDeviceGetDefaultMemPool, 11020)                        \
  X(cuMemHostAlloc, 2020)                                    \
  X(cuMemFreeHost, 2000)                                     \
  X(cuMemAllocManaged, 6000)                                 \
  X(cuMemcpyAsync, 4000)                                     \
  X(cuMemcpyPeerAsync, 4000)                                 \
  X(cuMemsetD32Async, 3020)                                  \
  X(cuPointerGetAttribute, 4000)                             \
  X(cuLaunchKernelEx, 11060)                                 \
  X(cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags, 7000) \
  X(cuOccupancyMaxPotentialBlockSize, 6050)                  \
  X(cuOccupancyMaxActiveClusters, 11070)                     \
  X(cuLibraryLoadData, 12000)                                \
  X(cuLibraryUnload, 12000)                                  \
  X(cuLibraryGetKernel, 12000)                               \
  X(cuLibraryGetModule, 12000)                               \
  X(cuKernelGetFunction, 12000)                              \
  X(cuKernelSetAttribute, 12000)                             \
  X(cuTensorMapEncodeTiled, 12000)

/// Functions newer than CUDA 12.0, requested in the ABI of the version in their PFN_ name
/// and left null when the driver is older: X(name, version). Their users check for null and
/// say which driver version they need (see require()).
#define CUTLET_DRIVER_OPTIONAL_FUNCTIONS(X) \
  X(cuFuncGetName, 12030)                   \
  X(cuDeviceGetDevResource, 12040)          \
  X(cuDevSmResourceSplitByCount, 12040)     \
  X(cuDevResourceGenerateDesc, 12040)       \
  X(cuGreenCtxCreate, 12040)                \
  X(cuGreenCtxDestroy, 12040)               \
  X(cuCtxFromGreenCtx, 12040)               \
  X(cuGreenCtxStreamCreate, 12050)

/// Pointers to the resolved driver functions; all required ones non-null once loaded, the
/// optional ones null when the driver predates them.
struct DriverApi {
  PFN_cuGetProcAddress_v12000 cuGetProcAddress = nullptr;
#define CUTLET_DRIVER_MEMBER(name, version) PFN_##name##_v##version name = nullptr;
  CUTLET_DRIVER_FUNCTIONS(CUTLET_DRIVER_MEMBER)
  CUTLET_DRIVER_OPTIONAL_FUNCTIONS(CUTLET_DRIVER_MEMBER)
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

/// Throws Error saying that `what` needs the driver function `name` of CUDA `version`
/// (1000*major + 10*minor), which this driver lacks. Used when an optional entry is null.
[[noreturn]] void throw_missing_driver_function(const char* what, const char* name, int version);

/// Returns `fn` (an optional entry of DriverApi) when it is not null; otherwise throws as
/// throw_missing_driver_function does.
template <class Fn>
Fn require(Fn fn, const char* what, const char* name, int version) {
  if (!fn) [[unlikely]]
    throw_missing_driver_function(what, name, version);
  return fn;
}

/// Throws CudaError naming `call` unless `result` is CUDA_SUCCESS.
inline void check(CUresult result, const char* call) {
  if (result != CUDA_SUCCESS) [[unlikely]]
    throw_cuda_error(result, call);
}

}  // namespace cutlet::detail
