// segmented_radix_sort_keys and segmented_radix_sort_pairs: each segment of a buffer sorted on
// its own (CUB's DeviceSegmentedRadixSort), by two stable radix sorts of item indices, the
// first by key, the second by segment, and a gather.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <string>

#include "cutlet/algorithms/detail/call_range.h"
#include "cutlet/algorithms/detail/host_checks.h"
#include "cutlet/algorithms/detail/launch_shape.h"
#include "cutlet/algorithms/detail/radix_digits.h"
#include "cutlet/algorithms/detail/sorted_search.h"
#include "cutlet/algorithms/detail/workspace_alignment.h"
#include "cutlet/algorithms/element.h"
#include "cutlet/algorithms/iterators.h"
#include "cutlet/algorithms/operators.h"
#include "cutlet/algorithms/radix_sort.h"
#include "cutlet/algorithms/transform.h"
#include "cutlet/algorithms/workspace.h"
#include "cutlet/jit/kernel.h"
#include "cutlet/language/control.h"
#include "cutlet/language/index.h"
#include "cutlet/language/pointer.h"
#include "cutlet/runtime/buffer.h"
#include "cutlet/runtime/stream.h"

namespace cutlet::algorithms {

/// Threads per block of the segmented sort's labelling kernel.
inline constexpr int kSegmentedSortBlock = 256;
/// The most keys, and segments, the segmented sorts take (their kernels hold positions and
/// segment numbers in i32, with room for a grid's stride past the end).
inline constexpr std::int64_t kSegmentedRadixSortMaxCount = (std::int64_t{1} << 30) - 1;

namespace detail {

/// Labels item i of n for the segmented sort: its segment among the num_segments segments
/// [offsets[s], offsets[s + 1]) (the last s with offsets[s] <= i, by binary search; offsets
/// non-decreasing) as group[i] = s + 1, or 0 before offsets[0] and num_segments + 1 from
/// offsets[num_segments] on; sort_bits[i] = its key's ordered bits xor `flip` inside a
/// segment, 0 outside (so that the stable sort by them keeps the items outside every segment
/// in their order); index[i] = i.
template <class K>
void segmented_sort_label_body(const Ptr<RadixBits<K>>& sort_bits, const Ptr<std::uint32_t>& group,
                               const Ptr<std::int32_t>& index, const Ptr<K>& keys, const i32& n,
                               const Ptr<std::int32_t>& offsets, const i32& num_segments,
                               const Value<RadixBits<K>>& flip) {
  using U = RadixBits<K>;
  for_range(block_idx().x * kSegmentedSortBlock + thread_idx().x, n, grid_dim().x * kSegmentedSortBlock, [&](i32 i) {
    // 0: before every segment; s + 1: in segment s; num_segments + 1: after.
    i32 g = count_not_above<std::int32_t>(i, offsets, num_segments + 1);
    Value<bool> inside = (g > 0) & (g <= num_segments);
    sort_bits[i] = select(inside, ordered_bits<K>(keys[i].load(), flip), Value<U>(U{0}));
    group[i] = cast<std::uint32_t>(g);
    index[i] = i;
  });
}

/// Makes the labelling kernel for keys of K.
template <class K>
auto make_segmented_sort_label_kernel() {
  return cutlet::kernel(
      [](Ptr<RadixBits<K>> sort_bits, Ptr<std::uint32_t> group, Ptr<std::int32_t> index, Ptr<K> keys, i32 n,
         Ptr<std::int32_t> offsets, i32 num_segments, Value<RadixBits<K>> flip) {
        segmented_sort_label_body<K>(sort_bits, group, index, keys, n, offsets, num_segments, flip);
      },
      {.name = std::string("cutlet_segmented_sort_label_") + element_name<K>()});
}

/// Byte offsets in the segmented sort's temporary storage, each 256-byte aligned: the sort
/// bits and their sorted copy (n of the key's width each), the groups and the gathered groups
/// (n u32 each), two index arrays (n i32 each), then the storage of the radix sorts (`sorts`,
/// the larger of the two).
struct SegmentedSortLayout {
  std::size_t bits = 0, sorted_bits = 0, group = 0, sorted_group = 0, index = 0, sorted_index = 0, sorts = 0;
  std::size_t total_bytes = 0;
};
template <class K>
SegmentedSortLayout segmented_sort_layout(std::size_t n) {
  using U = RadixBits<K>;
  SegmentedSortLayout l;
  l.sorted_bits = align_workspace(n * sizeof(U));
  l.group = l.sorted_bits + align_workspace(n * sizeof(U));
  l.sorted_group = l.group + align_workspace(n * 4);
  l.index = l.sorted_group + align_workspace(n * 4);
  l.sorted_index = l.index + align_workspace(n * 4);
  l.sorts = l.sorted_index + align_workspace(n * 4);
  const std::size_t sorts = std::max(radix_sort_workspace_bytes<U>(n, sizeof(std::int32_t)),
                                     radix_sort_workspace_bytes<std::uint32_t>(n, sizeof(std::int32_t)));
  l.total_bytes = l.sorts + align_workspace(sorts);
  return l;
}

/// The segmented sort: keys (and values, where Pairs) of keys_in gathered into keys_out in the
/// order of the two sorts.
template <bool Pairs, class K, class V>
void launch_segmented_sort(const Stream& stream, const Buffer<K>& keys_in, Buffer<K>& keys_out,
                           const Buffer<V>* values_in, Buffer<V>* values_out, const Buffer<std::int32_t>& offsets,
                           const RadixSortOptions& options, const Workspace& workspace, const char* algorithm) {
  using U = RadixBits<K>;
  const auto range = call_range<K>(algorithm);
  radix_passes(options.begin_bit, options.end_bit, static_cast<int>(8 * sizeof(K)), algorithm);  // checks the bits
  const std::int32_t n = checked_count(keys_in.size(), kSegmentedRadixSortMaxCount, algorithm);
  if (offsets.size() == 0)
    throw Error(std::string("cutlet::algorithms::") + algorithm +
                ": the offsets buffer is empty; give num_segments + 1 offsets (a single segment: {0, n})");
  const std::int32_t segments = checked_count(offsets.size() - 1, kSegmentedRadixSortMaxCount, algorithm, "segments");
  if (n == 0) return;
  const auto count = static_cast<std::size_t>(n);
  check_size(keys_out.size(), count, algorithm, "keys output");
  check_device(keys_in.device(), stream, algorithm, "keys input");
  check_device(keys_out.device(), stream, algorithm, "keys output");
  check_device(offsets.device(), stream, algorithm, "offsets");
  check_disjoint(keys_out.data(), count * sizeof(K), keys_in.data(), count * sizeof(K), algorithm, "keys output",
                 "keys input");
  if constexpr (Pairs) {
    check_size(values_in->size(), count, algorithm, "values input");
    check_size(values_out->size(), count, algorithm, "values output");
    check_device(values_in->device(), stream, algorithm, "values input");
    check_device(values_out->device(), stream, algorithm, "values output");
    check_disjoint(values_out->data(), count * sizeof(V), values_in->data(), count * sizeof(V), algorithm,
                   "values output", "values input");
  }
  const Device device = stream.device();
  const SegmentedSortLayout layout = segmented_sort_layout<K>(count);
  Scratch scratch = acquire(workspace, stream, layout.total_bytes, algorithm);
  const std::uint64_t base = scratch.address();
  auto bits = Buffer<U>::wrap(base + layout.bits, count, device);
  auto sorted_bits = Buffer<U>::wrap(base + layout.sorted_bits, count, device);
  auto group = Buffer<std::uint32_t>::wrap(base + layout.group, count, device);
  auto sorted_group = Buffer<std::uint32_t>::wrap(base + layout.sorted_group, count, device);
  auto index = Buffer<std::int32_t>::wrap(base + layout.index, count, device);
  auto sorted_index = Buffer<std::int32_t>::wrap(base + layout.sorted_index, count, device);
  const DeviceMemory sort_memory = DeviceMemory::wrap(base + layout.sorts, layout.total_bytes - layout.sorts, device);
  const Workspace sorts = Workspace::borrow(sort_memory);

  static auto label = make_segmented_sort_label_kernel<K>();
  const U flip = options.descending ? kRadixKeyMask<K> : U{0};
  const int grid = streaming_grid(device, n, kSegmentedSortBlock, 8);
  label.launch(stream, {.grid = grid, .block = kSegmentedSortBlock}, bits, group, index, keys_in, n, offsets,
               segments, flip);
  // By key (stably; the items outside every segment all equal), then by group (stably: each
  // segment's items keep their key order, the others their input order).
  // Narrow keys' bits are the low 8 * sizeof(K) of their U: only those are sorted by.
  const int end_bit = options.end_bit < 0 ? static_cast<int>(8 * sizeof(K)) : options.end_bit;
  radix_sort_pairs(stream, bits, sorted_bits, index, sorted_index,
                   RadixSortOptions{.begin_bit = options.begin_bit, .end_bit = end_bit}, sorts);
  transform(stream, permutation_iterator(group, sorted_index), count, sorted_group, identity{});
  const int group_bits = std::bit_width(static_cast<std::uint32_t>(segments) + 1u);
  radix_sort_pairs(stream, sorted_group, group, sorted_index, index, RadixSortOptions{.end_bit = group_bits}, sorts);
  transform(stream, permutation_iterator(keys_in, index), count, keys_out, identity{});
  if constexpr (Pairs) transform(stream, permutation_iterator(*values_in, index), count, *values_out, identity{});
}

}  // namespace detail

/// Sorts each of the num_segments = offsets.size() - 1 segments [offsets[s], offsets[s + 1])
/// of keys_in on its own into the same positions of keys_out, in radix_sort_keys's order
/// (options as there: descending, begin_bit, end_bit), stably. Keys before offsets[0] and from
/// offsets[num_segments] on are copied to keys_out unsorted, in their order. The offsets must
/// be non-decreasing and within [0, n] (otherwise the segments are unspecified, but no access
/// goes outside the buffers); empty segments are allowed.
///
/// Not one sort per segment: two stable radix sorts of item indices, first by key (the keys
/// outside every segment all taken as equal), then by segment, and a gather of the keys (about
/// the cost of two radix sorts of n pairs, whatever the segments). Queued on `stream` without
/// host synchronization. `keys_out` holds at least n keys and does not overlap `keys_in`; all
/// buffers of the stream's device. At most kSegmentedRadixSortMaxCount keys and segments. Temporary
/// storage (segmented_radix_sort_workspace_bytes) comes from `workspace`. Throws cutlet::Error
/// for bad arguments.
template <Element K>
void segmented_radix_sort_keys(const Stream& stream, const Buffer<K>& keys_in, Buffer<K>& keys_out,
                               const Buffer<std::int32_t>& offsets, const RadixSortOptions& options = {},
                               const Workspace& workspace = {}) {
  detail::launch_segmented_sort<false, K, K>(stream, keys_in, keys_out, nullptr, nullptr, offsets, options, workspace,
                                             "segmented_radix_sort_keys");
}

/// As segmented_radix_sort_keys, moving values_in[i] along with keys_in[i] (values of an
/// element type or a user struct). `values_out` holds at least n values and does not overlap
/// `values_in`.
template <Element K, ElementOrStruct V>
void segmented_radix_sort_pairs(const Stream& stream, const Buffer<K>& keys_in, Buffer<K>& keys_out,
                                const Buffer<V>& values_in, Buffer<V>& values_out, const Buffer<std::int32_t>& offsets,
                                const RadixSortOptions& options = {}, const Workspace& workspace = {}) {
  detail::launch_segmented_sort<true, K, V>(stream, keys_in, keys_out, &values_in, &values_out, offsets, options,
                                            workspace, "segmented_radix_sort_pairs");
}

/// Bytes of temporary storage the segmented sorts need for `n` keys of K (for
/// Workspace::borrow), whatever the segments and values.
template <Element K>
std::size_t segmented_radix_sort_workspace_bytes(std::size_t n) {
  return n == 0 ? 0 : detail::segmented_sort_layout<K>(n).total_bytes;
}

}  // namespace cutlet::algorithms
