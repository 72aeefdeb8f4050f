// Internal: NVRTC's entry points, from the library opened on first use (toolkit_library.h).
#pragma once

#include <nvrtc.h>

namespace cutlet::detail {

// The functions cutlet calls (named as nvrtc.h names them).
#define CUTLET_NVRTC_FUNCTIONS(X)                                                                          \
  X(nvrtcCreateProgram) X(nvrtcDestroyProgram) X(nvrtcAddNameExpression) X(nvrtcCompileProgram)           \
  X(nvrtcGetPTXSize) X(nvrtcGetPTX) X(nvrtcGetCUBINSize) X(nvrtcGetCUBIN) X(nvrtcGetLTOIRSize) X(nvrtcGetLTOIR) \
  X(nvrtcGetLoweredName) X(nvrtcGetProgramLogSize) X(nvrtcGetProgramLog) X(nvrtcGetErrorString) X(nvrtcVersion)

/// Pointers to NVRTC's functions, each named as the function.
struct NvrtcApi {
#define CUTLET_NVRTC_MEMBER(f) decltype(&::f) f = nullptr;
  CUTLET_NVRTC_FUNCTIONS(CUTLET_NVRTC_MEMBER)
#undef CUTLET_NVRTC_MEMBER
};

/// NVRTC, opened and resolved on the first call. Throws cutlet::Error naming the library and
/// what to install when it is not there.
const NvrtcApi& nvrtc();

}  // namespace cutlet::detail
