// A traced value that may be absent, and the user operator over such values: the algorithms'
// operators have no identity element, so threads, lanes and tiles without data hold "absent".
#pragma once

#include <cstdint>

#include "cutlet/algorithms/detail/held.h"
#include "cutlet/algorithms/element.h"
#include "cutlet/language/value.h"
#include "cutlet/language/warp.h"

namespace cutlet::algorithms::detail {

/// A value of T (a Struct<T> for a struct) and whether it is there; `value` is meaningless
/// when `present` is false.
template <class T>
struct Maybe {
  held_t<T> value;
  Value<bool> present;
};

/// `first op second` where `first` comes first in sequence order; the present one alone when
/// the other is absent, absent when both are. The operator is applied (and its result
/// discarded) whatever is present: no branch.
template <class T, class Op>
Maybe<T> combine(const Op& op, const Maybe<T>& first, const Maybe<T>& second) {
  held_t<T> both = call_op<T>(op, first.value, second.value);
  held_t<T> value = select(first.present, select(second.present, both, first.value), second.value);
  return Maybe<T>{value, first.present | second.present};
}

/// The Maybe of lane (lane_id + delta); lanes past 31 get their own (`__shfl_down_sync`).
template <class T>
Maybe<T> shfl_down(const Maybe<T>& m, int delta) {
  held_t<T> value = shfl_down_held<T>(m.value, delta);
  i32 present = shfl_down_sync(full_mask, cast<std::int32_t>(m.present), delta);
  return Maybe<T>{value, present != 0};
}

}  // namespace cutlet::algorithms::detail
