// three_way_partition: splits a buffer (of numbers or of user structs) by two user predicates
// into the items the first selects, the items the second selects of the rest, and the others,
// each part in input order, in one pass with decoupled look-back over the tiles' pairs of
// counts (CUB's DevicePartition::If with two predicates).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "cutlet/algorithms/detail/call_range.h"
#include "cutlet/algorithms/detail/compaction.h"
#include "cutlet/algorithms/detail/held.h"
#include "cutlet/algorithms/detail/host_checks.h"
#include "cutlet/algorithms/detail/lookback.h"
#include "cutlet/algorithms/element.h"
#include "cutlet/algorithms/operators.h"
#include "cutlet/algorithms/select.h"
#include "cutlet/algorithms/workspace.h"
#include "cutlet/error.h"
#include "cutlet/jit/kernel.h"
#include "cutlet/language/control.h"
#include "cutlet/language/index.h"
#include "cutlet/language/math.h"
#include "cutlet/language/memory.h"
#include "cutlet/language/pointer.h"
#include "cutlet/runtime/buffer.h"
#include "cutlet/runtime/launch.h"
#include "cutlet/runtime/stream.h"

namespace cutlet::algorithms {

/// What three_way_partition put where: `first` items in the first part, `second` in the
/// second, `unselected` in the third (first + second + unselected = n).
struct PartitionCounts {
  std::size_t first = 0;
  std::size_t second = 0;
  std::size_t unselected = 0;
};

namespace detail {

/// One tile of three_way_partition, in one block, as select_tile_body with two selections: an
/// item goes to the first part where first(x), else to the second where second(x), else to
/// the unselected part. Each warp ranks both selections with ballots; warp 0 scans the rows'
/// pairs of counts and takes the tile's pair of offsets from the tiles before it (look-back
/// over PackedU62Status); an unselected item's rank is its position in the tile less the
/// selected items before it. The block puts the tile's items in shared memory in part order
/// (first, second, unselected) and copies each part out with coalesced stores. The last tile
/// writes the two selected counts to num_selected[0] and [1]. T a struct: the buffers are its
/// words, its items read one a lane (load_buffer_tile) and staged as words.
template <class T, class First, class Second>
void partition_tile_body(const Ptr<storage_t<T>>& first_out, const Ptr<storage_t<T>>& second_out,
                         const Ptr<storage_t<T>>& unselected_out, const Ptr<std::int32_t>& num_selected,
                         const Ptr<storage_t<T>>& in, const i32& n, const Ptr<std::uint32_t>& counter,
                         const Ptr<std::uint64_t>& words) {
  constexpr int V = tile_lanes<T>();
  constexpr int kWarps = kSelectBlock / warp_size;
  constexpr int kRows = kSelectVectors * kWarps;
  auto rows = shared_array<std::uint64_t>(kRows);
  auto row_prefix = shared_array<std::uint64_t>(kRows);
  auto tile_offsets = shared_array<std::uint64_t>(1);
  auto tile_counts = shared_array<std::uint64_t>(1);
  SharedHeld<T> staged(kSelectTile<T>);
  const PackedU62Status status{words};
  i32 tid = thread_idx().x;
  i32 lane = tid & 31;
  i32 warp = tid >> 5;

  i32 tile = take_tile(counter);
  i32 tile_start = tile * kSelectTile<T>;
  i32 tile_end = tile_start + kSelectTile<T>;
  const TileItems<T> t = load_buffer_tile<T>(in, n, tile, tid, tile_end <= n);
  const First first{};
  const Second second{};
  std::vector<Value<bool>> to_first;
  std::vector<Value<bool>> to_second;
  for (std::size_t i = 0; i < t.items.size(); ++i) {
    Value<bool> f = call_pred<T>(first, t.items[i]);
    Value<bool> s = call_pred<T>(second, t.items[i]);
    to_first.push_back(f & t.valid[i]);
    to_second.push_back(!f & s & t.valid[i]);
  }
  const RowRanks first_ranks = row_ranks<kSelectVectors, V>(to_first);
  const RowRanks second_ranks = row_ranks<kSelectVectors, V>(to_second);
  if_(lane == 0, [&] {
    for (int k = 0; k < kSelectVectors; ++k) {
      const auto row = static_cast<std::size_t>(k);
      rows[k * kWarps + warp] = pack_count_pair(first_ranks.total[row], second_ranks.total[row]);
    }
  });
  syncthreads();

  if_(warp == 0, [&] {
    Value<std::uint64_t> aggregate = scan_rows<kRows, std::uint64_t>(plus{}, rows, row_prefix, u64(0));
    Value<std::uint64_t> exclusive = tile_exclusive_prefix<std::uint64_t>(plus{}, status, tile, aggregate, u64(0));
    if_(lane == 0, [&] {
      tile_offsets[0] = exclusive;
      tile_counts[0] = aggregate;
      if_(tile_end >= n, [&] {
        Value<std::uint64_t> all = exclusive + aggregate;
        num_selected[0] = first_of_pair(all);
        num_selected[1] = second_of_pair(all);
      });
    });
  });
  syncthreads();

  Value<std::uint64_t> counts = tile_counts[0].load();
  i32 first_count = first_of_pair(counts);
  i32 selected_count = first_count + second_of_pair(counts);
  for (int k = 0; k < kSelectVectors; ++k) {
    const auto row = static_cast<std::size_t>(k);
    Value<std::uint64_t> before = row_prefix[k * kWarps + warp].load();
    i32 firsts_before = first_of_pair(before) + first_ranks.below[row];
    i32 seconds_before = second_of_pair(before) + second_ranks.below[row];
    i32 position = t.first[row] - tile_start;  // of item (k, 0) in the tile
    for (int j = 0; j < V; ++j) {
      const auto i = static_cast<std::size_t>(k * V + j);
      i32 slot = select(to_first[i], firsts_before,
                        select(to_second[i], first_count + seconds_before,
                               selected_count + position + j - firsts_before - seconds_before));
      if_(t.valid[i], [&] { staged.store(slot, t.items[i]); });
      firsts_before = firsts_before + cast<std::int32_t>(to_first[i]);
      seconds_before = seconds_before + cast<std::int32_t>(to_second[i]);
    }
  }
  syncthreads();
  // Where item i of the staged tile goes in its part's output (kept as indices, not as
  // pointers offset below the buffers' starts).
  Value<std::uint64_t> offsets = tile_offsets[0].load();
  i32 first_base = first_of_pair(offsets);
  i32 second_base = second_of_pair(offsets) - first_count;
  i32 unselected_base = tile_start - first_of_pair(offsets) - second_of_pair(offsets) - selected_count;
  i32 items = min(n - tile_start, i32(kSelectTile<T>));
  for_range(tid, items, kSelectBlock, [&](i32 i) {
    held_t<T> x = staged.load(i);
    if_(i < first_count, [&] { store_held<T>(first_out, first_base + i, x); },
        [&] {
          if_(i < selected_count, [&] { store_held<T>(second_out, second_base + i, x); },
              [&] { store_held<T>(unselected_out, unselected_base + i, x); });
        });
  });
}

/// Makes three_way_partition's kernel for (T, First, Second).
template <class T, class First, class Second>
auto make_three_way_partition_kernel() {
  return cutlet::kernel(
      [](Ptr<storage_t<T>> first_out, Ptr<storage_t<T>> second_out, Ptr<storage_t<T>> unselected_out,
         Ptr<std::int32_t> num_selected, Ptr<storage_t<T>> in, i32 n, Ptr<std::uint32_t> counter,
         Ptr<std::uint64_t> words) {
        partition_tile_body<T, First, Second>(first_out, second_out, unselected_out, num_selected, in, n, counter,
                                              words);
      },
      {.name = std::string("cutlet_three_way_partition_") + held_name<T>()});
}

}  // namespace detail

/// The kernel of three_way_partition for element type T (a number or a StructElement) and
/// predicate types First and Second (made at the first use, then shared), for inspection and
/// compiling ahead.
template <ElementOrStruct T, class First, class Second>
  requires UnaryPredicate<First, T> && UnaryPredicate<Second, T>
auto& three_way_partition_kernel() {
  static auto k = detail::make_three_way_partition_kernel<T, First, Second>();
  return k;
}

/// Bytes of temporary storage three_way_partition needs for `n` elements of T (for
/// Workspace::borrow): select_workspace_bytes<T>(n).
template <ElementOrStruct T>
std::size_t three_way_partition_workspace_bytes(std::size_t n) {
  return select_workspace_bytes<T>(n);
}

/// Splits the items x of `in` (n = in.size()) into three parts, each in input order (stable):
/// those with select_first(x) go to first_out[0, a); of the rest, those with select_second(x)
/// to second_out[0, b); the others to unselected_out[0, n - a - b). Sets num_selected[0] = a
/// and num_selected[1] = b; the outputs past their parts are left alone. Each predicate is
/// applied once to every item. Queued on `stream` in one kernel launch (after a memset of the
/// tile status), without host synchronization: select_if's tiles, with a pair of counts per
/// tile in the look-back.
///
/// T may be a user struct (a StructElement), the predicates then taking a Struct<T>: the
/// structs are read as select_if reads them (one a lane, warp-striped, kSelectTile<T> a
/// tile), staged in shared memory as their words and stored word by word.
///
/// Each output holds at least n elements (any split may come); they are distinct buffers that
/// do not overlap `in` or one another. `num_selected` holds at least two. All are of the
/// stream's device, `in` 16-byte aligned (8- or 16-byte structs aligned to their size). At
/// most kSelectMaxCount elements. Temporary storage (three_way_partition_workspace_bytes)
/// comes from `workspace`. Throws cutlet::Error for bad arguments.
template <ElementOrStruct T, class First, class Second>
  requires UnaryPredicate<First, T> && UnaryPredicate<Second, T>
void three_way_partition(const Stream& stream, const Buffer<T>& in, Buffer<T>& first_out, Buffer<T>& second_out,
                         Buffer<T>& unselected_out, Buffer<std::int32_t>& num_selected, First select_first,
                         Second select_second, const Workspace& workspace = {}) {
  (void)select_first;
  (void)select_second;
  const char* name = "three_way_partition";
  const auto range = detail::call_range<T>(name);
  detail::check_size(num_selected.size(), 2, name, "count");
  detail::check_device(num_selected.device(), stream, name, "count");
  const std::int32_t n = detail::checked_count(in.size(), kSelectMaxCount, name);
  if (n == 0) {
    detail::zero_bytes(stream, num_selected.data(), 2 * sizeof(std::int32_t));
    return;
  }
  const std::pair<const Buffer<T>*, const char*> outputs[] = {
      {&first_out, "first-part output"}, {&second_out, "second-part output"}, {&unselected_out, "unselected output"}};
  for (const auto& [out, out_name] : outputs) {
    detail::check_size(out->size(), static_cast<std::size_t>(n), name, out_name);
    detail::check_device(out->device(), stream, name, out_name);
    detail::check_disjoint(*out, in, name, out_name, "input");
  }
  detail::check_disjoint(first_out, second_out, name, "first-part output", "second-part output");
  detail::check_disjoint(first_out, unselected_out, name, "first-part output", "unselected output");
  detail::check_disjoint(second_out, unselected_out, name, "second-part output", "unselected output");
  detail::check_disjoint(num_selected, in, name, "count", "input");
  detail::check_device(in.device(), stream, name, "input");
  detail::check_tile_aligned<T>(in.data(), name, "input");
  const long long tiles = ceil_div(n, kSelectTile<T>);
  detail::PackedLookback lb = detail::packed_lookback(stream, workspace, tiles, name);
  three_way_partition_kernel<T, First, Second>().launch(
      stream, {.grid = tiles, .block = kSelectBlock}, detail::storage_view(first_out), detail::storage_view(second_out),
      detail::storage_view(unselected_out), num_selected, detail::storage_view(in), n, lb.counter, lb.words);
}

/// As three_way_partition, returning the three parts' sizes to the host: waits for the
/// stream (the one host synchronization), with the counts from the stream's device default
/// pool.
template <ElementOrStruct T, class First, class Second>
  requires UnaryPredicate<First, T> && UnaryPredicate<Second, T>
PartitionCounts three_way_partition(const Stream& stream, const Buffer<T>& in, Buffer<T>& first_out,
                                    Buffer<T>& second_out, Buffer<T>& unselected_out, First select_first,
                                    Second select_second, const Workspace& workspace = {}) {
  Buffer<std::int32_t> counts(2, stream);
  three_way_partition(stream, in, first_out, second_out, unselected_out, counts, select_first, select_second,
                      workspace);
  if (in.empty()) return {};
  const std::vector<std::int32_t> h = counts.to_host(stream);
  const auto a = static_cast<std::size_t>(h[0]);
  const auto b = static_cast<std::size_t>(h[1]);
  return PartitionCounts{a, b, in.size() - a - b};
}

}  // namespace cutlet::algorithms
