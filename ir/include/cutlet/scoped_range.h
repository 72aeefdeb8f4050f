// Profiler ranges (NVTX) around cutlet's stages: tracing, each IR pass, LLVM, nvJitLink,
// module loads, autotuning trials and algorithm calls, for Nsight Systems. Includes no NVTX
// header.
#pragma once

#include <initializer_list>
#include <string_view>

namespace cutlet::detail {

/// An NVTX range named "cutlet" followed by `words` (empty ones left out), separated by
/// spaces: ScopedRange{"pass", "assign-layouts", "saxpy"} is "cutlet pass assign-layouts
/// saxpy". It is pushed on this thread when constructed and popped when destroyed, so ranges
/// nest as the scopes do. Without a profiler attached (nsys, ncu) NVTX's calls return at once:
/// a range then costs building its name and two calls that do nothing, while the stages it
/// marks take milliseconds. In a build without NVTX (no nvtx3 headers, or -DCUTLET_NVTX=OFF)
/// only the range observer sees ranges.
class ScopedRange {
 public:
  ScopedRange(std::initializer_list<std::string_view> words);
  ~ScopedRange();
  ScopedRange(const ScopedRange&) = delete;
  ScopedRange& operator=(const ScopedRange&) = delete;

 private:
  bool pushed_ = false;
};

/// Called with the name of every range as it opens, on the opening thread.
using RangeObserver = void (*)(std::string_view name);

/// Installs `observer` for every ScopedRange of the process (nullptr removes it); returns the
/// previous one. For tests and tools that check which stages ran.
RangeObserver set_range_observer(RangeObserver observer);

/// True when this build of cutlet emits NVTX ranges (it found the nvtx3 headers).
bool nvtx_ranges_built();

}  // namespace cutlet::detail
