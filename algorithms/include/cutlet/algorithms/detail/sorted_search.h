// The binary search the algorithms' kernels share: where a value falls in a sorted array
// (histogram_range's levels, the segmented sort's segment offsets).
#pragma once

#include <cstdint>

#include "cutlet/language/control.h"
#include "cutlet/language/math.h"
#include "cutlet/language/value.h"

namespace cutlet::algorithms::detail {

/// The number of elements of sorted[0, count) that are at most x: the index of the first one
/// above x, or count when none is. `sorted` is anything indexed by i32 whose elements load()
/// (a Ptr, a SharedPtr), in non-decreasing order (otherwise the result is some index in
/// [0, count], never one outside). Traced inside a kernel; about log2(count) loads.
template <class T, class Sorted>
i32 count_not_above(const Value<T>& x, const Sorted& sorted, const i32& count) {
  Var<std::int32_t> lo = 0;  // the first element above x lies in [lo, hi)
  Var<std::int32_t> hi = count;
  while_([&] { return lo.get() < hi.get(); }, [&] {
    i32 mid = (lo.get() + hi.get()) >> 1;
    Value<bool> above = sorted[mid].load() > x;
    hi = select(above, mid, hi.get());
    lo = select(above, lo.get(), mid + 1);
  });
  return lo.get();
}

}  // namespace cutlet::algorithms::detail
