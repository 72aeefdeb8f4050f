// run_length_encode: the runs of equal consecutive items, as their first items, lengths and
// number (CUB's DeviceRunLengthEncode::Encode), in one pass with decoupled look-back over the
// tiles' run counts and last run starts.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "cutlet/algorithms/detail/call_range.h"
#include "cutlet/algorithms/detail/compaction.h"
#include "cutlet/algorithms/detail/host_checks.h"
#include "cutlet/algorithms/detail/lookback.h"
#include "cutlet/algorithms/detail/scan_layout.h"
#include "cutlet/algorithms/element.h"
#include "cutlet/algorithms/operators.h"
#include "cutlet/algorithms/select.h"
#include "cutlet/algorithms/workspace.h"
#include "cutlet/jit/kernel.h"
#include "cutlet/language/control.h"
#include "cutlet/language/index.h"
#include "cutlet/language/math.h"
#include "cutlet/language/memory.h"
#include "cutlet/language/pointer.h"
#include "cutlet/language/warp.h"
#include "cutlet/runtime/buffer.h"
#include "cutlet/runtime/stream.h"

namespace cutlet::algorithms {

namespace detail {

/// What run_length_encode carries from tile to tile, in one u64: the number of run heads
/// (low half) and one past the position of the last of them (high half; 0: none). Combining
/// adds the counts and keeps the later head: associative and commutative, identity 0.
struct HeadsAndLast {
  u64 operator()(const u64& a, const u64& b) const {
    u64 count = (a & 0xffffffffu) + (b & 0xffffffffu);
    u64 last = cutlet::max(a >> 32, b >> 32);
    return (last << 32) | count;
  }
  static u64 pack(const u32& last_plus_one, const i32& count) {
    return (cast<std::uint64_t>(last_plus_one) << 32) | cast<std::uint64_t>(cast<std::uint32_t>(count));
  }
  static i32 count_of(const u64& c) { return cast<std::int32_t>(cast<std::uint32_t>(c)); }
  static u32 last_of(const u64& c) { return cast<std::uint32_t>(c >> 32); }
};

/// One tile of run_length_encode, in one block: the tile's items and run heads as unique's;
/// besides each head's rank (the run's index), the position of the head before it (the run
/// before), from the same thread, the lane below (a ballot and a shuffle), the rows before
/// (warp 0's scan of the rows' (count, last head) pairs) or the tiles before (look-back over
/// the pairs, SplitTileStatus of u64). A head at position p of run r > 0 writes the length of
/// run r - 1, p - (that head's position); the last tile writes the last run's length and the
/// number of runs.
template <class T, class Eq>
void run_length_encode_tile_body(const Ptr<T>& unique_out, const Ptr<std::int32_t>& lengths,
                                 const Ptr<std::int32_t>& num_runs, const Ptr<T>& in, const i32& n,
                                 const Ptr<std::uint32_t>& counter, const Ptr<std::uint32_t>& flags,
                                 const Ptr<std::uint64_t>& aggregates, const Ptr<std::uint64_t>& prefixes) {
  const Eq eq{};
  const HeadsAndLast pair{};
  constexpr int V = kVectorLanes<T>;
  constexpr int kWarps = kSelectBlock / warp_size;
  constexpr int kRows = kSelectVectors * kWarps;
  auto rows = shared_array<std::uint64_t>(kRows);
  auto row_prefix = shared_array<std::uint64_t>(kRows);
  auto tile_offset = shared_array<std::uint64_t>(1);
  const SplitTileStatus<std::uint64_t> status{flags, aggregates, prefixes};
  i32 tid = thread_idx().x;
  i32 lane = tid & 31;
  i32 warp = tid >> 5;

  i32 tile = take_tile(counter);
  i32 tile_end = (tile + 1) * kSelectTile<T>;
  const TileItems<T> t = load_tile_items<kSelectBlock, kSelectVectors>(in, n, tile, tid, tile_end <= n);
  const std::vector<Value<bool>> heads = run_heads<kSelectVectors>(eq, in, t);
  const RowRanks ranks = row_ranks<kSelectVectors, V>(heads);

  // Per group: one past its last head (0: none), the same of the nearest lane below with a
  // head, and of the warp's whole row.
  u32 lanes_below = (u32(1u) << cast<std::uint32_t>(lane)) - 1u;
  std::vector<u32> below_last, row_last;
  for (int k = 0; k < kSelectVectors; ++k) {
    u32 last = 0u;
    for (int j = 0; j < V; ++j)
      last = select(heads[static_cast<std::size_t>(k * V + j)], cast<std::uint32_t>(t.first[k] + j + 1), last);
    u32 lower = ballot_sync(full_mask, last != 0u) & lanes_below;
    i32 source = select(lower != 0u, 31 - clz(lower), lane);
    u32 from_lower = shfl_sync(full_mask, last, source);
    below_last.push_back(select(lower != 0u, from_lower, 0u));
    row_last.push_back(reduce_max_sync(full_mask, last));
  }
  if_(lane == 0, [&] {
    for (int k = 0; k < kSelectVectors; ++k) {
      const auto kk = static_cast<std::size_t>(k);
      rows[k * kWarps + warp] = HeadsAndLast::pack(row_last[kk], ranks.total[kk]);
    }
  });
  syncthreads();

  if_(warp == 0, [&] {
    u64 aggregate = scan_rows<kRows, std::uint64_t>(pair, rows, row_prefix, u64(std::uint64_t{0}));
    u64 exclusive = tile_exclusive_prefix<std::uint64_t>(pair, status, tile, aggregate, u64(std::uint64_t{0}));
    if_(lane == 0, [&] {
      tile_offset[0] = exclusive;
      if_(tile_end >= n, [&] {
        u64 total = pair(exclusive, aggregate);
        i32 runs = HeadsAndLast::count_of(total);
        num_runs[0] = runs;
        lengths[runs - 1] = n + 1 - cast<std::int32_t>(HeadsAndLast::last_of(total));
      });
    });
  });
  syncthreads();

  u64 before_tile = tile_offset[0];
  for (int k = 0; k < kSelectVectors; ++k) {
    const auto kk = static_cast<std::size_t>(k);
    u64 before_row = row_prefix[k * kWarps + warp];
    i32 r = HeadsAndLast::count_of(before_tile) + HeadsAndLast::count_of(before_row) + ranks.below[kk];
    u32 previous = cutlet::max(cutlet::max(HeadsAndLast::last_of(before_tile), HeadsAndLast::last_of(before_row)),
                               below_last[kk]);
    for (int j = 0; j < V; ++j) {
      const auto i = static_cast<std::size_t>(k * V + j);
      i32 position = t.first[k] + j;
      if_(heads[i], [&] {
        unique_out[r] = t.items[i];
        if_(r > 0, [&] { lengths[r - 1] = position + 1 - cast<std::int32_t>(previous); });
      });
      previous = select(heads[i], cast<std::uint32_t>(position + 1), previous);
      r = r + cast<std::int32_t>(heads[i]);
    }
  }
}

/// Makes run_length_encode's kernel for (T, Eq).
template <class T, class Eq>
auto make_run_length_encode_kernel() {
  return cutlet::kernel(
      [](Ptr<T> unique_out, Ptr<std::int32_t> lengths, Ptr<std::int32_t> num_runs, Ptr<T> in, i32 n,
         Ptr<std::uint32_t> counter, Ptr<std::uint32_t> flags, Ptr<std::uint64_t> aggregates,
         Ptr<std::uint64_t> prefixes) {
        run_length_encode_tile_body<T, Eq>(unique_out, lengths, num_runs, in, n, counter, flags, aggregates,
                                           prefixes);
      },
      {.name = std::string("cutlet_run_length_encode_") + element_name<T>()});
}

}  // namespace detail

/// The kernel of run_length_encode for element type T and equality type Eq (made at the first
/// use, then shared), for inspection and compiling ahead.
template <Element T, class Eq = equal_to>
  requires BinaryPredicate<Eq, T>
auto& run_length_encode_kernel() {
  static auto k = detail::make_run_length_encode_kernel<T, Eq>();
  return k;
}

/// Bytes of temporary storage run_length_encode needs for `n` elements of T (for
/// Workspace::borrow): a tile counter, and a u32 flag and two u64 (count, last head) pairs per
/// tile of kSelectTile<T>.
template <Element T>
std::size_t run_length_encode_workspace_bytes(std::size_t n) {
  if (n == 0) return 0;
  return detail::scan_layout(static_cast<std::int64_t>((n + kSelectTile<T> - 1) / kSelectTile<T>),
                             sizeof(std::uint64_t))
      .total_bytes;
}

/// The runs of consecutive equal items of `in` (n = in.size()), as unique gives them: for
/// run r < m, unique_out[r] is its first item and lengths[r] its length; num_runs[0] = m.
/// Entries from m on are left alone. `eq` as for unique (default ==; each NaN a run of its
/// own). Queued on `stream` in one kernel launch (after a memset of the tile status), without
/// host synchronization: unique's tiles, where each run head also learns where the run before
/// it started, and writes that run's length.
///
/// `unique_out` and `lengths` hold at least n elements, `num_runs` at least one; all of the
/// stream's device, `in` 16-byte aligned. At most kSelectMaxCount elements. Temporary storage
/// (run_length_encode_workspace_bytes) comes from `workspace`. Throws cutlet::Error for bad
/// arguments.
template <Element T, class Eq = equal_to>
  requires BinaryPredicate<Eq, T>
void run_length_encode(const Stream& stream, const Buffer<T>& in, Buffer<T>& unique_out,
                       Buffer<std::int32_t>& lengths, Buffer<std::int32_t>& num_runs, Eq eq = {},
                       const Workspace& workspace = {}) {
  const auto range = detail::call_range<T>("run_length_encode");
  const char* name = "run_length_encode";
  const long long tiles = detail::compaction_tiles(stream, in, unique_out, num_runs, kSelectTile<T>, name, "run count");
  if (tiles == 0) return;
  detail::check_size(lengths.size(), in.size(), name, "lengths");
  detail::check_device(lengths.device(), stream, name, "lengths");
  const detail::ScanLayout layout = detail::scan_layout(tiles, sizeof(std::uint64_t));
  detail::Scratch scratch = detail::acquire(workspace, stream, layout.total_bytes, name);
  detail::zero_bytes(stream, scratch.address(), layout.zeroed_bytes);
  const Device device = stream.device();
  const auto tile_count = static_cast<std::size_t>(tiles);
  const auto counter = Buffer<std::uint32_t>::wrap(scratch.address() + layout.counter, 1, device);
  const auto flags = Buffer<std::uint32_t>::wrap(scratch.address() + layout.flags, tile_count, device);
  const auto aggregates = Buffer<std::uint64_t>::wrap(scratch.address() + layout.aggregates, tile_count, device);
  const auto prefixes = Buffer<std::uint64_t>::wrap(scratch.address() + layout.prefixes, tile_count, device);
  run_length_encode_kernel<T, Eq>().launch(stream, {.grid = tiles, .block = kSelectBlock}, unique_out, lengths,
                                           num_runs, in, static_cast<std::int32_t>(in.size()), counter, flags,
                                           aggregates, prefixes);
}

/// As run_length_encode, returning m to the host: waits for the stream (the one host
/// synchronization).
template <Element T, class Eq = equal_to>
  requires BinaryPredicate<Eq, T>
std::size_t run_length_encode(const Stream& stream, const Buffer<T>& in, Buffer<T>& unique_out,
                              Buffer<std::int32_t>& lengths, Eq eq = {}, const Workspace& workspace = {}) {
  Buffer<std::int32_t> count(1, stream);
  run_length_encode(stream, in, unique_out, lengths, count, eq, workspace);
  return static_cast<std::size_t>(count.to_host(stream)[0]);
}

}  // namespace cutlet::algorithms
