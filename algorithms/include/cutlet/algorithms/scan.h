// inclusive_scan and exclusive_scan with a user operator: a single-pass scan with decoupled
// look-back (Merrill and Garland, "Single-pass Parallel Prefix Scan with Decoupled Look-back").
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "cutlet/algorithms/detail/call_range.h"
#include "cutlet/algorithms/detail/host_checks.h"
#include "cutlet/algorithms/detail/iterator_kernel.h"
#include "cutlet/algorithms/detail/lookback.h"
#include "cutlet/algorithms/detail/maybe.h"
#include "cutlet/algorithms/detail/scan_layout.h"
#include "cutlet/algorithms/detail/warp_block.h"
#include "cutlet/algorithms/element.h"
#include "cutlet/algorithms/iterators.h"
#include "cutlet/algorithms/workspace.h"
#include "cutlet/jit/kernel.h"
#include "cutlet/language/atomic.h"
#include "cutlet/language/control.h"
#include "cutlet/language/index.h"
#include "cutlet/language/math.h"
#include "cutlet/language/memory.h"
#include "cutlet/language/pointer.h"
#include "cutlet/language/vector.h"
#include "cutlet/language/warp.h"
#include "cutlet/runtime/buffer.h"
#include "cutlet/runtime/launch.h"
#include "cutlet/runtime/stream.h"

namespace cutlet::algorithms {

/// Threads per block of the scan kernel; one block per tile.
inline constexpr int kScanBlock = 256;

namespace detail {

/// Items of a lane in one row of a scan tile: a 16-byte vector of a scalar, one struct.
template <class T>
constexpr int scan_lanes() {
  if constexpr (StructElement<T>) return 1;
  else return kVectorLanes<T>;
}

}  // namespace detail

/// Elements per thread: four 16-byte vectors (16 of 4 bytes, 8 of 8 bytes), so that a tile
/// of 2^28 floats is one of 65536 and a block's fixed costs (its tile counter, two barriers,
/// the look-back) are shared by 4096 elements; of a struct, 4 up to 16 bytes and 2 beyond
/// (their words held in registers).
template <ElementOrStruct T>
inline constexpr int kScanItems = StructElement<T> ? (sizeof(T) <= 16 ? 4 : 2) : 4 * detail::scan_lanes<T>();
/// Elements per tile.
template <ElementOrStruct T>
inline constexpr int kScanTile = kScanBlock * kScanItems<T>;
/// The most elements the scans take.
inline constexpr std::int64_t kScanMaxCount = std::int64_t{1} << 40;
/// Elements one launch of a scan takes (its kernel counts them in 32 bits): larger inputs go
/// in chunks of this many, each starting from the total of the chunks before.
inline constexpr std::int64_t kScanChunk = std::int64_t{1} << 30;

namespace detail {

/// Where a block's tile of a scan lies and which of its items this thread holds: the next tile
/// in the order blocks started (take_tile), warp w holding the tile's w-th run of kWarpItems
/// elements as kVectors rows of kRow, and in row k lane l the V consecutive elements at
/// k * kRow + l * V (one 16-byte vector of T), so that every warp load is coalesced. Traced:
/// every thread of the block makes one (take_tile synchronizes the block).
template <class T>
struct ScanTileSpan {
  static constexpr int V = scan_lanes<T>();              ///< items of a lane in a row
  static constexpr int kItems = kScanItems<T>;           ///< items of a thread
  static constexpr int kTile = kScanTile<T>;             ///< elements of a tile
  static constexpr int kVectors = kItems / V;            ///< rows of a warp
  static constexpr int kRow = warp_size * V;             ///< elements of a row
  static constexpr int kWarpItems = warp_size * kItems;  ///< elements of a warp's run

  i32 lane;
  i32 warp;
  i32 tile;        ///< this block's tile
  i32 warp_first;  ///< the first element of this warp's run
  i32 mine;        ///< this lane's first element of row 0
  i32 tile_end;    ///< the element after the tile

  explicit ScanTileSpan(const Ptr<std::uint32_t>& counter)
      : lane(thread_idx().x & 31),
        warp(thread_idx().x >> 5),
        tile(take_tile(counter)),
        warp_first(tile * kTile + warp * kWarpItems),
        mine(warp_first + lane * V),
        tile_end(tile * kTile + kTile) {}

  /// The element of item j of row k (this thread's item k * V + j).
  i32 index(int k, int j) const { return mine + k * kRow + j; }
};

/// Steps 3 to 6 of a scan tile (scan_tile_body), for values of any type C the operator
/// combines: `items` are the thread's kItems values, kVectors rows of V (row k lane l holding
/// the V consecutive items at k * 32 * V + l * V of its warp's run); returns what the scan
/// gives for each, in the same order. Each row is scanned across the warp (shuffles), the
/// rows in order, the warps' totals through shared memory; warp 0 publishes the tile's
/// aggregate and takes its exclusive prefix from the tiles before it (look_back), tile 0
/// starting from `init` (exclusive) or, for a chunk of a longer scan (`chained`), from
/// carry_in[0]. The tile that ends the input (`last_tile`) writes the running total to
/// carry_out[0]. Every thread of the block calls it.
template <bool Exclusive, class C, class Op, int V, class Status>
std::vector<held_t<C>> scan_tile_results(const std::vector<held_t<C>>& items, const i32& tile,
                                         const Value<bool>& last_tile, const held_t<C>& init, const Status& status,
                                         const Ptr<storage_t<C>>& carry_in, const Ptr<storage_t<C>>& carry_out,
                                         const Value<bool>& chained) {
  const Op op{};
  constexpr int kWarps = kScanBlock / warp_size;
  const int kVectors = static_cast<int>(items.size()) / V;  // rows per warp
  SharedHeld<C> warp_totals(kWarps);
  SharedHeld<C> tile_prefix(1);
  i32 tid = thread_idx().x;
  i32 lane = tid & 31;
  i32 warp = tid >> 5;

  // 3. Each row scanned across the warp, in row order: before[k] is what comes before the
  // lane's first item of row k within the warp's run (the rows before, the lanes before).
  Maybe<C> rows_before{items[0], Value<bool>(false)};
  std::vector<Maybe<C>> before;
  for (int k = 0; k < kVectors; ++k) {
    held_t<C> lane_total = items[static_cast<std::size_t>(k * V)];
    for (int j = 1; j < V; ++j) lane_total = call_op<C>(op, lane_total, items[static_cast<std::size_t>(k * V + j)]);
    held_t<C> inclusive = warp_inclusive_scan<C>(op, lane_total);
    held_t<C> lanes_before = shfl_up_held<C>(inclusive, 1);
    before.push_back(combine(op, rows_before, Maybe<C>{lanes_before, lane > 0}));
    held_t<C> row_total = shfl_idx_held<C>(inclusive, warp_size - 1);
    rows_before = combine(op, rows_before, Maybe<C>{row_total, Value<bool>(true)});
  }
  held_t<C> warp_total = rows_before.value;  // present: every row has a total

  // 4. Block scan of the warps' totals, in order.
  if_(lane == 0, [&] { warp_totals.store(warp, warp_total); });
  syncthreads();
  held_t<C> running = warp_totals.load(0);  // warps 0..w
  held_t<C> warp_prefix = running;           // warps before this one (for warp > 0)
  for (int w = 1; w < kWarps; ++w) {
    running = call_op<C>(op, running, warp_totals.load(w));
    if (w < kWarps - 1) warp_prefix = select(warp > w, running, warp_prefix);
  }
  held_t<C> aggregate = running;

  // 5. Publish and look back (warp 0); the last tile keeps the running total for the next chunk.
  if_(warp == 0, [&] {
    HeldVar<C> inclusive;
    if_(tile == 0,
        [&] {
          held_t<C> start = select(chained, load_held<C>(carry_in, 0), init);
          if_(lane == 0, [&] {
            if constexpr (Exclusive) inclusive = call_op<C>(op, start, aggregate);
            else inclusive = select(chained, call_op<C>(op, start, aggregate), aggregate);
            tile_prefix.store(0, start);
            status.publish(0, kTilePrefix, inclusive.get());
          });
        },
        [&] {
          held_t<C> exclusive = look_back<C>(op, status, tile, aggregate);
          if_(lane == 0, [&] {
            tile_prefix.store(0, exclusive);
            inclusive = call_op<C>(op, exclusive, aggregate);
          });
        });
    if_((lane == 0) & last_tile, [&] { store_held<C>(carry_out, 0, inclusive.get()); });
  });
  syncthreads();

  // 6. Everything before each row's first item, then the results in order.
  Value<bool> tile_has_prefix = Exclusive ? Value<bool>(true) : Value<bool>((tile > 0) | chained);
  Maybe<C> warp_carry = combine(op, Maybe<C>{tile_prefix.load(0), tile_has_prefix}, Maybe<C>{warp_prefix, warp > 0});
  std::vector<held_t<C>> results;
  for (int k = 0; k < kVectors; ++k) {
    Maybe<C> carry = combine(op, warp_carry, before[static_cast<std::size_t>(k)]);
    const auto first_item = static_cast<std::size_t>(k * V);
    if constexpr (Exclusive) {
      held_t<C> r = carry.value;  // present: init at least
      for (int j = 0; j < V; ++j) {
        results.push_back(r);
        if (j + 1 < V) r = call_op<C>(op, r, items[first_item + static_cast<std::size_t>(j)]);
      }
    } else {
      held_t<C> r = select(carry.present, call_op<C>(op, carry.value, items[first_item]), items[first_item]);
      results.push_back(r);
      for (int j = 1; j < V; ++j) {
        r = call_op<C>(op, r, items[first_item + static_cast<std::size_t>(j)]);
        results.push_back(r);
      }
    }
  }
  return results;
}

/// Stores a tile's `results` (scan_tile_results' order) to out: the thread's kVectors rows
/// as 16-byte vectors at `mine` + k * 32 * V for a whole tile, one element at a time below
/// `n` for the last.
template <class T, int V>
void store_scan_results(const Ptr<storage_t<T>>& out, const i32& mine, const Value<bool>& whole_tile, const i32& n,
                        const std::vector<held_t<T>>& results) {
  const int kVectors = static_cast<int>(results.size()) / V;
  if constexpr (StructElement<T>) {
    // One struct a lane a row (V is 1), stored where the tile is whole or below n.
    for (int k = 0; k < kVectors; ++k) {
      i32 i = mine + k * warp_size;
      if_(whole_tile | (i < n), [&] { store_held<T>(out, i, results[static_cast<std::size_t>(k)]); });
    }
  } else {
    if_(whole_tile,
        [&] {
          Ptr<T> p = out + mine;
          for (int k = 0; k < kVectors; ++k) {
            Vec<T, V> v = Vec<T, V>::splat(0);
            for (int j = 0; j < V; ++j) v = v.with(j, results[static_cast<std::size_t>(k * V + j)]);
            p.template vstore<V>(k * warp_size, v);
          }
        },
        [&] {
          for (int k = 0; k < kVectors; ++k)
            for (int j = 0; j < V; ++j) {
              i32 i = mine + k * warp_size * V + j;
              if_(i < n, [&] { out[i] = results[static_cast<std::size_t>(k * V + j)]; });
            }
        });
  }
}

/// One tile of the scan, in one block. The block takes the next tile id from an atomic
/// counter (take_tile), loads kScanItems<T> elements per thread as four 16-byte vectors
/// warp-striped (each load instruction of a warp reads 512 consecutive bytes), scans them
/// (scan_tile_results: each row of a warp with shuffles, the rows in order, the warps' totals
/// through shared memory), and takes the tile's exclusive prefix from the tiles before it
/// (look_back, by warp 0). `status` is the tiles' status: for 4-byte elements one u64 word
/// per tile, the flag (invalid, aggregate, prefix) packed with the value (PackedTileStatus,
/// one round trip per look); for 8-byte ones a u32 flag with the values in arrays of their
/// own, the tile's reduction and the reduction of tiles 0..t (SplitTileStatus), as one 64-bit
/// word cannot hold such a value with its flag.
///
/// Exclusive: the scan starts from `init`, which tile 0 puts in front of its prefix.
/// Out-of-range items of the last tile are never stored; a valid result depends only on the
/// items before it, all valid.
///
/// A chunk of a longer scan (`chained`) starts from carry_in[0] instead, the total of the
/// chunks before it (and of init): tile 0 puts it in front of its prefix. The last tile writes
/// the total of the chunk and of everything before it to carry_out[0].
template <bool Exclusive, class T, class Op, class Status>
void scan_tile_body(const Ptr<T>& out, const Ptr<T>& in, const i32& n, const Value<T>& init,
                    const Ptr<std::uint32_t>& counter, const Status& status, const Ptr<T>& carry_in,
                    const Ptr<T>& carry_out, const Value<bool>& chained) {
  using Span = ScanTileSpan<T>;
  constexpr int V = Span::V;
  // 1. This block's tile (the next one in the order blocks started), and this thread's items.
  const Span at(counter);

  // 2. The items, warp-striped (ScanTileSpan) so that every load is coalesced.
  Var<T> item[Span::kItems];  // [k * V + j]
  if_(at.tile_end <= n,
      [&] {
        Ptr<T> p = in + at.mine;
        for (int k = 0; k < Span::kVectors; ++k) {
          Vec<T, V> v = p.template vload<V>(k * warp_size);
          for (int j = 0; j < V; ++j) item[k * V + j] = v[j];
        }
      },
      [&] {
        for (int k = 0; k < Span::kVectors; ++k)
          for (int j = 0; j < V; ++j) if_(at.index(k, j) < n, [&] { item[k * V + j] = in[at.index(k, j)].load(); });
      });
  std::vector<Value<T>> items;
  for (int j = 0; j < Span::kItems; ++j) items.push_back(item[j].get());

  // 3 to 6. The scan of the items, and the results in order.
  std::vector<Value<T>> results = scan_tile_results<Exclusive, T, Op, V>(items, at.tile, at.tile_end >= n, init,
                                                                          status, carry_in, carry_out, chained);
  store_scan_results<T, V>(out, at.mine, at.tile_end <= n, n, results);
}

/// One tile of the scan of the elements of iterator It (with kernel parameters `p`) from
/// element `base`: as scan_tile_body, but the items are read one at a time through the
/// iterator (It::read, traced here: nothing is read that the scan does not use), all of a
/// whole tile's in flight together.
template <bool Exclusive, class T, class Op, class It, class Status>
void scan_iterator_tile_body(const Ptr<storage_t<T>>& out, const i32& n, const i64& base, const held_t<T>& init,
                             const Ptr<std::uint32_t>& counter, const Status& status,
                             const Ptr<storage_t<T>>& carry_in, const Ptr<storage_t<T>>& carry_out,
                             const Value<bool>& chained, const typename It::Params& p) {
  using Span = ScanTileSpan<T>;
  constexpr int V = Span::V;
  const Span at(counter);
  HeldVar<T> item[Span::kItems];  // [k * V + j]: element at.index(k, j)
  auto read = [&](int k, int j) { return held_t<T>(It::read(p, base + cast<std::int64_t>(at.index(k, j)))); };
  if_(at.tile_end <= n,
      [&] {
        for (int k = 0; k < Span::kVectors; ++k)
          for (int j = 0; j < V; ++j) item[k * V + j] = read(k, j);
      },
      [&] {
        for (int k = 0; k < Span::kVectors; ++k)
          for (int j = 0; j < V; ++j) if_(at.index(k, j) < n, [&] { item[k * V + j] = read(k, j); });
      });
  std::vector<held_t<T>> items;
  for (int j = 0; j < Span::kItems; ++j) items.push_back(item[j].get());
  std::vector<held_t<T>> results = scan_tile_results<Exclusive, T, Op, V>(items, at.tile, at.tile_end >= n, init,
                                                                           status, carry_in, carry_out, chained);
  store_scan_results<T, V>(out, at.mine, at.tile_end <= n, n, results);
}

/// Whether the scans of T pack each tile's status into one u64 word (PackedTileStatus): 4-byte
/// scalars.
template <class T>
inline constexpr bool kScanPacksStatus = sizeof(T) == 4 && !StructElement<T>;

/// Makes the scan kernel for (Exclusive, T, Op): parameters (out, in, n, init, carry_in,
/// carry_out, chained, counter, words) with a packed status, (..., counter, flags, aggregates,
/// prefixes) without.
template <bool Exclusive, class T, class Op>
auto make_scan_kernel() {
  const KernelOptions options{.name = std::string(Exclusive ? "cutlet_exclusive_scan_" : "cutlet_inclusive_scan_") +
                                      element_name<T>()};
  if constexpr (kScanPacksStatus<T>) {
    return cutlet::kernel(
        [](Ptr<T> out, Ptr<T> in, i32 n, Value<T> init, Ptr<T> carry_in, Ptr<T> carry_out, Value<bool> chained,
           Ptr<std::uint32_t> counter, Ptr<std::uint64_t> words) {
          scan_tile_body<Exclusive, T, Op>(out, in, n, init, counter, PackedTileStatus<T>{words}, carry_in, carry_out,
                                           chained);
        },
        options);
  } else {
    return cutlet::kernel(
        [](Ptr<T> out, Ptr<T> in, i32 n, Value<T> init, Ptr<T> carry_in, Ptr<T> carry_out, Value<bool> chained,
           Ptr<std::uint32_t> counter, Ptr<std::uint32_t> flags, Ptr<T> aggregates, Ptr<T> prefixes) {
          scan_tile_body<Exclusive, T, Op>(out, in, n, init, counter, SplitTileStatus<T>{flags, aggregates, prefixes},
                                           carry_in, carry_out, chained);
        },
        options);
  }
}

/// Makes the scan kernel over iterator It: parameters (out, n, init, base, carry_in,
/// carry_out, chained, counter, status..., the iterator's parameters).
template <bool Exclusive, class T, class Op, class It>
auto make_scan_iterator_kernel() {
  const KernelOptions options{
      .name = std::string(Exclusive ? "cutlet_exclusive_scan_iterator_" : "cutlet_inclusive_scan_iterator_") +
              held_name<T>()};
  return with_params<typename It::Params>([&]<class... P>() {
    if constexpr (kScanPacksStatus<T>) {
      return cutlet::kernel(
          [](Ptr<T> out, i32 n, Value<T> init, i64 base, Ptr<T> carry_in, Ptr<T> carry_out, Value<bool> chained,
             Ptr<std::uint32_t> counter, Ptr<std::uint64_t> words, P... p) {
            scan_iterator_tile_body<Exclusive, T, Op, It>(out, n, base, init, counter, PackedTileStatus<T>{words},
                                                          carry_in, carry_out, chained, typename It::Params{p...});
          },
          options);
    } else {
      using W = storage_t<T>;
      return cutlet::kernel(
          [](Ptr<W> out, i32 n, param_t<T> init, i64 base, Ptr<W> carry_in, Ptr<W> carry_out, Value<bool> chained,
             Ptr<std::uint32_t> counter, Ptr<std::uint32_t> flags, Ptr<W> aggregates, Ptr<W> prefixes, P... p) {
            scan_iterator_tile_body<Exclusive, T, Op, It>(out, n, base, init, counter,
                                                          SplitTileStatus<T>{flags, aggregates, prefixes}, carry_in,
                                                          carry_out, chained, typename It::Params{p...});
          },
          options);
    }
  });
}

/// Bytes of the scans' temporary storage for `tiles` tiles of T, and the first of them that
/// must be zero before each scan (or chunk); then two carry slots of T, 256-byte aligned.
/// `Packed`: each tile's status one u64 word (PackedTileStatus, PackedU62Status), else a
/// flag, an aggregate and a prefix (SplitTileStatus).
template <class T, bool Packed = kScanPacksStatus<T>>
std::pair<std::size_t, std::size_t> scan_storage_bytes(long long tiles) {
  if constexpr (Packed) {
    const PackedScanLayout l = packed_scan_layout(tiles);
    return {l.total_bytes + 256, l.total_bytes};
  } else {
    const ScanLayout l = scan_layout(tiles, sizeof(T));
    return {l.total_bytes + 256, l.zeroed_bytes};
  }
}

/// Tiles of `tile` elements in the largest chunk (kScanChunk) of a scan of n (> 0) elements:
/// what the look-back's storage is sized for.
inline long long scan_chunk_tiles(std::int64_t n, std::int64_t tile) { return ceil_div(std::min(n, kScanChunk), tile); }

/// One launch of a scan over a chunk of at most kScanChunk elements (for_each_scan_chunk).
struct ScanChunk {
  std::int64_t at = 0;        ///< the chunk's first element
  std::int32_t count = 0;     ///< its elements
  bool chained = false;       ///< whether chunks come before it (start from carry_in)
  std::uint64_t carry_in = 0;   ///< where the total of the chunks before it is
  std::uint64_t carry_out = 0;  ///< where its last tile writes the running total
  std::uint64_t scratch = 0;    ///< the look-back's storage (scan_storage_bytes<C>)
  long long tiles = 0;          ///< tiles the storage has room for
  std::int64_t tile = 0;        ///< elements per tile (one block each)
};

/// Calls `launch(chunk)` for each chunk of kScanChunk of the n (> 0) elements of a scan whose
/// look-back carries values of C over tiles of `tile` elements, in order on `stream`: the
/// look-back's storage (scan_storage_bytes<C, Packed>) from `workspace`, zeroed before each
/// chunk, and two carry slots of C used in turn, each chunk reading the running total the one
/// before wrote.
template <class C, bool Packed, class Launch>
void for_each_scan_chunk(const Stream& stream, std::int64_t n, std::int64_t tile, const Workspace& workspace,
                         const char* algorithm, Launch&& launch) {
  const long long tiles = scan_chunk_tiles(n, tile);
  const auto [total_bytes, zeroed_bytes] = scan_storage_bytes<C, Packed>(tiles);
  Scratch scratch = acquire(workspace, stream, total_bytes, algorithm);
  const std::uint64_t carries = scratch.address() + total_bytes - 256;
  for (std::int64_t at = 0, chunk = 0; at < n; at += kScanChunk, ++chunk) {
    zero_bytes(stream, scratch.address(), zeroed_bytes);
    launch(ScanChunk{.at = at,
                     .count = static_cast<std::int32_t>(std::min(kScanChunk, n - at)),
                     .chained = chunk > 0,
                     .carry_in = carries + 128 * static_cast<std::uint64_t>(chunk % 2),
                     .carry_out = carries + 128 * static_cast<std::uint64_t>(1 - chunk % 2),
                     .scratch = scratch.address(),
                     .tiles = tiles,
                     .tile = tile});
  }
}

/// The buffer of `count` elements of T at element `at` of `b` (a chunk's part of it).
template <class T>
Buffer<T> chunk_of(const Buffer<T>& b, std::int64_t at, std::int32_t count, const Device& device) {
  return Buffer<T>::wrap(b.data() + static_cast<std::uint64_t>(at) * sizeof(T), static_cast<std::size_t>(count),
                         device);
}

/// Launches `kernel` on one chunk with the look-back status of C in `chunk.scratch`, after
/// the arguments `args...` and the carries: (args..., carry_in, carry_out, chained, counter,
/// words, tail...) for a packed status, (..., counter, flags, aggregates, prefixes, tail...)
/// for a split one; `tail` is a tuple of the arguments that end the list (an iterator's).
template <class C, bool Packed, class Kernel, class Tail, class... Args>
void launch_scan_chunk(Kernel& kernel, const Stream& stream, const ScanChunk& chunk, const Tail& tail,
                       const Args&... args) {
  const Device device = stream.device();
  const LaunchConfig config{.grid = ceil_div(static_cast<std::int64_t>(chunk.count), chunk.tile), .block = kScanBlock};
  using W = storage_t<C>;
  static_assert(sizeof(C) <= 128, "the scans' carry slots hold elements of at most 128 bytes");
  constexpr std::size_t kWords = storage_words<C>();
  const auto carry_in = Buffer<W>::wrap(chunk.carry_in, kWords, device);
  const auto carry_out = Buffer<W>::wrap(chunk.carry_out, kWords, device);
  const auto tile_count = static_cast<std::size_t>(chunk.tiles);
  if constexpr (Packed) {
    const PackedScanLayout layout = packed_scan_layout(chunk.tiles);
    const auto counter = Buffer<std::uint32_t>::wrap(chunk.scratch + layout.counter, 1, device);
    const auto words = Buffer<std::uint64_t>::wrap(chunk.scratch + layout.words, tile_count, device);
    std::apply(
        [&](const auto&... t) {
          kernel.launch(stream, config, args..., carry_in, carry_out, chunk.chained, counter, words, t...);
        },
        tail);
  } else {
    const ScanLayout layout = scan_layout(chunk.tiles, sizeof(C));
    const auto counter = Buffer<std::uint32_t>::wrap(chunk.scratch + layout.counter, 1, device);
    const auto flags = Buffer<std::uint32_t>::wrap(chunk.scratch + layout.flags, tile_count, device);
    const auto aggregates = Buffer<W>::wrap(chunk.scratch + layout.aggregates, tile_count * kWords, device);
    const auto prefixes = Buffer<W>::wrap(chunk.scratch + layout.prefixes, tile_count * kWords, device);
    std::apply(
        [&](const auto&... t) {
          kernel.launch(stream, config, args..., carry_in, carry_out, chunk.chained, counter, flags, aggregates,
                        prefixes, t...);
        },
        tail);
  }
}

/// Queues the scan of `in` into `out` on `stream`; `init` is used by exclusive scans only.
/// Inputs of more than kScanChunk elements go in chunks (for_each_scan_chunk), each launch
/// reading the running total the one before wrote.
template <bool Exclusive, class T, class Kernel>
void launch_scan(Kernel& kernel, const Stream& stream, const Buffer<T>& in, Buffer<T>& out, T init,
                 const Workspace& workspace, const char* algorithm) {
  const auto range = call_range<T>(algorithm);
  check_count(in.size(), kScanMaxCount, algorithm);
  const auto n = static_cast<std::int64_t>(in.size());
  if (n == 0) return;
  check_size(out.size(), static_cast<std::size_t>(n), algorithm, "output");
  check_device(in.device(), stream, algorithm, "input");
  check_device(out.device(), stream, algorithm, "output");
  check_aligned(in.data(), algorithm, "input");
  check_aligned(out.data(), algorithm, "output");
  const Device device = stream.device();
  for_each_scan_chunk<T, kScanPacksStatus<T>>(stream, n, kScanTile<T>, workspace, algorithm, [&](const ScanChunk& c) {
    launch_scan_chunk<T, kScanPacksStatus<T>>(kernel, stream, c, std::tuple<>{}, chunk_of(out, c.at, c.count, device),
                                              chunk_of(in, c.at, c.count, device), c.count, init);
  });
}

/// Queues the scan of the n elements of iterator `in` into `out` on `stream`, in chunks as
/// launch_scan.
template <bool Exclusive, class T, class It, class Kernel>
void launch_scan_iterator(Kernel& kernel, const Stream& stream, const It& in, std::size_t count, Buffer<T>& out, T init,
                          const Workspace& workspace, const char* algorithm) {
  const auto range = call_range<T>(algorithm);
  check_count(count, kScanMaxCount, algorithm);
  const auto n = static_cast<std::int64_t>(count);
  if (n == 0) return;
  check_size(out.size(), count, algorithm, "output");
  check_device(out.device(), stream, algorithm, "output");
  check_aligned(out.data(), algorithm, "output");
  const Device device = stream.device();
  for_each_scan_chunk<T, kScanPacksStatus<T>>(stream, n, kScanTile<T>, workspace, algorithm, [&](const ScanChunk& c) {
    launch_scan_chunk<T, kScanPacksStatus<T>>(kernel, stream, c, in.arguments(),
                                              storage_view(chunk_of(out, c.at, c.count, device)), c.count, init, c.at);
  });
}

}  // namespace detail

/// The kernel of inclusive_scan (Exclusive false) or exclusive_scan (true) for element type T
/// and operator type Op (made at the first use, then shared), for inspection and compiling
/// ahead.
template <bool Exclusive, Element T, class Op>
  requires BinaryOperator<Op, T>
auto& scan_kernel() {
  static auto k = detail::make_scan_kernel<Exclusive, T, Op>();
  return k;
}

/// Bytes of temporary storage the scans need for `n` elements of T (for Workspace::borrow): a
/// tile counter, and per tile of kScanTile<T> a status word (4-byte T) or a status flag, an
/// aggregate and a prefix (8-byte T, and structs).
template <ElementOrStruct T>
std::size_t scan_workspace_bytes(std::size_t n) {
  if (n == 0) return 0;
  return detail::scan_storage_bytes<T>(detail::scan_chunk_tiles(static_cast<std::int64_t>(n), kScanTile<T>)).first;
}

/// out[i] = in[0] op in[1] op ... op in[i] for the n = in.size() elements, applied in that
/// order (`op` must be associative; it need not be commutative), queued on `stream` in one
/// kernel launch (after a memset of the tile status), without host synchronization. For
/// floats the grouping differs from a sequential loop (results may differ by rounding) but is
/// fixed: the same on every run.
///
/// `out` holds at least n elements and may be `in` (a scan in place). Both must be of the
/// stream's device and 16-byte aligned. At most kScanMaxCount elements; more than kScanChunk
/// go in one launch per chunk, each starting from the chunks before (the same grouping on
/// every run). Temporary storage (scan_workspace_bytes) comes from `workspace`. Throws
/// cutlet::Error for bad arguments.
template <Element T, class Op>
  requires BinaryOperator<Op, T>
void inclusive_scan(const Stream& stream, const Buffer<T>& in, Buffer<T>& out, Op op, const Workspace& workspace = {}) {
  detail::launch_scan<false>(scan_kernel<false, T, Op>(), stream, in, out, T{}, workspace, "inclusive_scan");
}

/// out[0] = init and out[i] = init op in[0] op ... op in[i - 1] for i < n = in.size(),
/// applied in that order; otherwise as inclusive_scan.
template <Element T, class Op>
  requires BinaryOperator<Op, T>
void exclusive_scan(const Stream& stream, const Buffer<T>& in, Buffer<T>& out, Op op, T init,
                    const Workspace& workspace = {}) {
  detail::launch_scan<true>(scan_kernel<true, T, Op>(), stream, in, out, init, workspace, "exclusive_scan");
}

/// The kernel of inclusive_scan (Exclusive false) or exclusive_scan (true) over iterator It
/// with operator Op (made at the first use, then shared).
template <bool Exclusive, InputIterator It, class Op>
  requires BinaryOperator<Op, typename It::value_type>
auto& scan_iterator_kernel() {
  static auto k = detail::make_scan_iterator_kernel<Exclusive, typename It::value_type, Op, It>();
  return k;
}

/// out[i] = in[0] op in[1] op ... op in[i] for the first n elements of iterator `in` (a
/// counting_iterator, a transform_iterator of buffers, ...; see iterators.h), its reads traced
/// into the kernel: no buffer of the elements is made. As inclusive_scan over a Buffer
/// otherwise (the same grouping, the same bits on every run), but the elements are read one
/// at a time (kScanItems per thread in flight); `out` must not be a buffer the iterator reads.
template <InputIterator It, class Op>
  requires BinaryOperator<Op, typename It::value_type>
void inclusive_scan(const Stream& stream, const It& in, std::size_t n, Buffer<typename It::value_type>& out, Op op,
                    const Workspace& workspace = {}) {
  using T = typename It::value_type;
  detail::launch_scan_iterator<false>(scan_iterator_kernel<false, It, Op>(), stream, in, n, out, T{}, workspace,
                                      "inclusive_scan");
}

/// out[0] = init and out[i] = init op in[0] op ... op in[i - 1] for i < n, over iterator
/// `in`; otherwise as inclusive_scan over an iterator.
template <InputIterator It, class Op>
  requires BinaryOperator<Op, typename It::value_type>
void exclusive_scan(const Stream& stream, const It& in, std::size_t n, Buffer<typename It::value_type>& out, Op op,
                    typename It::value_type init, const Workspace& workspace = {}) {
  detail::launch_scan_iterator<true>(scan_iterator_kernel<true, It, Op>(), stream, in, n, out, init, workspace,
                                     "exclusive_scan");
}

/// The kernel of inclusive_scan (Exclusive false) or exclusive_scan (true) over a buffer of
/// structs S with operator Op (made at the first use, then shared).
template <bool Exclusive, StructElement S, class Op>
  requires BinaryOperator<Op, S>
auto& scan_struct_kernel() {
  static auto k = detail::make_scan_iterator_kernel<Exclusive, S, Op, StructBufferIterator<S>>();
  return k;
}

/// out[i] = in[0] op ... op in[i] over a buffer of user structs (a StructElement), `op`
/// taking and returning Struct<S> values, applied in sequence order (associative, need not be
/// commutative: a linear recurrence x[i] = a[i] * x[i-1] + b[i] is the scan of the pairs
/// {a, b} under (a1, b1) then (a2, b2) = (a1 * a2, b1 * a2 + b2)). As inclusive_scan over a
/// buffer otherwise (the same grouping on every run, chunks past kScanChunk), the structs read
/// one at a time (kScanItems<S> a thread); `out` may be `in`. Temporary storage
/// (scan_workspace_bytes<S>) from `workspace`.
template <StructElement S, class Op>
  requires BinaryOperator<Op, S>
void inclusive_scan(const Stream& stream, const Buffer<S>& in, Buffer<S>& out, Op op, const Workspace& workspace = {}) {
  if (in.size() > 0) detail::check_device(in.device(), stream, "inclusive_scan", "input");
  detail::launch_scan_iterator<false>(scan_struct_kernel<false, S, Op>(), stream, StructBufferIterator<S>(in),
                                      in.size(), out, S{}, workspace, "inclusive_scan");
}

/// out[0] = init and out[i] = init op in[0] op ... op in[i - 1] over a buffer of user structs;
/// otherwise as inclusive_scan over structs.
template <StructElement S, class Op>
  requires BinaryOperator<Op, S>
void exclusive_scan(const Stream& stream, const Buffer<S>& in, Buffer<S>& out, Op op, const S& init,
                    const Workspace& workspace = {}) {
  if (in.size() > 0) detail::check_device(in.device(), stream, "exclusive_scan", "input");
  detail::launch_scan_iterator<true>(scan_struct_kernel<true, S, Op>(), stream, StructBufferIterator<S>(in), in.size(),
                                     out, init, workspace, "exclusive_scan");
}

}  // namespace cutlet::algorithms
