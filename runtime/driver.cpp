// Loads libcuda.so.1 with dlopen, resolves the driver entry points and initialises the driver.
#include "cutlet/runtime/driver.h"

#include <dlfcn.h>

#include <mutex>
#include <string>

#include "context_fault.h"
#include "driver_api.h"

namespace cutlet {
namespace detail {

std::atomic<const DriverApi*> g_driver_api{nullptr};

namespace {

constexpr const char* kNoDriverTail =
    "; cutlet can still trace and compile kernels, but launching needs an NVIDIA GPU and its "
    "driver";

/// The outcome of the one attempt to load the driver.
struct LoadResult {
  DriverApi api;
  bool ok = false;
  std::string failure;  ///< The NoDriverError message when !ok.
};

std::string result_text(const DriverApi& api, CUresult r) {
  const char* name = nullptr;
  const char* text = nullptr;
  if (api.cuGetErrorName) api.cuGetErrorName(r, &name);
  if (api.cuGetErrorString) api.cuGetErrorString(r, &text);
  std::string s = name ? name : "CUresult " + std::to_string(static_cast<int>(r));
  if (text) s += std::string(" (") + text + ")";
  return s;
}

LoadResult try_load() {
  LoadResult out;
  // The handle is never closed: the driver stays loaded for the life of the process.
  void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char* why = dlerror();
    out.failure = std::string("no CUDA driver found: libcuda.so.1 could not be loaded (") +
                  (why ? why : "unknown reason") + ")" + kNoDriverTail;
    return out;
  }
  DriverApi& api = out.api;
  api.cuGetProcAddress =
      reinterpret_cast<PFN_cuGetProcAddress_v12000>(dlsym(lib, "cuGetProcAddress_v2"));
  if (!api.cuGetProcAddress) {
    out.failure =
        "no CUDA driver found: libcuda.so.1 was loaded but has no cuGetProcAddress_v2, so the "
        "driver is older than CUDA 12.0; install a newer NVIDIA driver" +
        std::string(kNoDriverTail);
    return out;
  }
  std::string missing;
  auto resolve = [&](const char* name, void** slot) {
    CUdriverProcAddressQueryResult found = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    CUresult r =
        api.cuGetProcAddress(name, slot, kDriverAbiVersion, CU_GET_PROC_ADDRESS_DEFAULT, &found);
    if (r != CUDA_SUCCESS || found != CU_GET_PROC_ADDRESS_SUCCESS || !*slot) {
      *slot = nullptr;
      missing += missing.empty() ? name : std::string(", ") + name;
    }
  };
#define CUTLET_RESOLVE(name, version) resolve(#name, reinterpret_cast<void**>(&api.name));
  CUTLET_DRIVER_FUNCTIONS(CUTLET_RESOLVE)
#undef CUTLET_RESOLVE
#define CUTLET_RESOLVE_OPTIONAL(name, version)                                                    \
  {                                                                                               \
    CUdriverProcAddressQueryResult found = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;                  \
    void* fn = nullptr;                                                                           \
    if (api.cuGetProcAddress(#name, &fn, version, CU_GET_PROC_ADDRESS_DEFAULT, &found) ==         \
            CUDA_SUCCESS &&                                                                       \
        found == CU_GET_PROC_ADDRESS_SUCCESS)                                                     \
      api.name = reinterpret_cast<decltype(api.name)>(fn);                                        \
  }
  CUTLET_DRIVER_OPTIONAL_FUNCTIONS(CUTLET_RESOLVE_OPTIONAL)
#undef CUTLET_RESOLVE_OPTIONAL
  if (!missing.empty()) {
    out.failure = "no CUDA driver found: libcuda.so.1 was loaded but lacks " + missing +
                  "; install a newer NVIDIA driver" + kNoDriverTail;
    return out;
  }
  if (CUresult r = api.cuInit(0); r != CUDA_SUCCESS) {
    out.failure = "no CUDA driver found: libcuda.so.1 was loaded but cuInit(0) failed with " +
                  result_text(api, r) +
                  " (is a GPU visible? check CUDA_VISIBLE_DEVICES and nvidia-smi)" + kNoDriverTail;
    return out;
  }
  if (CUresult r = api.cuDriverGetVersion(&api.version); r != CUDA_SUCCESS) {
    out.failure = "no CUDA driver found: cuDriverGetVersion failed with " + result_text(api, r) +
                  kNoDriverTail;
    return out;
  }
  out.ok = true;
  return out;
}

/// The single load attempt, made on first use; thread-safe by the rules for local statics.
/// Deliberately never destroyed, so destructors running at exit can still reach the driver.
const LoadResult& load_result() {
  static const LoadResult* result = new LoadResult(try_load());
  return *result;
}

}  // namespace

const DriverApi& load_driver() {
  const LoadResult& r = load_result();
  if (!r.ok) throw NoDriverError(r.failure);
  g_driver_api.store(&r.api, std::memory_order_release);
  return r.api;
}

void throw_missing_driver_function(const char* what, const char* name, int version) {
  const int have = g_driver_api.load(std::memory_order_acquire)
                       ? g_driver_api.load(std::memory_order_acquire)->version
                       : 0;
  throw Error(std::string(what) + " needs the driver function " + name + " of CUDA " +
              std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10) +
              ", which this driver (CUDA " + std::to_string(have / 1000) + "." +
              std::to_string(have % 1000 / 10) + ") lacks; install a newer NVIDIA driver");
}

void throw_cuda_error(CUresult result, std::string call, const std::string& hint) {
  if (is_sticky(result)) {
    // A kernel fault: poisons the primary context that is current here, and names the launch.
    throw_fault_in_current_context(result, call);
    throw CudaError(static_cast<int>(result), std::move(call),
                    "a kernel launched earlier faulted; the error is sticky, so the GPU context is "
                    "unusable until Device::reset() makes a fresh one (run under compute-sanitizer "
                    "to find the faulting access)");
  }
  throw CudaError(static_cast<int>(result), std::move(call), hint);
}

}  // namespace detail

bool driver_available() noexcept {
  try {
    return detail::load_result().ok;
  } catch (...) {  // std::bad_alloc while formatting a failure message
    return false;
  }
}

int driver_version() { return detail::driver().version; }

void* driver_entry_point(const char* name, int cuda_version) {
  const detail::DriverApi& api = detail::driver();
  if (!name || !*name) throw Error("driver_entry_point: empty function name");
  void* fn = nullptr;
  CUdriverProcAddressQueryResult found = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
  CUresult r = api.cuGetProcAddress(name, &fn, cuda_version, CU_GET_PROC_ADDRESS_DEFAULT, &found);
  if (r != CUDA_SUCCESS || found != CU_GET_PROC_ADDRESS_SUCCESS || !fn) {
    std::string why = found == CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT
                          ? "it needs a newer CUDA version than " + std::to_string(cuda_version)
                          : "no such function (give the base name, e.g. \"cuMemAlloc\", not "
                            "\"cuMemAlloc_v2\")";
    throw Error(std::string("driver_entry_point: the CUDA driver (version ") +
                std::to_string(api.version) + ") has no entry point '" + name + "' for CUDA " +
                std::to_string(cuda_version) + ": " + why);
  }
  return fn;
}

}  // namespace cutlet
