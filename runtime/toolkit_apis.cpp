// nvJitLink and NVRTC opened with dlopen on first use: their file names (soname first, then
// the build's toolkit) come from the build (CUTLET_NVJITLINK_FILES, CUTLET_NVRTC_FILES).
#include <string>

#include "nvjitlink_api.h"
#include "nvrtc_api.h"
#include "toolkit_library.h"

#define CUTLET_STRINGIFY2(x) #x
#define CUTLET_STRINGIFY(x) CUTLET_STRINGIFY2(x)

namespace cutlet::detail {
namespace {

const ToolkitLibrary& nvjitlink_library() {
  static const ToolkitLibrary lib("nvJitLink", "linking PTX into cubins", {CUTLET_NVJITLINK_FILES});
  return lib;
}

const ToolkitLibrary& nvrtc_library() {
  static const ToolkitLibrary lib("NVRTC", "compiling CUDA C++ with Program", {CUTLET_NVRTC_FILES});
  return lib;
}

}  // namespace

const NvJitLinkApi& nvjitlink() {
  static const NvJitLinkApi api = [] {
    NvJitLinkApi a;
#define CUTLET_RESOLVE(f) a.f = reinterpret_cast<decltype(a.f)>(nvjitlink_library().symbol(CUTLET_STRINGIFY(f)));
    CUTLET_NVJITLINK_FUNCTIONS(CUTLET_RESOLVE)
#undef CUTLET_RESOLVE
    return a;
  }();
  return api;
}

bool nvjitlink_available() { return nvjitlink_library().available(); }

const NvrtcApi& nvrtc() {
  static const NvrtcApi api = [] {
    NvrtcApi a;
#define CUTLET_RESOLVE(f) a.f = reinterpret_cast<decltype(a.f)>(nvrtc_library().symbol(CUTLET_STRINGIFY(f)));
    CUTLET_NVRTC_FUNCTIONS(CUTLET_RESOLVE)
#undef CUTLET_RESOLVE
    return a;
  }();
  return api;
}

}  // namespace cutlet::detail
