// The merge passes of merge_sort_keys and merge_sort_pairs and their temporary storage: the
// alternate key and value buffers and each pass's merge-path splits.
#pragma once

#include <cstddef>
#include <cstdint>

namespace cutlet::algorithms::detail {

/// The merge passes after the block sort of `n` items in tiles of `tile`: one per doubling of
/// the sorted run length from `tile` until it reaches n (0 when n <= tile).
int merge_sort_passes(std::int64_t n, std::int64_t tile);

/// Byte offsets in a merge sort's temporary storage, each 256-byte aligned: the alternate
/// buffers of `keys` and `values` (none without values) the passes write between input and
/// output, and `splits`, an i32 per tile, where each output tile of a pass starts in its
/// first run. Nothing needs zeroing. total_bytes is 0 when the sort has no merge pass.
struct MergeSortLayout {
  std::size_t keys = 0;
  std::size_t values = 0;
  std::size_t splits = 0;
  std::size_t total_bytes = 0;
};

/// The layout for `n` keys of `key_bytes` and values of `value_bytes` (0: none) in tiles of
/// `tile`.
MergeSortLayout merge_sort_layout(std::int64_t n, std::int64_t tile, std::size_t key_bytes, std::size_t value_bytes);

}  // namespace cutlet::algorithms::detail
