// The merge sort's passes and temporary storage layout (detail/merge_sort_layout.h).
#include "cutlet/algorithms/detail/merge_sort_layout.h"

#include "cutlet/algorithms/detail/workspace_alignment.h"

namespace cutlet::algorithms::detail {

int merge_sort_passes(std::int64_t n, std::int64_t tile) {
  int passes = 0;
  for (std::int64_t width = tile; width < n; width *= 2) ++passes;
  return passes;
}

MergeSortLayout merge_sort_layout(std::int64_t n, std::int64_t tile, std::size_t key_bytes, std::size_t value_bytes) {
  MergeSortLayout l;
  if (merge_sort_passes(n, tile) == 0) return l;
  const auto count = static_cast<std::size_t>(n);
  const auto tiles = static_cast<std::size_t>((n + tile - 1) / tile);
  l.keys = 0;
  l.values = align_workspace(count * key_bytes);
  l.splits = l.values + align_workspace(count * value_bytes);
  l.total_bytes = l.splits + align_workspace(tiles * sizeof(std::int32_t));
  return l;
}

}  // namespace cutlet::algorithms::detail
