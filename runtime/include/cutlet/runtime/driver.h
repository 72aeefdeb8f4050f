// Whether the CUDA driver is present, its version, and raw access to its entry points.
#pragma once

namespace cutlet {

/// True when the CUDA driver is usable: libcuda.so.1 was loaded with dlopen, it provides
/// every entry point cutlet uses, and cuInit(0) succeeded. The first call loads the driver
/// (once per process, thread-safe); later calls only read the cached answer. Never throws.
bool driver_available() noexcept;

/// The driver's CUDA version as cuDriverGetVersion reports it (1000*major + 10*minor,
/// e.g. 13000 for CUDA 13.0). Throws NoDriverError without a driver.
int driver_version();

/// The raw address of the driver function `name`, given by its base name (e.g.
/// "cuLaunchKernel", not "cuLaunchKernel_v2"), in the ABI version of CUDA `cuda_version`
/// (1000*major + 10*minor). The default 12000 matches the entry points cutlet itself uses;
/// pass CUDA_VERSION from your own cuda.h to match its PFN_ typedefs. For interoperation and
/// baselines. Throws NoDriverError without a driver, and Error when the driver has no such
/// function for that version.
void* driver_entry_point(const char* name, int cuda_version = 12000);

}  // namespace cutlet
