// Combining a thread's values pairwise, for instruction-level parallelism.
#pragma once

#include <utility>
#include <vector>

#include "cutlet/algorithms/element.h"

namespace cutlet::algorithms::detail {

/// v[0] op v[1] op ... op v[n-1] (n >= 1), grouped as a balanced tree of neighbours: the order
/// of the operands is kept, their grouping is not sequential.
template <class T, class Op>
held_t<T> tree_reduce(const Op& op, std::vector<held_t<T>> v) {
  while (v.size() > 1) {
    std::vector<held_t<T>> next;
    for (std::size_t i = 0; i + 1 < v.size(); i += 2) next.push_back(call_op<T>(op, v[i], v[i + 1]));
    if (v.size() % 2 == 1) next.push_back(v.back());
    v = std::move(next);
  }
  return v[0];
}

}  // namespace cutlet::algorithms::detail
