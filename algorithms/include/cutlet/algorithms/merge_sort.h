// merge_sort_keys and merge_sort_pairs: stable sorts by a user comparator (CUB's
// DeviceMergeSort). Each block sorts a tile in registers and shared memory; then each pass
// merges pairs of sorted runs of twice the length, every output tile finding where it starts
// in its two runs by a merge-path search (Green, McColl and Bader, "GPU Merge Path").
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "cutlet/algorithms/detail/call_range.h"
#include "cutlet/algorithms/detail/held.h"
#include "cutlet/algorithms/detail/host_checks.h"
#include "cutlet/algorithms/detail/iterator_kernel.h"
#include "cutlet/algorithms/detail/merge_sort_layout.h"
#include "cutlet/algorithms/element.h"
#include "cutlet/algorithms/iterators.h"
#include "cutlet/algorithms/operators.h"
#include "cutlet/algorithms/workspace.h"
#include "cutlet/jit/kernel.h"
#include "cutlet/language/control.h"
#include "cutlet/language/index.h"
#include "cutlet/language/math.h"
#include "cutlet/language/memory.h"
#include "cutlet/language/pointer.h"
#include "cutlet/language/warp.h"
#include "cutlet/runtime/buffer.h"
#include "cutlet/runtime/launch.h"
#include "cutlet/runtime/stream.h"

namespace cutlet::algorithms {

/// Threads per block of the merge sort's kernels.
inline constexpr int kMergeSortBlock = 256;
/// Keys each thread sorts and merges: 17 of 4 bytes, 9 of 8; of a struct, 5 up to 16 bytes and
/// 3 beyond (its words held in registers). Odd, so that the threads' consecutive runs in
/// shared memory start in different banks.
template <ElementOrStruct K>
inline constexpr int kMergeSortItems = sizeof(K) == 4 ? 17 : sizeof(K) == 8 ? 9 : sizeof(K) <= 16 ? 5 : 3;
/// Keys per tile: what one block sorts, and what one block writes in each merge pass.
template <ElementOrStruct K>
inline constexpr int kMergeSortTile = kMergeSortBlock * kMergeSortItems<K>;
/// Keys (and values) of a block's shared tile: a tile, and the places past it that a thread's
/// merge steps beyond the end of its runs may read (so that no index needs clamping).
template <ElementOrStruct K>
inline constexpr int kMergeSortSharedItems = kMergeSortTile<K> + kMergeSortItems<K> + 1;
/// Blocks per multiprocessor the block sort (Merge false) and the merge (true) are compiled
/// for, as launch bounds: ptxas then holds them to 40 registers a thread (6 blocks of 256
/// threads; 4-byte keys alone, and the merge of 8-byte keys alone) or 48 (5 blocks; with
/// values, and the block sort of 8-byte keys), which they fit without spilling. Unbounded,
/// ptxas takes 53 to 72 and the multiprocessors hold 3 or 4 blocks. Struct keys: 3 blocks
/// (up to 80 registers for their words).
template <bool Pairs, bool Merge, ElementOrStruct K>
inline constexpr int kMergeSortBlocksPerSm = StructElement<K>                           ? 3
                                             : (!Pairs && (sizeof(K) == 4 || Merge)) ? 6
                                                                                     : 5;
/// The most keys the merge sorts take (their i32 positions reach two runs past the start of
/// the last pair of runs).
inline constexpr std::int64_t kMergeSortMaxCount = std::int64_t{1} << 30;

namespace detail {

/// The values a merge sort carries with its keys: none (keys alone).
struct NoMergeValues {
  using value_type = std::int32_t;  ///< unused
};

/// Whether a sort's Values (NoMergeValues or MergeValues<V>) carry values.
template <class Values>
inline constexpr bool kCarriesValues = !std::is_same_v<Values, NoMergeValues>;

/// Where a merge step read each of its keys: a place in the block's shared tile.
using MergeSources = std::vector<Value<std::int32_t>>;

/// The number of items of run A among the first `diag` items of the stable merge of A
/// (a_len items, a_at(i)) and B (b_len items, b_at(j)), where B's item goes first only when
/// comp(b, a): the merge path's crossing of diagonal `diag`, by binary search.
template <class K, class Comp, class AtA, class AtB>
Value<std::int32_t> merge_path(const Comp& comp, const AtA& a_at, const AtB& b_at, const i32& a_len, const i32& b_len,
                               const i32& diag) {
  Var<std::int32_t> lo = max(i32(0), diag - b_len);
  Var<std::int32_t> hi = min(diag, a_len);
  while_([&] { return lo.get() < hi.get(); }, [&] {
    i32 mid = (lo.get() + hi.get()) >> 1;
    Value<bool> b_first = call_pred<K>(comp, b_at(diag - 1 - mid), a_at(mid));
    hi = select(b_first, mid, hi.get());
    lo = select(b_first, lo.get(), mid + 1);
  });
  return lo.get();
}

/// Items steps of the stable merge of tile[a, a_end) and tile[b, b_end) (shared memory of
/// kMergeSortSharedItems keys), calling emit(i, key, source) for step i with the key taken and
/// its place in the tile. A's key goes first unless comp(b's, a's); once a run is used up the
/// other's keys follow; past both ends the steps take meaningless keys from past a_end (at
/// most Items places past it), which the caller does not store. One shared load per step:
/// the key that replaces the one taken.
template <int Items, class K, class Comp, class Emit>
void serial_merge(const Comp& comp, const SharedHeld<K>& tile, i32 a, const i32& a_end, i32 b, const i32& b_end,
                  const Emit& emit) {
  Var<std::int32_t> ia = a;
  Var<std::int32_t> ib = b;
  HeldVar<K> ka;
  HeldVar<K> kb;
  ka = tile.load(a);
  kb = tile.load(b);
  for (int i = 0; i < Items; ++i) {
    Value<bool> take_a = (ib.get() >= b_end) | ((ia.get() < a_end) & !call_pred<K>(comp, kb.get(), ka.get()));
    emit(i, select(take_a, ka.get(), kb.get()), select(take_a, ia.get(), ib.get()));
    if (i + 1 == Items) break;
    i32 next = select(take_a, ia.get(), ib.get()) + 1;
    held_t<K> loaded = tile.load(next);
    ka = select(take_a, loaded, ka.get());
    kb = select(take_a, kb.get(), loaded);
    ia = select(take_a, next, ia.get());
    ib = select(take_a, ib.get(), next);
  }
}

/// serial_merge's keys and sources, collected in step order.
template <int Items, class K, class Comp>
std::pair<std::vector<held_t<K>>, MergeSources> serial_merge(const Comp& comp, const SharedHeld<K>& tile,
                                                             const i32& a, const i32& a_end, const i32& b,
                                                             const i32& b_end) {
  std::vector<held_t<K>> keys;
  MergeSources from;
  serial_merge<Items, K>(comp, tile, a, a_end, b, b_end, [&](int, const held_t<K>& key, const i32& source) {
    keys.push_back(key);
    from.push_back(source);
  });
  return {keys, from};
}

/// The values of a pairs sort in one block: the pointers and the shared tile that follows
/// the keys' moves.
template <class V>
struct MergeValues {
  using value_type = V;
  Ptr<V> out;
  Ptr<V> in;
  SharedPtr<V> tile;
};

/// load_tile with the keys and values read by functions: tile[at] = read_key(source(at)) and
/// values.tile[at] = read_value(source(at)) (where Values carries values) for at < count, in
/// load_tile's order (an iterator's reads traced here, or a buffer's loads).
template <class K, class Values, class Source, class ReadKey, class ReadValue>
void load_tile_from(const SharedHeld<K>& tile, const Values& values, const i32& count, const Source& source,
                    const ReadKey& read_key, const ReadValue& read_value) {
  i32 tid = thread_idx().x;
  for (int i = 0; i < kMergeSortItems<K>; ++i) {
    i32 at = tid + i * kMergeSortBlock;
    if_(at < count, [&] {
      i32 from = source(at);
      tile.store(at, read_key(from));
      if constexpr (kCarriesValues<Values>) values.tile[at] = read_value(from);
    });
  }
}

/// The block's `count` (at most a tile) keys, and values with them, into its shared tile:
/// tile[at] = keys_in[source(at)] for at < count, thread t taking at = t, t + Block, ...
/// (coalesced where the sources are consecutive).
template <class K, class Values, class Source>
void load_tile(const SharedHeld<K>& tile, const Ptr<storage_t<K>>& keys_in, const Values& values, const i32& count,
               const Source& source) {
  load_tile_from<K>(
      tile, values, count, source, [&](const i32& from) { return load_held<K>(keys_in, from); },
      [&](const i32& from) {
        if constexpr (kCarriesValues<Values>) return values.in[from].load();
      });
}

/// The block's `count` keys (and values) out of its shared tile, keys_out[out_start + at] =
/// tile[at], with coalesced stores as load_tile's loads.
template <class K, class Values>
void store_tile(const Ptr<storage_t<K>>& keys_out, const SharedHeld<K>& tile, const Values& values,
                const i32& out_start, const i32& count) {
  i32 tid = thread_idx().x;
  for (int i = 0; i < kMergeSortItems<K>; ++i) {
    i32 at = tid + i * kMergeSortBlock;
    if_(at < count, [&] {
      store_held<K>(keys_out, out_start + at, tile.load(at));
      if constexpr (kCarriesValues<Values>) values.out[out_start + at] = values.tile[at].load();
    });
  }
}

/// A block's merge step in its shared tile: each thread merges Items keys of tile[a, a_end)
/// and tile[b, b_end) (serial_merge), its values gathered from where its keys came from, and
/// once every thread has read the tiles, writes them to its own places [mine, mine + Items).
/// Synchronizes the block before and after the writes.
template <int Items, class K, class Comp, class Values>
void merge_in_tile(const Comp& comp, const SharedHeld<K>& tile, const Values& values, const i32& a, const i32& a_end,
                   const i32& b, const i32& b_end, const i32& mine) {
  constexpr bool kPairs = kCarriesValues<Values>;
  auto [merged, from] = serial_merge<Items, K>(comp, tile, a, a_end, b, b_end);
  std::vector<Value<typename Values::value_type>> moved;
  if constexpr (kPairs)
    for (int i = 0; i < Items; ++i) moved.push_back(values.tile[from[static_cast<std::size_t>(i)]].load());
  syncthreads();
  for (int i = 0; i < Items; ++i) {
    tile.store(mine + i, merged[static_cast<std::size_t>(i)]);
    if constexpr (kPairs) values.tile[mine + i] = moved[static_cast<std::size_t>(i)];
  }
  syncthreads();
}

/// Block sort of tile block_idx.x of the keys [0, n) into keys_out (values with them), key i
/// read as read_key(i) and its value as read_value(i) (i an i32 position): the
/// block loads the tile to shared memory with coalesced loads; each thread takes Items
/// consecutive keys and sorts them in registers (odd-even transposition: stable, as only
/// neighbours swap, and only when the later key is strictly less); then log2(Block) rounds
/// merge the threads' runs pairwise in shared memory, each thread producing Items keys of a
/// merged run from its merge-path split; the block stores the sorted tile with coalesced
/// stores. In the last, partial tile the keys past n sort last within their thread and are
/// never merged or stored.
template <class K, class Comp, class Values, class ReadKey, class ReadValue>
void block_sort_body_from(const Ptr<storage_t<K>>& keys_out, const i32& n, const Values& values,
                          const ReadKey& read_key, const ReadValue& read_value) {
  constexpr int Items = kMergeSortItems<K>;
  constexpr int Block = kMergeSortBlock;
  constexpr int Tile = kMergeSortTile<K>;
  constexpr bool kPairs = kCarriesValues<Values>;
  const Comp comp{};
  SharedHeld<K> tile(kMergeSortSharedItems<K>);
  i32 tid = thread_idx().x;
  i32 tile_start = cast<std::int32_t>(block_idx().x) * Tile;
  i32 count = min(n - tile_start, i32(Tile));
  load_tile_from<K>(tile, values, count, [&](const i32& at) { return tile_start + at; }, read_key, read_value);
  syncthreads();

  // Each thread's Items consecutive keys (and values), sorted in registers.
  i32 mine = tid * Items;
  std::vector<HeldVar<K>> keys(Items);
  std::vector<Value<bool>> valid;
  for (int i = 0; i < Items; ++i) {
    keys[static_cast<std::size_t>(i)] = tile.load(mine + i);
    valid.push_back(mine + i < count);
  }
  using ValueType = typename Values::value_type;
  std::vector<Var<ValueType>> vals;
  vals.reserve(Items);
  if constexpr (kPairs)
    for (int i = 0; i < Items; ++i) vals.emplace_back(values.tile[mine + i].load());
  for (int round = 0; round < Items; ++round) {
    for (int i = round & 1; i + 1 < Items; i += 2) {
      // Keys past n lie after the thread's valid ones already and never move.
      Value<bool> swap = valid[static_cast<std::size_t>(i + 1)] & call_pred<K>(comp, keys[i + 1].get(), keys[i].get());
      held_t<K> low = select(swap, keys[i + 1].get(), keys[i].get());
      held_t<K> high = select(swap, keys[i].get(), keys[i + 1].get());
      keys[i] = low;
      keys[i + 1] = high;
      if constexpr (kPairs) {
        Value<ValueType> vlow = select(swap, vals[i + 1].get(), vals[i].get());
        Value<ValueType> vhigh = select(swap, vals[i].get(), vals[i + 1].get());
        vals[i] = vlow;
        vals[i + 1] = vhigh;
      }
    }
  }
  // Back to the places the thread read them from (no other thread reads those).
  for (int i = 0; i < Items; ++i) {
    tile.store(mine + i, keys[static_cast<std::size_t>(i)].get());
    if constexpr (kPairs) values.tile[mine + i] = vals[i].get();
  }
  syncthreads();

  // Merge rounds: runs of `threads` threads' keys, merged pairwise.
  Var<std::int32_t> threads = 1;
  while_([&] { return threads.get() < Block; }, [&] {
    i32 group = tid & ~(threads.get() * 2 - 1);
    i32 start = group * Items;
    i32 run = threads.get() * Items;
    i32 a_len = max(i32(0), min(count - start, run));
    i32 b_len = max(i32(0), min(count - start - run, run));
    i32 diag = min((tid - group) * Items, a_len + b_len);
    i32 a_begin = start;
    i32 b_begin = start + run;
    i32 split = merge_path<K>(
        comp, [&](const i32& i) { return tile.load(a_begin + i); },
        [&](const i32& j) { return tile.load(b_begin + j); }, a_len, b_len, diag);
    merge_in_tile<Items, K>(comp, tile, values, a_begin + split, a_begin + a_len, b_begin + diag - split,
                            b_begin + b_len, mine);
    threads = threads.get() * 2;
  });

  store_tile<K>(keys_out, tile, values, tile_start, count);
}

/// block_sort_body_from reading keys_in[i] (and values.in[i]).
template <class K, class Comp, class Values>
void block_sort_body(const Ptr<storage_t<K>>& keys_out, const Ptr<storage_t<K>>& keys_in, const i32& n,
                     const Values& values) {
  block_sort_body_from<K, Comp>(
      keys_out, n, values, [&](const i32& i) { return load_held<K>(keys_in, i); },
      [&](const i32& i) {
        if constexpr (kCarriesValues<Values>) return values.in[i].load();
      });
}

/// The runs a merge pass of run length `width` merges for the output tile starting at
/// `out_start`: the pair's first key, and the lengths of its two runs (clipped at n).
struct MergePair {
  i32 start;
  i32 a_len;
  i32 b_len;
};
inline MergePair merge_pair(const i32& out_start, const i32& n, const i32& width) {
  i32 start = out_start / (width * 2) * (width * 2);
  return MergePair{start, max(i32(0), min(n - start, width)), max(i32(0), min(n - start - width, width))};
}

/// merge_path by a whole warp, 32 probes a step: each lane tests one of 32 evenly spaced
/// places of the range left, and a ballot narrows it to the gap between the last place
/// where A's key goes first and the first where B's does (a 32-ary search: log32 of the run
/// length in dependent loads, where the binary search needs log2). Every lane of the warp
/// calls it with the same arguments and gets the same result.
template <class K, class Comp, class AtA, class AtB>
Value<std::int32_t> warp_merge_path(const Comp& comp, const AtA& a_at, const AtB& b_at, const i32& a_len,
                                    const i32& b_len, const i32& diag) {
  i32 lane = lane_id();
  Var<std::int32_t> lo = max(i32(0), diag - b_len);
  Var<std::int32_t> hi = min(diag, a_len);
  while_([&] { return lo.get() < hi.get(); }, [&] {
    i32 stride = (hi.get() - lo.get() + 31) >> 5;
    i32 probe = lo.get() + lane * stride;
    // Past the range, B's key counts as going first (the answer is at most hi).
    Var<bool> b_first = true;
    if_(probe < hi.get(), [&] { b_first = call_pred<K>(comp, b_at(diag - 1 - probe), a_at(probe)); });
    u32 votes = ballot_sync(full_mask, b_first.get());
    // The first lane where B's key goes first: the answer lies after the lane before it.
    i32 first = select(votes == 0u, i32(warp_size), ffs(cast<std::int32_t>(votes)) - 1);
    i32 new_lo = select(first == 0, lo.get(), lo.get() + (first - 1) * stride + 1);
    hi = min(hi.get(), lo.get() + first * stride);
    lo = new_lo;
  });
  return lo.get();
}

/// The split of each output tile of a merge pass (warp w of the grid: tile w of `tiles`): how
/// many of the tile's pair's first-run keys come before the tile's first key, by a warp's
/// merge-path search in global memory (warp_merge_path).
template <class K, class Comp>
void merge_splits_body(const Ptr<std::int32_t>& splits, const Ptr<storage_t<K>>& keys, const i32& n, const i32& width,
                       const i32& tiles) {
  const Comp comp{};
  i32 t = (cast<std::int32_t>(block_idx().x) * kMergeSortBlock + thread_idx().x) >> 5;
  if_(t < tiles, [&] {
    i32 out_start = t * kMergeSortTile<K>;
    const MergePair p = merge_pair(out_start, n, width);
    i32 b_start = p.start + p.a_len;
    i32 split = warp_merge_path<K>(
        comp, [&](const i32& i) { return load_held<K>(keys, p.start + i); },
        [&](const i32& j) { return load_held<K>(keys, b_start + j); }, p.a_len, p.b_len, out_start - p.start);
    if_(lane_id() == 0, [&] { splits[t] = split; });
  });
}

/// One output tile of a merge pass of run length `width` (>= the tile, and a power-of-two
/// multiple of it, so that no tile spans two pairs of runs): the block loads the parts of its
/// pair's two runs that make its output (from `splits`) into shared memory, each thread merges
/// Items keys from its own merge-path split there, and the block stores the merged tile with
/// coalesced stores through shared memory (values follow their keys through their own tile).
/// Storing each merged key at once into a second tile, which saves a barrier and the
/// registers of the merged keys, measured 5% slower on H100.
template <class K, class Comp, class Values>
void merge_tile_body(const Ptr<storage_t<K>>& keys_out, const Ptr<storage_t<K>>& keys_in,
                     const Ptr<std::int32_t>& splits, const i32& n, const i32& width, const i32& tiles,
                     const Values& values) {
  constexpr int Items = kMergeSortItems<K>;
  constexpr int Tile = kMergeSortTile<K>;
  const Comp comp{};
  SharedHeld<K> tile(kMergeSortSharedItems<K>);
  i32 tid = thread_idx().x;
  i32 t = cast<std::int32_t>(block_idx().x);
  i32 out_start = t * Tile;
  const MergePair p = merge_pair(out_start, n, width);
  i32 diag_begin = out_start - p.start;
  i32 diag_end = min(diag_begin + Tile, p.a_len + p.b_len);
  i32 a_begin = splits[t].load();
  // The tile after this one starts in the same pair unless this one ends it.
  i32 a_end = select(diag_end == p.a_len + p.b_len, p.a_len, splits[min(t + 1, tiles - 1)].load());
  i32 a_count = a_end - a_begin;
  i32 count = diag_end - diag_begin;
  i32 b_shift = p.start + p.a_len + (diag_begin - a_begin) - a_count;  // B's key for tile place i >= a_count
  i32 a_shift = p.start + a_begin;
  load_tile<K>(tile, keys_in, values, count,
               [&](const i32& at) { return select(at < a_count, a_shift + at, b_shift + at); });
  syncthreads();

  i32 diag = min(tid * Items, count);
  i32 b_len = count - a_count;
  i32 split = merge_path<K>(
      comp, [&](const i32& i) { return tile.load(i); }, [&](const i32& j) { return tile.load(a_count + j); },
      a_count, b_len, diag);
  merge_in_tile<Items, K>(comp, tile, values, split, a_count, a_count + diag - split, count, tid * Items);
  store_tile<K>(keys_out, tile, values, out_start, count);
}

/// The kernels of one merge sort of keys K (and values V where Pairs) by Comp: the block
/// sort, the splits of a merge pass, and its merge.
template <bool Pairs, class K, class V, class Comp>
struct MergeSortKernels {
  using W = storage_t<K>;  ///< what the kernels see the keys' buffers as (a struct's words)
  static std::string suffix() {
    if constexpr (Pairs) return held_name<K>() + "_" + element_name<V>();
    else return held_name<K>();
  }
  /// The options of a block-sort or merge kernel: its name, and launch bounds of
  /// kMergeSortBlock threads and `blocks` blocks per multiprocessor.
  static KernelOptions options(const char* prefix, int blocks) {
    return {.name = prefix + suffix(), .max_block_threads = kMergeSortBlock, .min_blocks_per_sm = blocks};
  }
  static auto make_block_sort() {
    if constexpr (Pairs)
      return cutlet::kernel(
          [](Ptr<W> keys_out, Ptr<W> keys_in, Ptr<V> values_out, Ptr<V> values_in, i32 n) {
            block_sort_body<K, Comp>(keys_out, keys_in, n,
                                     MergeValues<V>{values_out, values_in, shared_array<V>(kMergeSortSharedItems<K>)});
          },
          options("cutlet_merge_sort_block_", kMergeSortBlocksPerSm<Pairs, false, K>));
    else
      return cutlet::kernel([](Ptr<W> keys_out, Ptr<W> keys_in, i32 n) {
        block_sort_body<K, Comp>(keys_out, keys_in, n, NoMergeValues{});
      }, options("cutlet_merge_sort_block_", kMergeSortBlocksPerSm<Pairs, false, K>));
  }
  static auto make_splits() {
    return cutlet::kernel([](Ptr<std::int32_t> splits, Ptr<W> keys, i32 n, i32 width, i32 tiles) {
      merge_splits_body<K, Comp>(splits, keys, n, width, tiles);
    }, {.name = std::string("cutlet_merge_sort_splits_") + held_name<K>()});
  }
  static auto make_merge() {
    if constexpr (Pairs)
      return cutlet::kernel(
          [](Ptr<W> keys_out, Ptr<W> keys_in, Ptr<V> values_out, Ptr<V> values_in, Ptr<std::int32_t> splits, i32 n,
             i32 width, i32 tiles) {
            merge_tile_body<K, Comp>(keys_out, keys_in, splits, n, width, tiles,
                                     MergeValues<V>{values_out, values_in, shared_array<V>(kMergeSortSharedItems<K>)});
          },
          options("cutlet_merge_sort_merge_", kMergeSortBlocksPerSm<Pairs, true, K>));
    else
      return cutlet::kernel(
          [](Ptr<W> keys_out, Ptr<W> keys_in, Ptr<std::int32_t> splits, i32 n, i32 width, i32 tiles) {
            merge_tile_body<K, Comp>(keys_out, keys_in, splits, n, width, tiles, NoMergeValues{});
          },
          options("cutlet_merge_sort_merge_", kMergeSortBlocksPerSm<Pairs, true, K>));
  }

  decltype(make_block_sort()) block_sort = make_block_sort();
  decltype(make_splits()) splits = make_splits();
  decltype(make_merge()) merge = make_merge();
};

/// The element type of a merge sort's values from ValueIt (void: keys alone, read as K).
template <class ValueIt, class K>
struct merge_values_of {
  using type = typename ValueIt::value_type;
};
template <class K>
struct merge_values_of<void, K> {
  using type = K;
};

/// Makes the block sort of a merge sort reading its keys from iterator KeyIt (and its values
/// from ValueIt where Pairs): (keys_out, [values_out,] n, KeyIt's parameters...[, ValueIt's
/// parameters...]), element i of each iterator read (traced here) for position i of the input.
template <bool Pairs, class KeyIt, class ValueIt, class Comp>
auto make_merge_sort_iterator_block_sort() {
  using K = typename KeyIt::value_type;
  using V = typename merge_values_of<ValueIt, K>::type;
  using W = storage_t<K>;
  using Names = MergeSortKernels<Pairs, K, V, Comp>;
  constexpr int kBlocks = kMergeSortBlocksPerSm<Pairs, false, K>;
  if constexpr (Pairs) {
    using Params = tuple_cat_t<typename KeyIt::Params, typename ValueIt::Params>;
    return with_params<Params>([]<class... P>() {
      return cutlet::kernel(
          [](Ptr<W> keys_out, Ptr<V> values_out, i32 n, P... p) {
            constexpr std::size_t kKeyParams = std::tuple_size_v<typename KeyIt::Params>;
            const Params all{p...};
            const auto key_params = tuple_slice<0, kKeyParams>(all);
            const auto value_params = tuple_slice<kKeyParams, std::tuple_size_v<typename ValueIt::Params>>(all);
            // values.in is unused: the values come from ValueIt.
            block_sort_body_from<K, Comp>(
                keys_out, n, MergeValues<V>{values_out, values_out, shared_array<V>(kMergeSortSharedItems<K>)},
                [&](const i32& i) { return held_t<K>(KeyIt::read(key_params, cast<std::int64_t>(i))); },
                [&](const i32& i) { return Value<V>(ValueIt::read(value_params, cast<std::int64_t>(i))); });
          },
          Names::options("cutlet_merge_sort_block_iterator_", kBlocks));
    });
  } else {
    return with_params<typename KeyIt::Params>([]<class... P>() {
      return cutlet::kernel(
          [](Ptr<W> keys_out, i32 n, P... p) {
            const typename KeyIt::Params key_params{p...};
            block_sort_body_from<K, Comp>(
                keys_out, n, NoMergeValues{},
                [&](const i32& i) { return held_t<K>(KeyIt::read(key_params, cast<std::int64_t>(i))); },
                [](const i32&) {});
          },
          Names::options("cutlet_merge_sort_block_iterator_", kBlocks));
    });
  }
}

}  // namespace detail

/// The kernels of merge_sort_keys (Pairs false; V unused) or merge_sort_pairs for keys of K,
/// values of V and comparator type Comp (made at the first use, then shared), for inspection
/// and compiling ahead.
template <bool Pairs, ElementOrStruct K, class V, class Comp>
  requires BinaryPredicate<Comp, K> && (!Pairs || Element<V>)
detail::MergeSortKernels<Pairs, K, V, Comp>& merge_sort_kernels() {
  static detail::MergeSortKernels<Pairs, K, V, Comp> k;
  return k;
}

/// The block sort of merge_sort_keys (Pairs false, ValueIt void) or merge_sort_pairs over
/// iterators: keys from KeyIt, values from ValueIt, comparator type Comp (made at the first
/// use, then shared). The merge passes after it are merge_sort_kernels' splits and merge.
template <bool Pairs, class KeyIt, class ValueIt, class Comp>
auto& merge_sort_iterator_kernel() {
  static auto k = detail::make_merge_sort_iterator_block_sort<Pairs, KeyIt, ValueIt, Comp>();
  return k;
}

/// Bytes of temporary storage merge_sort_keys (value_bytes 0) or merge_sort_pairs with values
/// of value_bytes needs for `n` keys of K (for Workspace::borrow): alternate key and value
/// buffers and an i32 per tile of kMergeSortTile<K>; none when n fits one tile.
template <ElementOrStruct K>
std::size_t merge_sort_workspace_bytes(std::size_t n, std::size_t value_bytes = 0) {
  return detail::merge_sort_layout(static_cast<std::int64_t>(n), kMergeSortTile<K>, sizeof(K), value_bytes).total_bytes;
}

namespace detail {

/// Queues a merge sort of n (> 0) keys into keys_out (values into values_out where Pairs), the
/// arguments checked: block_sort(keys_dst, values_dst, tiles) queues the block sort of the
/// input into keys_dst (values_dst), then the merge passes follow.
template <bool Pairs, class K, class V, class Comp, class BlockSort>
void queue_merge_sort(const Stream& stream, std::int32_t n, Buffer<K>& keys_out, Buffer<V>* values_out,
                      const Workspace& workspace, const char* algorithm, const BlockSort& block_sort) {
  constexpr int kTile = kMergeSortTile<K>;
  const int passes = merge_sort_passes(n, kTile);
  const long long tiles = ceil_div(n, kTile);
  auto& kernels = merge_sort_kernels<Pairs, K, V, Comp>();
  const Device device = stream.device();
  const MergeSortLayout layout = merge_sort_layout(n, kTile, sizeof(K), Pairs ? sizeof(V) : 0);
  std::optional<Scratch> scratch;
  Buffer<K> keys_alt;
  Buffer<V> values_alt;
  Buffer<std::int32_t> splits;
  if (passes > 0) {
    scratch.emplace(acquire(workspace, stream, layout.total_bytes, algorithm));
    const std::uint64_t base = scratch->address();
    keys_alt = Buffer<K>::wrap(base + layout.keys, static_cast<std::size_t>(n), device);
    if constexpr (Pairs) values_alt = Buffer<V>::wrap(base + layout.values, static_cast<std::size_t>(n), device);
    splits = Buffer<std::int32_t>::wrap(base + layout.splits, static_cast<std::size_t>(tiles), device);
  }
  // The block sort writes where an even number of passes later leaves the keys in keys_out.
  const Buffer<K>* keys_src = passes % 2 == 0 ? &keys_out : &keys_alt;
  const Buffer<V>* values_src = passes % 2 == 0 ? values_out : &values_alt;
  block_sort(*keys_src, values_src, tiles);
  std::int64_t width = kTile;
  for (int pass = 0; pass < passes; ++pass, width *= 2) {
    const Buffer<K>* keys_dst = keys_src == &keys_out ? &keys_alt : &keys_out;
    const Buffer<V>* values_dst = values_src == values_out ? &values_alt : values_out;
    const auto w = static_cast<std::int32_t>(width);
    const auto t = static_cast<std::int32_t>(tiles);
    kernels.splits.launch(stream, {.grid = ceil_div(tiles, kMergeSortBlock / warp_size), .block = kMergeSortBlock},
                          splits, storage_view(*keys_src), n, w, t);
    if constexpr (Pairs)
      kernels.merge.launch(stream, {.grid = tiles, .block = kMergeSortBlock}, storage_view(*keys_dst),
                           storage_view(*keys_src), *values_dst, *values_src, splits, n, w, t);
    else
      kernels.merge.launch(stream, {.grid = tiles, .block = kMergeSortBlock}, storage_view(*keys_dst),
                           storage_view(*keys_src), splits, n, w, t);
    keys_src = keys_dst;
    values_src = values_dst;
  }
}

/// Queues a merge sort of keys_in (and values_in where Pairs) into keys_out (values_out).
template <bool Pairs, class K, class V, class Comp>
void launch_merge_sort(const Stream& stream, const Buffer<K>& keys_in, Buffer<K>& keys_out, const Buffer<V>* values_in,
                       Buffer<V>* values_out, const Workspace& workspace, const char* algorithm) {
  const auto range = call_range<K>(algorithm);
  const std::int32_t n = checked_count(keys_in.size(), kMergeSortMaxCount, algorithm);
  if (n == 0) return;
  check_size(keys_out.size(), static_cast<std::size_t>(n), algorithm, "key output");
  check_device(keys_in.device(), stream, algorithm, "key input");
  check_device(keys_out.device(), stream, algorithm, "key output");
  if constexpr (Pairs) {
    check_size(values_in->size(), static_cast<std::size_t>(n), algorithm, "value input");
    check_size(values_out->size(), static_cast<std::size_t>(n), algorithm, "value output");
    check_device(values_in->device(), stream, algorithm, "value input");
    check_device(values_out->device(), stream, algorithm, "value output");
  }
  auto& kernels = merge_sort_kernels<Pairs, K, V, Comp>();
  queue_merge_sort<Pairs, K, V, Comp>(
      stream, n, keys_out, values_out, workspace, algorithm,
      [&](const Buffer<K>& keys_dst, const Buffer<V>* values_dst, long long tiles) {
        if constexpr (Pairs)
          kernels.block_sort.launch(stream, {.grid = tiles, .block = kMergeSortBlock}, storage_view(keys_dst),
                                    storage_view(keys_in), *values_dst, *values_in, n);
        else
          kernels.block_sort.launch(stream, {.grid = tiles, .block = kMergeSortBlock}, storage_view(keys_dst),
                                    storage_view(keys_in), n);
      });
}

/// Queues a merge sort of the first n elements of iterator KeyIt `keys_in` (and of ValueIt
/// `values_in` where Pairs) into keys_out (values_out): the iterators read by the block sort.
template <bool Pairs, class KeyIt, class ValueIt, class Comp, class K, class V>
void launch_merge_sort_iterator(const Stream& stream, const KeyIt& keys_in, const ValueIt* values_in, std::size_t items,
                                Buffer<K>& keys_out, Buffer<V>* values_out, const Workspace& workspace,
                                const char* algorithm) {
  const auto range = call_range<K>(algorithm);
  const std::int32_t n = checked_count(items, kMergeSortMaxCount, algorithm);
  if (n == 0) return;
  check_size(keys_out.size(), static_cast<std::size_t>(n), algorithm, "key output");
  check_device(keys_out.device(), stream, algorithm, "key output");
  if constexpr (Pairs) {
    check_size(values_out->size(), static_cast<std::size_t>(n), algorithm, "value output");
    check_device(values_out->device(), stream, algorithm, "value output");
  }
  auto& block_sort = merge_sort_iterator_kernel<Pairs, KeyIt, ValueIt, Comp>();
  queue_merge_sort<Pairs, K, V, Comp>(
      stream, n, keys_out, values_out, workspace, algorithm,
      [&](const Buffer<K>& keys_dst, const Buffer<V>* values_dst, long long tiles) {
        const LaunchConfig config{.grid = tiles, .block = kMergeSortBlock};
        if constexpr (Pairs)
          launch_over(block_sort, stream, config, std::tie(keys_in, *values_in), storage_view(keys_dst), *values_dst,
                      n);
        else launch_over(block_sort, stream, config, std::tie(keys_in), storage_view(keys_dst), n);
      });
}

}  // namespace detail

/// Sorts the n = keys_in.size() keys into keys_out[0, n) in the order of `comp` (a strict
/// weak ordering: comp(a, b) is true when a goes before b; default: less, smallest first),
/// stably: keys that compare equivalent keep their input order. `comp` is traced into the
/// kernels; it must have no side effects and be defined for every pair of keys (the sort also
/// compares keys it then discards). Queued on `stream` without host synchronization: a block
/// sort of each tile of kMergeSortTile<K> keys, then one pass per doubling of the sorted
/// runs (a kernel finding each output tile's merge-path split, a warp per tile searching 32
/// places at a time, and one merging the tiles).
///
/// Keys may be user structs (a StructElement), `comp` then comparing Struct<K> values field
/// by field (a sort by a struct key: `[](Struct<P> a, Struct<P> b) { return a[&P::x] <
/// b[&P::x]; }`); a thread then sorts 5 keys (3 past 16 bytes) and holds their words.
///
/// `keys_out` holds at least n keys and may be `keys_in` (a sort in place); both are of the
/// stream's device. At most kMergeSortMaxCount keys. Temporary storage
/// (merge_sort_workspace_bytes) comes from `workspace`. Throws cutlet::Error for bad
/// arguments.
template <ElementOrStruct K, class Comp = less>
  requires BinaryPredicate<Comp, K>
void merge_sort_keys(const Stream& stream, const Buffer<K>& keys_in, Buffer<K>& keys_out, Comp comp = {},
                     const Workspace& workspace = {}) {
  (void)comp;
  detail::launch_merge_sort<false, K, K, Comp>(stream, keys_in, keys_out, nullptr, nullptr, workspace,
                                               "merge_sort_keys");
}

/// As merge_sort_keys, moving values_in[i] along with keys_in[i]: values_out[j] is the value
/// of the key that lands at keys_out[j]. `values_in` and `values_out` hold at least n values
/// of the stream's device; `values_out` may be `values_in`.
template <ElementOrStruct K, Element V, class Comp = less>
  requires BinaryPredicate<Comp, K>
void merge_sort_pairs(const Stream& stream, const Buffer<K>& keys_in, Buffer<K>& keys_out, const Buffer<V>& values_in,
                      Buffer<V>& values_out, Comp comp = {}, const Workspace& workspace = {}) {
  (void)comp;
  detail::launch_merge_sort<true, K, V, Comp>(stream, keys_in, keys_out, &values_in, &values_out, workspace,
                                              "merge_sort_pairs");
}

/// An iterator merge_sort_keys and merge_sort_pairs read keys from: its elements are numbers
/// (an InputIterator: a counting_iterator, a transform_iterator, a permutation_iterator of a
/// buffer, ...) or user structs (a StructElement: a permutation_iterator of a buffer of them,
/// a StructBufferIterator), It::read giving element i as a Value or a Struct value.
template <class It>
concept MergeSortKeyIterator =
    Iterator<It> && ElementOrStruct<typename It::value_type> &&
    requires(const typename It::Params& p, const i64& i) {
      { It::read(p, i) } -> std::convertible_to<detail::held_t<typename It::value_type>>;
    };

/// The values merge_sort_pairs over iterators takes: a Buffer of an Element type, or an
/// InputIterator.
template <class X>
concept MergeSortValueSource = InputIterator<iterator_of_t<X>>;

/// As merge_sort_keys over a Buffer, sorting the first n elements of iterator `keys_in` (a
/// counting_iterator, a transform_iterator of buffers, a zip of them through a transform, a
/// permutation_iterator, ...; see iterators.h) into keys_out[0, n) (CUB's
/// DeviceMergeSort::SortKeysCopy): stably, in the order of `comp`. The iterator is read once,
/// element i exactly once, by the first kernel (the block sort, into which its reads are
/// traced: no buffer of its elements is made); the merge passes after it work on buffers as
/// the buffer sort's do, with the same workspace (merge_sort_workspace_bytes<K>(n)).
/// `keys_out` (at least n keys, of the stream's device) must not be a buffer the iterator
/// reads; the buffers the iterator reads must be of the stream's device. At most
/// kMergeSortMaxCount keys. Throws cutlet::Error for bad arguments.
template <MergeSortKeyIterator It, class Comp = less>
  requires BinaryPredicate<Comp, typename It::value_type>
void merge_sort_keys(const Stream& stream, const It& keys_in, std::size_t n, Buffer<typename It::value_type>& keys_out,
                     Comp comp = {}, const Workspace& workspace = {}) {
  (void)comp;
  using K = typename It::value_type;
  detail::launch_merge_sort_iterator<false, It, void, Comp, K, K>(stream, keys_in, nullptr, n, keys_out, nullptr,
                                                                  workspace, "merge_sort_keys");
}

/// As merge_sort_keys over an iterator, moving element i of `values_in` along with key i:
/// values_out[j] is the value of the key that lands at keys_out[j] (CUB's
/// DeviceMergeSort::SortPairsCopy). `values_in` is a Buffer of at least n values (of the
/// stream's device) or an InputIterator of them (a counting_iterator gives each key's input
/// position), read once, element i exactly once, by the block sort. `keys_out` and
/// `values_out` (at least n each, of the stream's device) must not be buffers either input
/// reads. Workspace: merge_sort_workspace_bytes<K>(n, sizeof(V)).
template <MergeSortKeyIterator It, MergeSortValueSource Values, class Comp = less>
  requires BinaryPredicate<Comp, typename It::value_type>
void merge_sort_pairs(const Stream& stream, const It& keys_in, std::size_t n, const Values& values_in,
                      Buffer<typename It::value_type>& keys_out,
                      Buffer<typename iterator_of_t<Values>::value_type>& values_out, Comp comp = {},
                      const Workspace& workspace = {}) {
  (void)comp;
  using K = typename It::value_type;
  using ValueIt = iterator_of_t<Values>;
  using V = typename ValueIt::value_type;
  if constexpr (detail::is_buffer_arg<Values>::value) {
    if (n > 0) {
      detail::check_size(values_in.size(), n, "merge_sort_pairs", "value input");
      detail::check_device(values_in.device(), stream, "merge_sort_pairs", "value input");
    }
  }
  const ValueIt value_it = as_iterator(values_in);
  detail::launch_merge_sort_iterator<true, It, ValueIt, Comp, K, V>(stream, keys_in, &value_it, n, keys_out,
                                                                    &values_out, workspace, "merge_sort_pairs");
}

}  // namespace cutlet::algorithms
