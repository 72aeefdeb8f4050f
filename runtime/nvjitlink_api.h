// Internal: nvJitLink's entry points, from the library opened on first use (toolkit_library.h).
#pragma once

#include <nvJitLink.h>

namespace cutlet::detail {

// The functions cutlet calls. (The header may map each name to a versioned symbol; the
// members and the symbols looked up follow it.)
#define CUTLET_NVJITLINK_FUNCTIONS(X)                                                                     \
  X(nvJitLinkCreate) X(nvJitLinkDestroy) X(nvJitLinkAddData) X(nvJitLinkComplete)                        \
  X(nvJitLinkGetLinkedCubinSize) X(nvJitLinkGetLinkedCubin) X(nvJitLinkGetErrorLogSize) X(nvJitLinkGetErrorLog) \
  X(nvJitLinkGetInfoLogSize) X(nvJitLinkGetInfoLog) X(nvJitLinkVersion)

/// Pointers to nvJitLink's functions, each named as the function.
struct NvJitLinkApi {
#define CUTLET_NVJITLINK_MEMBER(f) decltype(&::f) f = nullptr;
  CUTLET_NVJITLINK_FUNCTIONS(CUTLET_NVJITLINK_MEMBER)
#undef CUTLET_NVJITLINK_MEMBER
};

/// nvJitLink, opened and resolved on the first call. Throws cutlet::Error naming the library
/// and what to install when it is not there.
const NvJitLinkApi& nvjitlink();
/// Whether nvJitLink opens.
bool nvjitlink_available();

}  // namespace cutlet::detail
