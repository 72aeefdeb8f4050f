// top_k: the k largest (or smallest) keys of a buffer and their indices, by radix selection:
// counting passes over the keys' ordered bits, most significant digit first, narrow the k-th
// key down digit by digit; one compaction pass then writes the keys before it and as many of
// those equal to it as are needed, in input order; a radix sort of the k results orders them
// when asked (torch.topk's `sorted`).
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
/// before the launch.
template <class K>
void top_k_count_body(const Ptr<std::uint32_t>& bins, const Ptr<K>& keys, const i32& n,
                      const Value<RadixBits<K>>& flip, const Ptr<std::uint64_t>& state, const u32& shift,
                      const u32& digit_mask) {
  using U = RadixBits<K>;
  constexpr int V = kVectorLanes<K>;
  constexpr int kTile = kTopKBlock * kTopKUnroll;  // vectors per tile
  auto hist = shared_array<std::uint32_t>(kTopKDigits);
  i32 tid = thread_idx().x;
  Value<U> prefix = cast<U>(state[kTopKPrefix].load());
  Value<U> mask = cast<U>(state[kTopKMask].load());
  for (int d = 0; d < kTopKDigits / kTopKBlock; ++d) hist[d * kTopKBlock + tid] = 0u;
  syncthreads();
  auto count = [&](const Value<K>& key) {
    Value<U> bits = ordered_bits<K>(key, flip);
    if_((bits & mask) == prefix, [&] {
      atomic_add(hist[cast<std::int32_t>(radix_digit(bits, shift, digit_mask))], 1u, Scope::Block);
    });
  };
  i32 vectors = n / V;
  i32 full_tiles = vectors / kTile;
  for_range(block_idx().x, full_tiles, grid_dim().x, [&](i32 t) {
    Ptr<K> first = keys + (t * kTile + tid) * V;
    std::vector<Vec<K, V>> loaded;
    for (int u = 0; u < kTopKUnroll; ++u) loaded.push_back(first.template vload<V>(u * kTopKBlock));
    for (const auto& v : loaded)
      for (int j = 0; j < V; ++j) count(v[j]);
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

/// The final pass, one block per tile of kSelectTile<K> keys, as select_tile_body with two
/// selections: a key whose ordered bits under the state's mask are below its prefix is
/// better than the k-th (all k - remaining of them are taken, in input order, to positions
/// [0, k - remaining)); one equal to it is tied, and the first `remaining` tied keys in input
/// order go to [k - remaining, k). Warp ballots rank both in each warp's rows, warp 0 scans
/// the rows' pairs of counts and takes the tile's pair of offsets from the tiles before it
/// (look-back over PackedCountPairStatus); each taken key and its index are stored directly. A
/// tile with no key to take skips the ranking and publishes a zero count pair.
template <class K, class I>
void top_k_select_body(const Ptr<K>& keys_out, const Ptr<I>& indices_out, const Ptr<K>& in, const i32& n, const i32& k,
                       const Value<RadixBits<K>>& flip, const Ptr<std::uint64_t>& state,
                       const Ptr<std::uint32_t>& counter, const Ptr<std::uint64_t>& words) {
  using U = RadixBits<K>;
  constexpr int V = kVectorLanes<K>;
  constexpr int kWarps = kSelectBlock / warp_size;
  constexpr int kRows = kSelectVectors * kWarps;
  auto rows = shared_array<std::uint64_t>(kRows);
  auto row_prefix = shared_array<std::uint64_t>(kRows);
  auto tile_offsets = shared_array<std::uint64_t>(1);
  const PackedCountPairStatus status{words};
  i32 tid = thread_idx().x;
  i32 lane = tid & 31;
  i32 warp = tid >> 5;
  Value<U> prefix = cast<U>(state[kTopKPrefix].load());
  Value<U> mask = cast<U>(state[kTopKMask].load());
  i32 remaining = cast<std::int32_t>(state[kTopKRemaining].load());

  i32 tile = take_tile(counter);
  i32 tile_end = (tile + 1) * kSelectTile<K>;
  const TileItems<K> t = load_tile_items<kSelectBlock, kSelectVectors>(in, n, tile, tid, tile_end <= n);
  std::vector<Value<bool>> better;
  std::vector<Value<bool>> tied;
  for (std::size_t i = 0; i < t.items.size(); ++i) {
    Value<U> bits = ordered_bits<K>(t.items[i], flip) & mask;
    better.push_back((bits < prefix) & t.valid[i]);
    tied.push_back((bits == prefix) & t.valid[i]);
  }
  // Most tiles take nothing (k is small beside n): they only publish an aggregate of zero.
  Var<bool> mine = false;
  for (std::size_t i = 0; i < better.size(); ++i) mine = mine.get() | better[i] | tied[i];
  if_(syncthreads_or(mine.get()),
      [&] {
        const RowRanks better_ranks = row_ranks<kSelectVectors, V>(better);
        const RowRanks tied_ranks = row_ranks<kSelectVectors, V>(tied);
        if_(lane == 0, [&] {
          for (int r = 0; r < kSelectVectors; ++r) {
            const auto row = static_cast<std::size_t>(r);
            rows[r * kWarps + warp] = pack_count_pair(better_ranks.total[row], tied_ranks.total[row]);
          }
        });
        syncthreads();
        if_(warp == 0, [&] {
          Value<std::uint64_t> aggregate = scan_rows<kRows, std::uint64_t>(plus{}, rows, row_prefix, u64(0));
          Value<std::uint64_t> exclusive = tile_exclusive_prefix<std::uint64_t>(plus{}, status, tile, aggregate, u64(0));
          if_(lane == 0, [&] { tile_offsets[0] = exclusive; });
        });
        syncthreads();

        Value<std::uint64_t> tile_offset = tile_offsets[0].load();
        i32 tied_base = k - remaining;
        for (int r = 0; r < kSelectVectors; ++r) {
          const auto row = static_cast<std::size_t>(r);
          Value<std::uint64_t> before = tile_offset + row_prefix[r * kWarps + warp].load();
          i32 better_before = first_of_pair(before) + better_ranks.below[row];
          i32 tied_before = second_of_pair(before) + tied_ranks.below[row];
          for (int j = 0; j < V; ++j) {
            const auto i = static_cast<std::size_t>(r * V + j);
            Value<bool> take_tied = tied[i] & (tied_before < remaining);
            if_(better[i] | take_tied, [&] {
              i32 at = select(better[i], better_before, tied_base + tied_before);
              keys_out[at] = t.items[i];
              indices_out[at] = cast<I>(t.first[row] + j);
            });
            better_before = better_before + cast<std::int32_t>(better[i]);
            tied_before = tied_before + cast<std::int32_t>(tied[i]);
          }
        }
      },
      [&] {
        if_(warp == 0, [&] { tile_exclusive_prefix<std::uint64_t>(plus{}, status, tile, u64(0), u64(0)); });
      });
}

/// The kernels of top_k for keys of K and indices of I: the counting pass, the choice of
/// digit after it, and the final selection.
template <class K, class I>
struct TopKKernels {
  static auto make_count() {
    return cutlet::kernel(
        [](Ptr<std::uint32_t> bins, Ptr<K> keys, i32 n, Value<RadixBits<K>> flip, Ptr<std::uint64_t> state, u32 shift,
           u32 digit_mask) { top_k_count_body<K>(bins, keys, n, flip, state, shift, digit_mask); },
        {.name = std::string("cutlet_top_k_count_") + element_name<K>()});
  }
  static auto make_choose() {
    return cutlet::kernel(
        [](Ptr<std::uint64_t> state, Ptr<std::uint32_t> bins, u32 shift, u32 digit_mask, i32 k, Value<bool> first_pass) {
          top_k_choose_body(state, bins, shift, digit_mask, k, first_pass);
        },
        {.name = "cutlet_top_k_choose"});
  }
  static auto make_select() {
    return cutlet::kernel(
        [](Ptr<K> keys_out, Ptr<I> indices_out, Ptr<K> in, i32 n, i32 k, Value<RadixBits<K>> flip,
           Ptr<std::uint64_t> state, Ptr<std::uint32_t> counter, Ptr<std::uint64_t> words) {
          top_k_select_body<K, I>(keys_out, indices_out, in, n, k, flip, state, counter, words);
        },
        {.name = std::string("cutlet_top_k_select_") + element_name<K>() + "_" + element_name<I>()});
  }
  decltype(make_count()) count = make_count();
  decltype(make_choose()) choose = make_choose();
  decltype(make_select()) select = make_select();
};

}  // namespace detail

/// The kernels of top_k for keys of K and indices of I (made at the first use, then shared),
/// for inspection and compiling ahead: `.count`, `.choose` and `.select`.
template <Element K, TopKIndex I>
detail::TopKKernels<K, I>& top_k_kernels() {
  static detail::TopKKernels<K, I> kernels;
  return kernels;
}

/// Bytes of temporary storage top_k needs for `n` keys of K and `k` results with indices of
/// I (for Workspace::borrow): the passes' digit counts, the selection's state and the final
/// pass's look-back, or the sort of the k results with options.sorted if that is more.
template <Element K, TopKIndex I>
std::size_t top_k_workspace_bytes(std::size_t n, std::size_t k, const TopKOptions& options = {}) {
  if (n == 0 || k == 0) return 0;
  const detail::TopKPasses passes{static_cast<int>(8 * sizeof(K))};
  const auto tiles = static_cast<std::int64_t>((n + kSelectTile<K> - 1) / kSelectTile<K>);
  const std::size_t select_bytes = detail::top_k_layout(passes.count(), tiles).total_bytes;
  return options.sorted ? std::max(select_bytes, radix_sort_workspace_bytes<K>(k, sizeof(I))) : select_bytes;
}

/// The k best keys of `in` (n = in.size()) by CUB's key order, the k largest or with
/// options.largest false the k smallest, to keys_out[0, k), and their positions in `in` to
/// indices_out[0, k); the rest of both outputs is left alone. Queued on `stream` without host
/// synchronization: a memset, a counting kernel and a one-block kernel per 11 bits of the key
/// (3 of each for 4-byte keys, 6 for 8-byte ones), one selection kernel, and with
/// options.sorted a radix sort of the k results.
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
  const long long tiles = ceil_div(n, kSelectTile<K>);
  const detail::TopKLayout layout = detail::top_k_layout(passes.count(), tiles);
  detail::Scratch scratch = detail::acquire(workspace, stream, layout.total_bytes, name);
  detail::zero_bytes(stream, scratch.address(), layout.total_bytes);
  const std::uint64_t base = scratch.address();
  const auto state = Buffer<std::uint64_t>::wrap(base + layout.state, detail::kTopKStateWords, device);
  const auto counter = Buffer<std::uint32_t>::wrap(base + layout.counter, 1, device);
  const auto words = Buffer<std::uint64_t>::wrap(base + layout.words, static_cast<std::size_t>(tiles), device);
  // The k largest are the k smallest of the ordered bits inverted.
  using U = detail::RadixBits<K>;
  const U flip = options.largest ? ~U{0} : U{0};
  const auto count = static_cast<std::int32_t>(k);

  auto& kernels = top_k_kernels<K, I>();
  const std::int64_t vectors = n / detail::kVectorLanes<K> + 1;
  const int grid = detail::streaming_grid(device, vectors, std::int64_t{kTopKBlock} * kTopKUnroll, kTopKBlocksPerSm);
  for (int p = 0; p < passes.count(); ++p) {
    const auto bins = Buffer<std::uint32_t>::wrap(
        base + layout.bins + static_cast<std::size_t>(p) * detail::kTopKDigits * sizeof(std::uint32_t),
        detail::kTopKDigits, device);
    const auto shift = static_cast<std::uint32_t>(passes.shift(p));
    const std::uint32_t digit_mask = (1u << passes.width(p)) - 1u;
    kernels.count.launch(stream, {.grid = grid, .block = kTopKBlock}, bins, in, n, flip, state, shift, digit_mask);
    kernels.choose.launch(stream, {.grid = 1, .block = kTopKBlock}, state, bins, shift, digit_mask, count, p == 0);
  }
  kernels.select.launch(stream, {.grid = tiles, .block = kSelectBlock}, keys_out, indices_out, in, n, count, flip,
                        state, counter, words);
  if (options.sorted && k > 1) {
    auto best_keys = Buffer<K>::wrap(keys_out.data(), k, device);
    auto best_indices = Buffer<I>::wrap(indices_out.data(), k, device);
    radix_sort_pairs(stream, best_keys, best_keys, best_indices, best_indices,
                     RadixSortOptions{.descending = options.largest}, workspace);
  }
}

}  // namespace cutlet::algorithms
