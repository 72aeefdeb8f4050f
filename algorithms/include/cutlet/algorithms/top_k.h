// top_k: the k largest (or smallest) keys of a buffer and their indices, by radix selection:
// counting passes over the keys' ordered bits, most significant digit first, narrow the k-th
// key down digit by digit, the last marking the tiles that hold keys at or before it; three
// final passes count the keys to take in the marked tiles, sum the counts, and write the keys
// before the k-th and as many of those equal to it as are needed, in input order; a radix
// sort of the k results orders them when asked (torch.topk's `sorted`).
#pragma once

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "cutlet/algorithms/detail/call_range.h"
#include "cutlet/algorithms/detail/compaction.h"
#include "cutlet/algorithms/detail/host_checks.h"
#include "cutlet/algorithms/detail/launch_shape.h"
#include "cutlet/algorithms/detail/lookback.h"
#include "cutlet/algorithms/detail/radix_digits.h"
#include "cutlet/algorithms/detail/top_k_layout.h"
#include "cutlet/algorithms/element.h"
#include "cutlet/algorithms/radix_sort.h"
#include "cutlet/algorithms/select.h"
#include "cutlet/runtime/launch.h"
#include "cutlet/algorithms/workspace.h"
#include "cutlet/jit/kernel.h"
#include "cutlet/language/atomic.h"
#include "cutlet/language/control.h"
#include "cutlet/language/index.h"
#include "cutlet/language/memory.h"
#include "cutlet/language/pointer.h"
#include "cutlet/runtime/buffer.h"
#include "cutlet/runtime/stream.h"

namespace cutlet::algorithms {

/// The index types top_k writes: std::int32_t, or std::int64_t (as torch.topk returns).
template <class I>
concept TopKIndex = std::same_as<I, std::int32_t> || std::same_as<I, std::int64_t>;

/// Which keys top_k takes and how it returns them.
struct TopKOptions {
  /// The k largest keys (true) or the k smallest (false).
  bool largest = true;
  /// The results ordered best first (largest first, or smallest first), equal keys by
  /// ascending index. When false, they come in input order: first the keys strictly better
  /// than the k-th best, then the keys equal to it; this saves a sort of the k results.
  bool sorted = true;
};

/// Threads per block of top_k's counting and choosing kernels.
inline constexpr int kTopKBlock = 256;
/// 16-byte vectors each thread of a counting pass loads per tile, all before counting any.
inline constexpr int kTopKUnroll = 4;
/// Blocks per SM of a counting pass.
inline constexpr int kTopKBlocksPerSm = 8;

namespace detail {

/// One counting pass: counts the keys whose ordered bits match the state's prefix under its
/// mask by their digit at `shift` (digit_mask wide) into bins[0, kTopKDigits). A grid-stride
/// loop over tiles of kTopKBlock * kTopKUnroll 16-byte vectors, then the partial last tile
/// and the n % lanes last keys; each block counts into shared memory with block-scope atomics
/// and adds its nonzero counts to `bins` with one global atomic each. `bins` must be zero
/// before the launch. With `mark` (the last pass), marks[t] also tells for each full tile t
/// whether it holds a key at or before the state's prefix ((bits & mask) <= prefix): the
/// tiles the final passes look at again.
template <class K>
void top_k_count_body(const Ptr<std::uint32_t>& bins, const Ptr<K>& keys, const i32& n,
                      const Value<RadixBits<K>>& flip, const Ptr<std::uint64_t>& state, const u32& shift,
                      const u32& digit_mask, const Ptr<std::uint32_t>& marks, const Value<bool>& mark) {
  using U = RadixBits<K>;
  constexpr int V = kVectorLanes<K>;
  constexpr int kTile = kTopKBlock * kTopKUnroll;  // vectors per tile
  auto hist = shared_array<std::uint32_t>(kTopKDigits);
  i32 tid = thread_idx().x;
  Value<U> prefix = cast<U>(state[kTopKPrefix].load());
  Value<U> mask = cast<U>(state[kTopKMask].load());
  for (int d = 0; d < kTopKDigits / kTopKBlock; ++d) hist[d * kTopKBlock + tid] = 0u;
  syncthreads();
  // Counts a key; returns its ordered bits under the mask.
  auto count = [&](const Value<K>& key) {
    Value<U> bits = ordered_bits<K>(key, flip);
    Value<U> masked = bits & mask;
    if_(masked == prefix, [&] {
      atomic_add(hist[cast<std::int32_t>(radix_digit(bits, shift, digit_mask))], 1u, Scope::Block);
    });
    return masked;
  };
  i32 vectors = n / V;
  i32 full_tiles = vectors / kTile;
  for_range(block_idx().x, full_tiles, grid_dim().x, [&](i32 t) {
    Ptr<K> first = keys + (t * kTile + tid) * V;
    std::vector<Vec<K, V>> loaded;
    for (int u = 0; u < kTopKUnroll; ++u) loaded.push_back(first.template vload<V>(u * kTopKBlock));
    Var<bool> at_or_before = false;
    for (const auto& v : loaded)
      for (int j = 0; j < V; ++j) at_or_before = at_or_before.get() | (count(v[j]) <= prefix);
    // The block takes the same branch: `mark` is a kernel parameter.
    if_(mark, [&] {
      Value<bool> any = syncthreads_or(at_or_before.get());
      if_(tid == 0, [&] { marks[t] = cast<std::uint32_t>(any); });
    });
  });
  i32 partial = full_tiles * kTile;
  if_((partial < vectors) & (block_idx().x == full_tiles % grid_dim().x), [&] {
    for (int u = 0; u < kTopKUnroll; ++u) {
      i32 i = partial + tid + u * kTopKBlock;
      if_(i < vectors, [&] {
        Vec<K, V> v = keys.template vload<V>(i);
        for (int j = 0; j < V; ++j) count(v[j]);
      });
    }
  });
  i32 tail = vectors * V + block_idx().x * kTopKBlock + tid;
  if_(tail < n, [&] { count(keys[tail].load()); });
  syncthreads();
  for (int d = 0; d < kTopKDigits / kTopKBlock; ++d) {
    i32 digit = d * kTopKBlock + tid;
    u32 c = hist[digit];
    if_(c != 0u, [&] { atomic_add(bins[digit], c); });
  }
}

/// After counting pass p (one block of kTopKBlock threads): finds the digit of the key still
/// sought, the state's `remaining`-th among the matching keys (k itself after the first
/// pass), and narrows the state to it: the digit joins the prefix and its bits the mask,
/// `remaining` drops by the matching keys of smaller digits. After the last pass the prefix is
/// the k-th best key's ordered bits (whole), `remaining` how many keys equal to it are taken.
inline void top_k_choose_body(const Ptr<std::uint64_t>& state, const Ptr<std::uint32_t>& bins, const u32& shift,
                              const u32& digit_mask, const i32& k, const Value<bool>& first_pass) {
  constexpr int kPerThread = kTopKDigits / kTopKBlock;
  i32 tid = thread_idx().x;
  i32 need = select(first_pass, k, cast<std::int32_t>(state[kTopKRemaining].load()));
  std::vector<i32> counts;
  i32 mine = 0;
  for (int j = 0; j < kPerThread; ++j) {
    counts.push_back(cast<std::int32_t>(bins[tid * kPerThread + j].load()));
    mine = mine + counts.back();
  }
  i32 before = block_exclusive_sum<kTopKBlock>(mine);  // every thread has read the state
  if_((before < need) & (need <= before + mine), [&] {
    Var<std::int32_t> below = before;  // matching keys of the digits before the one found
    Var<std::int32_t> digit = 0;
    Var<bool> found = false;
    for (int j = 0; j < kPerThread; ++j) {
      if_(!found.get(), [&] {
        if_(below.get() + counts[j] >= need,
            [&] {
              found = true;
              digit = tid * kPerThread + j;
            },
            [&] { below = below.get() + counts[j]; });
      });
    }
    u64 wide_shift = cast<std::uint64_t>(shift);
    state[kTopKPrefix] = state[kTopKPrefix].load() | (cast<std::uint64_t>(digit.get()) << wide_shift);
    state[kTopKMask] = state[kTopKMask].load() | (cast<std::uint64_t>(digit_mask) << wide_shift);
    state[kTopKRemaining] = cast<std::uint64_t>(need - below.get());
  });
}

/// Keys per tile of the final passes: the counting pass's tiles (kTopKBlock threads, each
/// kTopKUnroll 16-byte vectors), which it marks.
template <class K>
inline constexpr int kTopKTile = kSelectTile<K>;

/// A thread's keys of tile `tile` (load_tile_items) sorted into those better than the k-th
/// best (ordered bits under the state's mask below its prefix) and those tied with it (equal
/// to it), both false past n.
template <class K>
struct TopKTileKeys {
  TileItems<K> t;
  std::vector<Value<bool>> better;
  std::vector<Value<bool>> tied;
};
template <class K>
TopKTileKeys<K> top_k_tile_keys(const Ptr<K>& in, const i32& n, const i32& tile, const Value<RadixBits<K>>& flip,
                                const Ptr<std::uint64_t>& state) {
  using U = RadixBits<K>;
  static_assert(kTopKTile<K> == kTopKBlock * kTopKUnroll * kVectorLanes<K> && kSelectBlock == kTopKBlock,
                "top_k's final passes read the tiles its counting pass marks");
  Value<U> prefix = cast<U>(state[kTopKPrefix].load());
  Value<U> mask = cast<U>(state[kTopKMask].load());
  i32 tid = thread_idx().x;
  TopKTileKeys<K> r{load_tile_items<kSelectBlock, kSelectVectors>(in, n, tile, tid, (tile + 1) * kTopKTile<K> <= n),
                    {},
                    {}};
  for (std::size_t i = 0; i < r.t.items.size(); ++i) {
    Value<U> bits = ordered_bits<K>(r.t.items[i], flip) & mask;
    r.better.push_back((bits < prefix) & r.t.valid[i]);
    r.tied.push_back((bits == prefix) & r.t.valid[i]);
  }
  return r;
}

/// Whether the final passes look at tile `tile` of `tiles`: the last counting pass marked it,
/// or it is the last (which that pass does not mark).
inline Value<bool> top_k_tile_marked(const Ptr<std::uint32_t>& marks, const i32& tile, const i32& tiles) {
  return (tile == tiles - 1) | (marks[tile].load() != 0u);
}

/// The first final pass, one block per tile: counts[tile] = the tile's better and tied keys as
/// pack_count_pair(better, tied), 0 for a tile not marked (which is not read).
template <class K>
void top_k_tally_body(const Ptr<std::uint64_t>& counts, const Ptr<K>& in, const i32& n, const i32& tiles,
                      const Value<RadixBits<K>>& flip, const Ptr<std::uint64_t>& state,
                      const Ptr<std::uint32_t>& marks) {
  i32 tile = block_idx().x;
  i32 tid = thread_idx().x;
  if_(top_k_tile_marked(marks, tile, tiles),
      [&] {
        const TopKTileKeys<K> keys = top_k_tile_keys<K>(in, n, tile, flip, state);
        i32 better = 0;
        i32 tied = 0;
        for (std::size_t i = 0; i < keys.better.size(); ++i) {
          better = better + cast<std::int32_t>(keys.better[i]);
          tied = tied + cast<std::int32_t>(keys.tied[i]);
        }
        Maybe<std::uint64_t> sum =
            block_reduce<kSelectBlock, std::uint64_t>(plus{}, Maybe<std::uint64_t>{pack_count_pair(better, tied), true});
        if_(tid == 0, [&] { counts[tile] = sum.value; });
      },
      [&] { if_(tid == 0, [&] { counts[tile] = u64(std::uint64_t{0}); }); });
}

/// Threads of the second final pass's one block, and the consecutive tiles each sums per step.
inline constexpr int kTopKScanBlock = 256;
inline constexpr int kTopKScanItems = 16;

/// The second final pass, one block: offsets[t] = the sum of counts[0, t) (both counts of each
/// pair at once), in steps of kTopKScanBlock * kTopKScanItems tiles: each thread sums its
/// kTopKScanItems consecutive counts, the block scans the threads' sums, and each thread
/// writes its tiles' offsets from its share.
inline void top_k_offsets_body(const Ptr<std::uint64_t>& offsets, const Ptr<std::uint64_t>& counts, const i32& tiles) {
  constexpr int kWarps = kTopKScanBlock / warp_size;
  constexpr int kStep = kTopKScanBlock * kTopKScanItems;
  auto warp_sums = shared_array<std::uint64_t>(kWarps);
  i32 tid = thread_idx().x;
  i32 lane = tid & 31;
  i32 warp = tid >> 5;
  const u64 zero = u64(std::uint64_t{0});
  Var<std::uint64_t> carry = zero;
  for_range(i32(0), tiles, kStep, [&](i32 step) {
    i32 first = step + tid * kTopKScanItems;
    std::vector<Value<std::uint64_t>> mine;
    Value<std::uint64_t> sum = zero;
    for (int j = 0; j < kTopKScanItems; ++j) {
      // Unguarded loads (a tile past the end reads the last one and counts nothing), all in
      // flight at once.
      Value<std::uint64_t> c = counts[min(first + j, tiles - 1)].load();
      mine.push_back(select(first + j < tiles, c, zero));
      sum = sum + mine.back();
    }
    Value<std::uint64_t> inclusive = warp_inclusive_scan<std::uint64_t>(plus{}, sum);
    if_(lane == warp_size - 1, [&] { warp_sums[warp] = inclusive; });
    syncthreads();
    Value<std::uint64_t> before = carry.get() + inclusive - sum;
    Value<std::uint64_t> total = zero;
    for (int w = 0; w < kWarps; ++w) {
      Value<std::uint64_t> s = warp_sums[w].load();
      before = before + select(warp > w, s, zero);
      total = total + s;
    }
    for (int j = 0; j < kTopKScanItems; ++j) {
      if_(first + j < tiles, [&] { offsets[first + j] = before; });
      before = before + mine[static_cast<std::size_t>(j)];
    }
    carry = carry.get() + total;
    syncthreads();  // warp_sums is reused by the next step
  });
}

/// The last final pass, one block per tile with keys to take (the others return at once):
/// ranks the tile's better and tied keys in input order (warp ballots, then warp 0's scan of
/// the rows' count pairs) and stores each taken key and its index. The better keys go to
/// [0, k - remaining), all of them; of the tied keys, the first `remaining` in input order go
/// to [k - remaining, k).
template <class K, class I>
void top_k_write_body(const Ptr<K>& keys_out, const Ptr<I>& indices_out, const Ptr<K>& in, const i32& n, const i32& k,
                      const Value<RadixBits<K>>& flip, const Ptr<std::uint64_t>& state,
                      const Ptr<std::uint64_t>& counts, const Ptr<std::uint64_t>& offsets) {
  constexpr int V = kVectorLanes<K>;
  constexpr int kWarps = kSelectBlock / warp_size;
  constexpr int kRows = kSelectVectors * kWarps;
  i32 tile = block_idx().x;
  if_(counts[tile].load() != std::uint64_t{0}, [&] {
    auto rows = shared_array<std::uint64_t>(kRows);
    auto row_prefix = shared_array<std::uint64_t>(kRows);
    i32 tid = thread_idx().x;
    i32 lane = tid & 31;
    i32 warp = tid >> 5;
    i32 remaining = cast<std::int32_t>(state[kTopKRemaining].load());
    const TopKTileKeys<K> keys = top_k_tile_keys<K>(in, n, tile, flip, state);
    const RowRanks better_ranks = row_ranks<kSelectVectors, V>(keys.better);
    const RowRanks tied_ranks = row_ranks<kSelectVectors, V>(keys.tied);
    if_(lane == 0, [&] {
      for (int r = 0; r < kSelectVectors; ++r) {
        const auto row = static_cast<std::size_t>(r);
        rows[r * kWarps + warp] = pack_count_pair(better_ranks.total[row], tied_ranks.total[row]);
      }
    });
    syncthreads();
    if_(warp == 0, [&] { scan_rows<kRows, std::uint64_t>(plus{}, rows, row_prefix, u64(std::uint64_t{0})); });
    syncthreads();
    Value<std::uint64_t> tile_offset = offsets[tile].load();
    i32 tied_base = k - remaining;
    for (int r = 0; r < kSelectVectors; ++r) {
      const auto row = static_cast<std::size_t>(r);
      Value<std::uint64_t> before = tile_offset + row_prefix[r * kWarps + warp].load();
      i32 better_before = first_of_pair(before) + better_ranks.below[row];
      i32 tied_before = second_of_pair(before) + tied_ranks.below[row];
      for (int j = 0; j < V; ++j) {
        const auto i = static_cast<std::size_t>(r * V + j);
        Value<bool> take_tied = keys.tied[i] & (tied_before < remaining);
        if_(keys.better[i] | take_tied, [&] {
          i32 at = select(keys.better[i], better_before, tied_base + tied_before);
          keys_out[at] = keys.t.items[i];
          indices_out[at] = cast<I>(keys.t.first[row] + j);
        });
        better_before = better_before + cast<std::int32_t>(keys.better[i]);
        tied_before = tied_before + cast<std::int32_t>(keys.tied[i]);
      }
    }
  });
}

/// The kernels of top_k for keys of K and indices of I: the counting pass, the choice of
/// digit after it, and the final selection.
template <class K, class I>
struct TopKKernels {
  static auto make_count() {
    return cutlet::kernel(
        [](Ptr<std::uint32_t> bins, Ptr<K> keys, i32 n, Value<RadixBits<K>> flip, Ptr<std::uint64_t> state, u32 shift,
           u32 digit_mask, Ptr<std::uint32_t> marks, Value<bool> mark) {
          top_k_count_body<K>(bins, keys, n, flip, state, shift, digit_mask, marks, mark);
        },
        {.name = std::string("cutlet_top_k_count_") + element_name<K>()});
  }
  static auto make_choose() {
    return cutlet::kernel(
        [](Ptr<std::uint64_t> state, Ptr<std::uint32_t> bins, u32 shift, u32 digit_mask, i32 k, Value<bool> first_pass) {
          top_k_choose_body(state, bins, shift, digit_mask, k, first_pass);
        },
        {.name = "cutlet_top_k_choose"});
  }
  static auto make_tally() {
    return cutlet::kernel(
        [](Ptr<std::uint64_t> counts, Ptr<K> in, i32 n, i32 tiles, Value<RadixBits<K>> flip, Ptr<std::uint64_t> state,
           Ptr<std::uint32_t> marks) { top_k_tally_body<K>(counts, in, n, tiles, flip, state, marks); },
        {.name = std::string("cutlet_top_k_tally_") + element_name<K>()});
  }
  static auto make_offsets() {
    return cutlet::kernel([](Ptr<std::uint64_t> offsets, Ptr<std::uint64_t> counts,
                             i32 tiles) { top_k_offsets_body(offsets, counts, tiles); },
                          {.name = "cutlet_top_k_offsets"});
  }
  static auto make_write() {
    return cutlet::kernel(
        [](Ptr<K> keys_out, Ptr<I> indices_out, Ptr<K> in, i32 n, i32 k, Value<RadixBits<K>> flip,
           Ptr<std::uint64_t> state, Ptr<std::uint64_t> counts, Ptr<std::uint64_t> offsets) {
          top_k_write_body<K, I>(keys_out, indices_out, in, n, k, flip, state, counts, offsets);
        },
        {.name = std::string("cutlet_top_k_write_") + element_name<K>() + "_" + element_name<I>()});
  }
  decltype(make_count()) count = make_count();
  decltype(make_choose()) choose = make_choose();
  decltype(make_tally()) tally = make_tally();
  decltype(make_offsets()) offsets = make_offsets();
  decltype(make_write()) write = make_write();
};

}  // namespace detail

/// The kernels of top_k for keys of K and indices of I (made at the first use, then shared),
/// for inspection and compiling ahead: `.count`, `.choose`, `.tally`, `.offsets` and
/// `.write`.
template <Element K, TopKIndex I>
detail::TopKKernels<K, I>& top_k_kernels() {
  static detail::TopKKernels<K, I> kernels;
  return kernels;
}

/// Bytes of temporary storage top_k needs for `n` keys of K and `k` results with indices of
/// I (for Workspace::borrow): the passes' digit counts, the selection's state and the final
/// passes' marks, counts and offsets per tile, or the sort of the k results with
/// options.sorted if that is more.
template <Element K, TopKIndex I>
std::size_t top_k_workspace_bytes(std::size_t n, std::size_t k, const TopKOptions& options = {}) {
  if (n == 0 || k == 0) return 0;
  const detail::TopKPasses passes{static_cast<int>(8 * sizeof(K))};
  const auto tiles = static_cast<std::int64_t>((n + detail::kTopKTile<K> - 1) / detail::kTopKTile<K>);
  const std::size_t select_bytes = detail::top_k_layout(passes.count(), tiles).total_bytes;
  return options.sorted ? std::max(select_bytes, radix_sort_workspace_bytes<K>(k, sizeof(I))) : select_bytes;
}

/// The k best keys of `in` (n = in.size()) by CUB's key order, the k largest or with
/// options.largest false the k smallest, to keys_out[0, k), and their positions in `in` to
/// indices_out[0, k); the rest of both outputs is left alone. Queued on `stream` without host
/// synchronization: a memset, a counting kernel and a one-block kernel per 11 bits of the key
/// (3 of each for 4-byte keys, 6 for 8-byte ones), three final kernels (a count per marked
/// tile, their sum, the writes; only the tiles that hold keys to take are read again), and
/// with options.sorted a radix sort of the k results.
///
/// The order is radix_sort_keys's: integers by value; floats by value with -0.0 equal to
/// +0.0, NaNs with the sign bit clear above +inf (the largest keys) and those with it set
/// below -inf. Among keys equal to the k-th best, those of the lowest indices are taken, and
/// sorted results list equal keys by ascending index: the result is the same on every run.
/// The keys written are the input's own (a -0.0 stays -0.0).
///
/// k <= n (Error otherwise); k = 0 queues nothing. `keys_out` and `indices_out` hold at least
/// k elements and overlap neither `in` nor each other; all are of the stream's device, `in`
/// 16-byte aligned. At most kSelectMaxCount keys. Temporary storage (top_k_workspace_bytes)
/// comes from `workspace`. Throws cutlet::Error for bad arguments.
template <Element K, TopKIndex I>
void top_k(const Stream& stream, const Buffer<K>& in, std::size_t k, Buffer<K>& keys_out, Buffer<I>& indices_out,
           const TopKOptions& options = {}, const Workspace& workspace = {}) {
  const char* name = "top_k";
  const auto range = detail::call_range<K>(name);
  const std::int32_t n = detail::checked_count(in.size(), kSelectMaxCount, name);
  if (k > static_cast<std::size_t>(n))
    throw Error("cutlet::algorithms::top_k: k = " + std::to_string(k) + " is more than the " + std::to_string(n) +
                " keys of the input; ask for at most as many keys as there are");
  if (k == 0) return;
  detail::check_size(keys_out.size(), k, name, "keys output");
  detail::check_size(indices_out.size(), k, name, "indices output");
  detail::check_device(in.device(), stream, name, "input");
  detail::check_device(keys_out.device(), stream, name, "keys output");
  detail::check_device(indices_out.device(), stream, name, "indices output");
  detail::check_aligned(in.data(), name, "input");
  detail::check_disjoint(keys_out.data(), k * sizeof(K), in.data(), in.size() * sizeof(K), name, "keys output",
                         "input");
  detail::check_disjoint(indices_out.data(), k * sizeof(I), in.data(), in.size() * sizeof(K), name, "indices output",
                         "input");
  detail::check_disjoint(keys_out.data(), k * sizeof(K), indices_out.data(), k * sizeof(I), name, "keys output",
                         "indices output");

  const Device device = stream.device();
  const detail::TopKPasses passes{static_cast<int>(8 * sizeof(K))};
  const long long tiles = ceil_div(n, detail::kTopKTile<K>);
  const detail::TopKLayout layout = detail::top_k_layout(passes.count(), tiles);
  detail::Scratch scratch = detail::acquire(workspace, stream, layout.total_bytes, name);
  detail::zero_bytes(stream, scratch.address(), layout.zeroed_bytes);
  const std::uint64_t base = scratch.address();
  const auto state = Buffer<std::uint64_t>::wrap(base + layout.state, detail::kTopKStateWords, device);
  const auto tile_count = static_cast<std::size_t>(tiles);
  const auto marks = Buffer<std::uint32_t>::wrap(base + layout.marks, tile_count, device);
  const auto counts = Buffer<std::uint64_t>::wrap(base + layout.counts, tile_count, device);
  const auto offsets = Buffer<std::uint64_t>::wrap(base + layout.offsets, tile_count, device);
  // The k largest are the k smallest of the ordered bits inverted.
  using U = detail::RadixBits<K>;
  const U flip = options.largest ? detail::kRadixKeyMask<K> : U{0};
  const auto count = static_cast<std::int32_t>(k);
  const auto tiles32 = static_cast<std::int32_t>(tiles);

  auto& kernels = top_k_kernels<K, I>();
  const std::int64_t vectors = n / detail::kVectorLanes<K> + 1;
  const int grid = detail::streaming_grid(device, vectors, std::int64_t{kTopKBlock} * kTopKUnroll, kTopKBlocksPerSm);
  for (int p = 0; p < passes.count(); ++p) {
    const auto bins = Buffer<std::uint32_t>::wrap(
        base + layout.bins + static_cast<std::size_t>(p) * detail::kTopKDigits * sizeof(std::uint32_t),
        detail::kTopKDigits, device);
    const auto shift = static_cast<std::uint32_t>(passes.shift(p));
    const std::uint32_t digit_mask = (1u << passes.width(p)) - 1u;
    const bool last = p == passes.count() - 1;
    kernels.count.launch(stream, {.grid = grid, .block = kTopKBlock}, bins, in, n, flip, state, shift, digit_mask,
                         marks, last);
    kernels.choose.launch(stream, {.grid = 1, .block = kTopKBlock}, state, bins, shift, digit_mask, count, p == 0);
  }
  kernels.tally.launch(stream, {.grid = tiles, .block = kSelectBlock}, counts, in, n, tiles32, flip, state, marks);
  kernels.offsets.launch(stream, {.grid = 1, .block = detail::kTopKScanBlock}, offsets, counts, tiles32);
  kernels.write.launch(stream, {.grid = tiles, .block = kSelectBlock}, keys_out, indices_out, in, n, count, flip, state,
                       counts, offsets);
  if (options.sorted && k > 1) {
    auto best_keys = Buffer<K>::wrap(keys_out.data(), k, device);
    auto best_indices = Buffer<I>::wrap(indices_out.data(), k, device);
    radix_sort_pairs(stream, best_keys, best_keys, best_indices, best_indices,
                     RadixSortOptions{.descending = options.largest}, workspace);
  }
}

}  // namespace cutlet::algorithms
