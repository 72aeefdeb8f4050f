// The profiler range around an algorithm call.
#pragma once

#include "cutlet/algorithms/element.h"
#include "cutlet/scoped_range.h"

namespace cutlet::algorithms::detail {

/// The NVTX range "cutlet algorithm <algorithm> <element type>" (ScopedRange) around one call
/// of an algorithm on elements of T: its checks, temporary storage, first-call compiles and
/// launches, not the GPU's work, which runs later on the stream.
template <class T>
cutlet::detail::ScopedRange call_range(const char* algorithm) {
  if constexpr (StructElement<T>) return cutlet::detail::ScopedRange{"algorithm", algorithm, "struct"};
  else return cutlet::detail::ScopedRange{"algorithm", algorithm, element_name<T>()};
}

}  // namespace cutlet::algorithms::detail
