// NVTX ranges (see scoped_range.h): nvtx3 is header-only and loads a profiler's injection
// library only when one is attached (NVTX_INJECTION64_PATH), so cutlet links nothing for it.
#include "cutlet/scoped_range.h"

#include <atomic>
#include <string>

#ifndef CUTLET_HAVE_NVTX
#define CUTLET_HAVE_NVTX 0  // set by the build: 1 when it found the toolkit's nvtx3 headers
#endif
#if CUTLET_HAVE_NVTX
#include <nvtx3/nvToolsExt.h>
#endif

namespace cutlet::detail {
namespace {
std::atomic<RangeObserver> g_observer{nullptr};

#if CUTLET_HAVE_NVTX
/// NVTX initialises itself on its first call, rewriting its table of function pointers
/// without synchronisation: threads opening their first ranges at once would race on it.
/// Done once here, under a function-local static, every later call only reads the table.
void initialize_nvtx_once() {
  static const bool done = (nvtxInitialize(nullptr), true);
  (void)done;
}
#endif
}  // namespace

ScopedRange::ScopedRange(std::initializer_list<std::string_view> words) {
  const RangeObserver observer = g_observer.load(std::memory_order_acquire);
  if (!CUTLET_HAVE_NVTX && !observer) return;
  std::string name = "cutlet";
  for (std::string_view w : words)
    if (!w.empty()) {
      name += ' ';
      name += w;
    }
  if (observer) observer(name);
#if CUTLET_HAVE_NVTX
  initialize_nvtx_once();
  nvtxRangePushA(name.c_str());
  pushed_ = true;
#endif
}

ScopedRange::~ScopedRange() {
#if CUTLET_HAVE_NVTX
  if (pushed_) nvtxRangePop();
#endif
}

RangeObserver set_range_observer(RangeObserver observer) {
  return g_observer.exchange(observer, std::memory_order_acq_rel);
}

bool nvtx_ranges_built() { return CUTLET_HAVE_NVTX; }

}  // namespace cutlet::detail
