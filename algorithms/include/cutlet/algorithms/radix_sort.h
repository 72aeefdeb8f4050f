// radix_sort_keys and radix_sort_pairs: stable LSD radix sorts of keys (and values carried
// along) by 8-bit digits, one pass per digit with decoupled look-back over the tiles' digit
// counts (Adinets and Merrill, "Onesweep: A Faster Least Significant Digit Radix Sort for
// GPUs"; CUB's DeviceRadixSort).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "cutlet/algorithms/detail/call_range.h"
#include "cutlet/algorithms/detail/host_checks.h"
#include "cutlet/algorithms/detail/launch_shape.h"
#include "cutlet/algorithms/detail/lookback.h"
#include "cutlet/algorithms/detail/radix_digits.h"
#include "cutlet/algorithms/detail/radix_sort_layout.h"
#include "cutlet/algorithms/detail/warp_block.h"
#include "cutlet/algorithms/detail/workspace_alignment.h"
#include "cutlet/algorithms/element.h"
#include "cutlet/algorithms/iterators.h"
#include "cutlet/algorithms/operators.h"
#include "cutlet/algorithms/transform.h"
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
#include "cutlet/runtime/stream.h"

namespace cutlet::algorithms {

/// Bits of the digit each pass sorts by.
inline constexpr int kRadixBits = 8;
/// Digits per pass (2^kRadixBits).
inline constexpr int kRadixDigits = 1 << kRadixBits;
/// Threads per block of the sorting passes (one block per tile); the first kRadixDigits
/// threads each look after one digit.
inline constexpr int kRadixBlock = 384;
/// Threads per block of the kernel counting every pass's digits: one per digit.
inline constexpr int kRadixHistogramBlock = kRadixDigits;
/// Keys per thread in a sorting pass: 20 of 4 bytes, 12 of 8, with values as without (the
/// values are loaded once the keys wait in shared memory, so keys and their ranks, then
/// ranks and values, fit the 80 registers of two blocks per SM).
template <class K, bool Pairs = false>
inline constexpr int kRadixItems = sizeof(K) <= 4 ? 20 : 12;
/// Keys per tile of radix_sort_keys (Pairs false) or radix_sort_pairs.
template <class K, bool Pairs = false>
inline constexpr int kRadixTile = kRadixBlock * kRadixItems<K, Pairs>;
/// The most keys the sorts take: output places are 32-bit.
inline constexpr std::int64_t kRadixSortMaxCount = (std::int64_t{1} << 32) - 1;
/// Keys per portion: a sorting pass over more keys runs as one launch per portion (CUB's
/// onesweep does the same), since the look-back's status words hold counts below 2^30. A
/// whole number of tiles, so that only the last portion has a partial tile.
template <class K, bool Pairs = false>
inline constexpr std::int64_t kRadixPortion =
    ((std::int64_t{1} << 30) - 1) / kRadixTile<K, Pairs> * kRadixTile<K, Pairs>;

/// What a radix sort sorts by, and in which order.
struct RadixSortOptions {
  /// Largest key first. Equal keys keep their input order either way (the sorts are stable).
  bool descending = false;
  /// The sort looks at bits [begin_bit, end_bit) of each key's ordered bits (the key's own
  /// bits for unsigned keys; see the sorts); -1 for end_bit means all of them (8 * sizeof(K)).
  /// Fewer bits mean fewer passes (one per 8 bits).
  int begin_bit = 0;
  int end_bit = -1;
};

namespace detail {

/// The most passes a key of K needs, one per digit.
template <class K>
inline constexpr int kRadixMaxPasses = static_cast<int>(sizeof(K)) * 8 / kRadixBits;

/// The exclusive sum of the block's Block values `v` (one per thread) in thread order, in
/// every thread. Every thread of the block calls it; it synchronizes the block once.
template <int Block>
i32 block_exclusive_sum(const i32& v) {
  constexpr int kWarps = Block / warp_size;
  auto warp_sums = shared_array<std::int32_t>(kWarps);
  i32 tid = thread_idx().x;
  i32 lane = tid & 31;
  i32 warp = tid >> 5;
  i32 inclusive = warp_inclusive_scan<std::int32_t>(plus{}, v);
  if_(lane == warp_size - 1, [&] { warp_sums[warp] = inclusive; });
  syncthreads();
  i32 before = inclusive - v;
  for (int w = 0; w < kWarps - 1; ++w) before = before + select(warp > w, warp_sums[w].load(), i32(0));
  return before;
}

/// The digit counts of every pass in one read of the keys: a grid-stride loop over 16-byte
/// vectors of keys (and the n % lanes last keys one per thread of block 0), each block
/// counting into its own passes x 256 counters in shared memory with block-scope atomics,
/// then adding them to bins[pass * 256 + digit] with one global atomic per nonzero count.
/// Pass p sorts by the digit at bit begin_bit + 8p, of 8 bits but for the last pass's
/// (last_mask). `bins` must be zero before the launch.
template <class K>
void radix_histogram_body(const Ptr<std::uint32_t>& bins, const Ptr<K>& keys, const i32& n,
                          const Value<RadixBits<K>>& flip, const u32& begin_bit, const i32& passes,
                          const u32& last_mask) {
  constexpr int P = kRadixMaxPasses<K>;
  constexpr int V = kVectorLanes<K>;
  auto hist = shared_array<std::uint32_t>(P * kRadixDigits);
  i32 tid = thread_idx().x;
  for (int p = 0; p < P; ++p) hist[p * kRadixDigits + tid] = 0u;
  syncthreads();
  auto count = [&](const Value<K>& key) {
    Value<RadixBits<K>> bits = ordered_bits<K>(key, flip);
    for (int p = 0; p < P; ++p) {
      if_(p < passes, [&] {
        u32 mask = select(passes == p + 1, last_mask, u32(kRadixDigits - 1));
        u32 d = radix_digit(bits, begin_bit + static_cast<std::uint32_t>(p * kRadixBits), mask);
        atomic_add(hist[cast<std::int32_t>(d) + p * kRadixDigits], 1u, Scope::Block);
      });
    }
  };
  i32 vectors = n / V;
  for_range(block_idx().x * kRadixHistogramBlock + tid, vectors, grid_dim().x * kRadixHistogramBlock, [&](i32 i) {
    Vec<K, V> v = keys.template vload<V>(i);
    for (int j = 0; j < V; ++j) count(v[j]);
  });
  i32 tail = vectors * V + block_idx().x * kRadixHistogramBlock + tid;
  if_(tail < n, [&] { count(keys[tail].load()); });
  syncthreads();
  for (int p = 0; p < P; ++p) {
    if_(p < passes, [&] {
      u32 c = hist[p * kRadixDigits + tid];
      if_(c != 0u, [&] { atomic_add(bins[p * kRadixDigits + tid], c); });
    });
  }
}

/// Block p replaces pass p's 256 digit counts in `bins` by their exclusive sums: where in the
/// output the keys of each digit start. The sums wrap as u32 do (the i32 additions are
/// modulo 2^32), so they are exact for every count a sort takes (below 2^32).
inline void radix_bin_offsets_body(const Ptr<std::uint32_t>& bins) {
  i32 tid = thread_idx().x;
  Ptr<std::uint32_t> mine = bins + (block_idx().x * kRadixDigits + tid);
  i32 count = cast<std::int32_t>(mine[0].load());
  i32 before = block_exclusive_sum<kRadixDigits>(count);
  mine[0] = cast<std::uint32_t>(before);
}

/// The status word of a tile's digit: a flag (kTileAggregate, kTilePrefix) in the top two bits
/// and a count below 2^30. The flags of odd passes are stored with 2 added (modulo 4), so that
/// what the pass before left (the even flags) reads as kTileInvalid (0 or 3 once decoded) and
/// the status need be zeroed only once per sort.
inline u32 radix_status_word(const u32& flag, const u32& parity, const i32& count) {
  u32 stored = (flag + parity * 2u) & 3u;
  return (stored << 30u) | cast<std::uint32_t>(count);
}
/// The flag of a status word written in a pass of `parity`: kTileAggregate, kTilePrefix, or
/// another value while nothing is published yet.
inline u32 radix_status_flag(const u32& word, const u32& parity) { return ((word >> 30u) + parity * 2u) & 3u; }

/// The lanes of the warp whose digit `d` (below 256) equals this lane's: eight ballots, one
/// per bit (cheaper than match.any on the GPUs that have it).
inline u32 radix_digit_peers(const u32& d) {
  u32 peers = full_mask;
  for (int bit = 0; bit < kRadixBits; ++bit) {
    // The bit in the sign: a vote on the sign, and all ones (set) or zeros by an arithmetic shift.
    i32 high = cast<std::int32_t>(d << static_cast<std::uint32_t>(31 - bit));
    u32 votes = ballot_sync(full_mask, high < 0);
    peers = peers & ~(votes ^ cast<std::uint32_t>(high >> 31));  // votes where set, ~votes where clear
  }
  return peers;
}

/// One tile of a sorting pass, in one block of kRadixBlock threads:
/// 1. The block takes the next tile (take_tile) and loads kRadixItems<K, Pairs> keys per thread
///    warp-striped (warp w holds the tile's w-th run of 32 x Items keys; lane l its keys l,
///    l + 32, ...), so that each load instruction of a warp reads consecutive keys.
/// 2. Ranks: for each of its keys in sequence order, the warp finds the lanes with the same
///    digit (radix_digit_peers), whose highest lane adds their number to the warp's counter of
///    that digit in shared memory; a key's rank within its warp is the counter before, plus
///    the lanes below it with the same digit. Keys past n take the largest digit, so that
///    they rank after every key of the tile.
/// 3. Thread d (d < 256) sums digit d's counters over the warps (warp order) and publishes
///    the tile's count of digit d in its status word; the block scans the counts over the
///    digits (the tile's local start of each digit), and every key goes to shared memory at
///    its place in the tile, now ordered by digit. With values (Pairs), each thread now loads
///    its keys' values the same striped way: their registers are what the keys held, and the
///    loads are in flight during the look-back; they follow the keys into shared memory.
/// 4. Thread d then walks back over the tiles before, summing their counts of d until it
///    meets an inclusive prefix (decoupled look-back, one digit per thread, CUB's onesweep),
///    and publishes the tile's own inclusive prefix of d. The status words hold their flag
///    and count together, so relaxed atomics order them enough. Where the keys of digit d
///    go: offsets[d] (the keys of smaller digits, and of d in the portions before) plus the
///    keys of d in tiles before. The portion's last tile, where another portion follows
///    (has_next), writes next_offsets[d]: offsets[d] plus the portion's keys of d.
/// 5. The block writes the keys (and values) out, thread t taking places t, t + kRadixBlock,
///    ...: neighbouring threads write neighbouring places of a digit's run. Places in the
///    output are u32: a sort takes up to 2^32 - 1 keys.
/// keys_in and values_in start at the portion's first key; keys_out and values_out are the
/// whole output; n is the portion's count.
template <bool Pairs, class K, class V>
void radix_onesweep_body(const Ptr<K>& keys_out, const Ptr<K>& keys_in, const Ptr<V>& values_out,
                         const Ptr<V>& values_in, const i32& n, const u32& shift, const u32& mask,
                         const Value<RadixBits<K>>& flip, const u32& parity, const Ptr<std::uint32_t>& counter,
                         const Ptr<std::uint32_t>& status, const Ptr<std::uint32_t>& offsets,
                         const Ptr<std::uint32_t>& next_offsets, const u32& has_next) {
  constexpr int I = kRadixItems<K, Pairs>;
  constexpr int kTile = kRadixTile<K, Pairs>;
  constexpr int kWarps = kRadixBlock / warp_size;
  static_assert(kRadixBlock >= kRadixDigits, "one thread per digit");
  static_assert(kWarps * kRadixDigits % kRadixBlock == 0, "the counters zeroed in whole rounds");
  auto counts = shared_array<std::int32_t>(kWarps * kRadixDigits);  // [warp * 256 + digit]
  auto digit_start = shared_array<std::uint32_t>(kRadixDigits);     // output place of local place 0
  // The tile's keys, then its values, ordered by digit: the block's dynamic shared memory
  // (radix_onesweep_shared_bytes).
  SharedPtr<K> staged_keys = dynamic_shared<K>();
  static_assert(kTile * sizeof(K) % sizeof(V) == 0, "the staged values follow the keys aligned");
  SharedPtr<V> staged_values = dynamic_shared<V>() + static_cast<int>(kTile * sizeof(K) / sizeof(V));
  i32 tid = thread_idx().x;
  i32 lane = tid & 31;
  i32 warp = tid >> 5;
  Value<bool> digit_thread = tid < kRadixDigits;
  for (int w = 0; w < kWarps * kRadixDigits / kRadixBlock; ++w) counts[w * kRadixBlock + tid] = 0;

  // 1. The tile and its keys (and values).
  i32 tile = take_tile(counter);
  i32 tile_first = tile * kTile;
  i32 mine = tile_first + warp * (warp_size * I) + lane;  // key 0 of this lane
  Value<bool> full = tile_first + kTile <= n;
  // Key i of this lane is below n where i * warp_size < left: one register for every key's
  // test, where mine + i * warp_size < n would keep an index per key alive.
  i32 left = n - mine;
  auto load_striped = [&](const auto& from, auto& into) {
    if_(full,
        [&] {
          for (int i = 0; i < I; ++i) into[i] = from[mine + i * warp_size].load();
        },
        [&] {
          for (int i = 0; i < I; ++i)
            if_(left > i * warp_size, [&] { into[i] = from[mine + i * warp_size].load(); });
        });
  };
  Var<K> key[I];
  load_striped(keys_in, key);

  // 2. Ranks within the warp.
  u32 lanes_below = (u32(1u) << cast<std::uint32_t>(lane)) - 1u;
  SharedPtr<std::int32_t> warp_counts = counts + warp * kRadixDigits;
  // Key i's digit; keys past n take the largest digit.
  auto digit_of = [&](int i) {
    u32 d = radix_digit(ordered_bits<K>(key[i].get(), flip), shift, mask);
    return select(full | (left > i * warp_size), d, mask);
  };
  // Key i's rank in the warp (below 2^16) with its digit above it: one register per key
  // until the keys take their places. Recomputing the digit there instead would let the
  // compiler keep the digit's shared-memory counter address (64 bits) alive across the
  // barrier, for each key.
  std::vector<i32> rank_and_digit;
  for (int i = 0; i < I; ++i) {
    u32 d = digit_of(i);
    u32 peers = radix_digit_peers(d);
    i32 leader = 31 - clz(cast<std::int32_t>(peers));  // the highest lane: no bit reversal
    Var<std::int32_t> before = 0;
    if_(lane == leader, [&] { before = atomic_add(warp_counts[cast<std::int32_t>(d)], popc(peers), Scope::Block); });
    i32 rank = shfl_sync(full_mask, before.get(), leader) + popc(peers & lanes_below);
    rank_and_digit.push_back(rank | (cast<std::int32_t>(d) << 16));
  }
  syncthreads();

  // 3. Digit d's count in the tile, published, and its local start; the keys to their places.
  Var<std::int32_t> total = 0;
  if_(digit_thread, [&] {
    for (int w = 0; w < kWarps; ++w) {
      i32 c = counts[w * kRadixDigits + tid];
      counts[w * kRadixDigits + tid] = total.get();
      total = total.get() + c;
    }
  });
  // The keys past n are all of digit `mask`: not counted in what the tile publishes.
  i32 past_end = max(tile_first + kTile - n, i32(0));
  i32 published = select(cast<std::uint32_t>(tid) == mask, total.get() - past_end, total.get());
  Ptr<std::uint32_t> my_status = status + (tile * kRadixDigits + tid);
  if_(digit_thread, [&] {
    atomic_exchange(my_status[0], radix_status_word(select(tile == 0, u32(kTilePrefix), u32(kTileAggregate)), parity, published),
                    Scope::Device, Order::Relaxed);
  });
  i32 local_start = block_exclusive_sum<kRadixBlock>(total.get());
  if_(digit_thread, [&] {
    for (int w = 0; w < kWarps; ++w) counts[w * kRadixDigits + tid] = counts[w * kRadixDigits + tid] + local_start;
  });
  syncthreads();
  std::vector<i32> place;
  for (std::size_t i = 0; i < I; ++i) {
    place.push_back(warp_counts[rank_and_digit[i] >> 16].load() + (rank_and_digit[i] & 0xffff));
    staged_keys[place[i]] = key[i].get();
  }
  // The values, loaded only now that the keys wait in shared memory (their registers free):
  // in flight during the look-back.
  Var<V> value[Pairs ? I : 1];
  if constexpr (Pairs) load_striped(values_in, value);

  // 4. Where digit d goes: the look-back.
  if_(digit_thread, [&] {
    Var<std::int32_t> earlier = 0;  // keys of digit d in the tiles before
    if_(tile > 0, [&] {
      Var<std::int32_t> j = tile - 1;
      Var<bool> done = false;
      while_([&] { return !done.get(); }, [&] {
        u32 word = atomic_load(status[j.get() * kRadixDigits + tid], Scope::Device, Order::Relaxed);
        u32 flag = radix_status_flag(word, parity);
        Value<bool> seen = (flag == kTileAggregate) | (flag == kTilePrefix);
        if_(seen, [&] {
          earlier = earlier.get() + cast<std::int32_t>(word & 0x3fffffffu);
          done = flag == kTilePrefix;
          j = j.get() - 1;
        });
      });
      atomic_exchange(my_status[0], radix_status_word(u32(kTilePrefix), parity, earlier.get() + published), Scope::Device,
                      Order::Relaxed);
    });
    u32 start = offsets[tid].load();
    digit_start[tid] = start + cast<std::uint32_t>(earlier.get() - local_start);
    if_((has_next != 0u) & (tile == (n - 1) / kTile),
        [&] { next_offsets[tid] = start + cast<std::uint32_t>(earlier.get() + published); });
  });
  if constexpr (Pairs)
    for (std::size_t i = 0; i < I; ++i) staged_values[place[i]] = value[i].get();
  syncthreads();

  // 5. The keys (and values), ordered by digit, out.
  i32 valid = min(n - tile_first, i32(kTile));
  for (int k = 0; k < I; ++k) {
    i32 p = tid + k * kRadixBlock;
    if_(p < valid, [&] {
      Value<K> x = staged_keys[p].load();
      i32 d = cast<std::int32_t>(radix_digit(ordered_bits<K>(x, flip), shift, mask));
      u32 at = digit_start[d].load() + cast<std::uint32_t>(p);
      keys_out[at] = x;
      if constexpr (Pairs) values_out[at] = staged_values[p].load();
    });
  }
}

/// Bytes of dynamic shared memory a sorting pass's block stages its tile in.
template <bool Pairs, class K, class V>
inline constexpr std::size_t radix_onesweep_shared_bytes =
    static_cast<std::size_t>(kRadixTile<K, Pairs>) * (sizeof(K) + (Pairs ? sizeof(V) : 0));

/// The kernels of one radix sort of keys K (and values V where Pairs): the digit counts, their
/// offsets, and the sorting pass.
template <bool Pairs, class K, class V>
struct RadixSortKernels {
  static auto make_histogram() {
    return cutlet::kernel(
        [](Ptr<std::uint32_t> bins, Ptr<K> keys, i32 n, Value<RadixBits<K>> flip, u32 begin_bit, i32 passes,
           u32 last_mask) { radix_histogram_body<K>(bins, keys, n, flip, begin_bit, passes, last_mask); },
        {.name = std::string("cutlet_radix_histogram_") + element_name<K>()});
  }
  static auto make_offsets() {
    return cutlet::kernel([](Ptr<std::uint32_t> bins) { radix_bin_offsets_body(bins); },
                          {.name = "cutlet_radix_bin_offsets"});
  }
  static auto make_onesweep() {
    return cutlet::kernel(
        [](Ptr<K> keys_out, Ptr<K> keys_in, Ptr<V> values_out, Ptr<V> values_in, i32 n, u32 shift, u32 mask,
           Value<RadixBits<K>> flip, u32 parity, Ptr<std::uint32_t> counter, Ptr<std::uint32_t> status,
           Ptr<std::uint32_t> offsets, Ptr<std::uint32_t> next_offsets, u32 has_next) {
          radix_onesweep_body<Pairs, K, V>(keys_out, keys_in, values_out, values_in, n, shift, mask, flip, parity,
                                           counter, status, offsets, next_offsets, has_next);
        },
        {.name = std::string(Pairs ? "cutlet_radix_sort_pairs_" : "cutlet_radix_sort_keys_") + element_name<K>() +
                 (Pairs ? std::string("_") + element_name<V>() : std::string()),
         .max_block_threads = kRadixBlock,
         .min_blocks_per_sm = 2});
  }
  decltype(make_histogram()) histogram = make_histogram();
  decltype(make_offsets()) offsets = make_offsets();
  decltype(make_onesweep()) onesweep = make_onesweep();
};

}  // namespace detail

/// The kernels of radix_sort_keys (Pairs false; V unused) or radix_sort_pairs for keys of K
/// and values of V (made at the first use, then shared), for inspection and compiling ahead.
template <bool Pairs, Element K, Element V = K>
auto& radix_sort_kernels() {
  static detail::RadixSortKernels<Pairs, K, V> k;
  return k;
}

namespace detail {

/// How a sort of n keys splits into portions (kRadixPortion keys each, the last one fewer)
/// and each portion into tiles.
struct RadixPortions {
  std::int64_t portion = 0;  ///< keys per portion
  std::int64_t count = 0;    ///< portions
  std::int64_t tiles = 0;    ///< tiles of the largest portion
};
template <class K, bool Pairs>
RadixPortions radix_portions(std::int64_t n) {
  RadixPortions p;
  p.portion = kRadixPortion<K, Pairs>;
  p.count = (n + p.portion - 1) / p.portion;
  p.tiles = (std::min(n, p.portion) + kRadixTile<K, Pairs> - 1) / kRadixTile<K, Pairs>;
  return p;
}

}  // namespace detail

/// Bytes of temporary storage radix_sort_keys (value_bytes 0) or radix_sort_pairs with values
/// of value_bytes needs for `n` keys of K, whatever bits are sorted (for Workspace::borrow):
/// the digit counts, offsets and tile counters of every pass and portion, a status word per
/// digit per tile of a portion, and an alternate buffer of keys and one of values.
template <Element K>
std::size_t radix_sort_workspace_bytes(std::size_t n, std::size_t value_bytes = 0) {
  if (n == 0) return 0;
  const auto count = static_cast<std::int64_t>(n);
  const detail::RadixPortions portions =
      value_bytes ? detail::radix_portions<K, true>(count) : detail::radix_portions<K, false>(count);
  return detail::radix_sort_layout(count, portions.tiles, detail::kRadixMaxPasses<K>, sizeof(K), value_bytes,
                                   portions.count)
      .total_bytes;
}

namespace detail {

/// Queues a radix sort of keys_in (and values_in where Pairs) into keys_out (values_out).
template <bool Pairs, class K, class V>
void launch_radix_sort(const Stream& stream, const Buffer<K>& keys_in, Buffer<K>& keys_out, const Buffer<V>* values_in,
                       Buffer<V>* values_out, const RadixSortOptions& options, const Workspace& workspace,
                       const char* algorithm) {
  const auto range = call_range<K>(algorithm);
  const RadixPasses passes = radix_passes(options.begin_bit, options.end_bit, static_cast<int>(8 * sizeof(K)), algorithm);
  check_count(keys_in.size(), kRadixSortMaxCount, algorithm);
  const auto n = static_cast<std::int64_t>(keys_in.size());
  if (n == 0) return;
  const auto count = static_cast<std::size_t>(n);
  check_size(keys_out.size(), count, algorithm, "keys output");
  check_device(keys_in.device(), stream, algorithm, "keys input");
  check_device(keys_out.device(), stream, algorithm, "keys output");
  check_aligned(keys_in.data(), algorithm, "keys input");
  if constexpr (Pairs) {
    check_size(values_in->size(), count, algorithm, "values input");
    check_size(values_out->size(), count, algorithm, "values output");
    check_device(values_in->device(), stream, algorithm, "values input");
    check_device(values_out->device(), stream, algorithm, "values output");
  }
  if (passes.count == 0) {  // no bits to sort by: a copy
    if (keys_out.data() != keys_in.data()) copy_bytes(stream, keys_out.data(), keys_in.data(), count * sizeof(K));
    if constexpr (Pairs)
      if (values_out->data() != values_in->data())
        copy_bytes(stream, values_out->data(), values_in->data(), count * sizeof(V));
    return;
  }
  const Device device = stream.device();
  const RadixPortions portions = radix_portions<K, Pairs>(n);
  const RadixSortLayout layout =
      radix_sort_layout(n, portions.tiles, passes.count, sizeof(K), Pairs ? sizeof(V) : 0, portions.count);
  Scratch scratch = acquire(workspace, stream, layout.total_bytes, algorithm);
  zero_bytes(stream, scratch.address(), layout.zeroed_bytes);
  const std::uint64_t base = scratch.address();
  const std::size_t status_bytes = static_cast<std::size_t>(portions.tiles) * kRadixDigits * sizeof(std::uint32_t);
  const auto status = Buffer<std::uint32_t>::wrap(base + layout.status, status_bytes / sizeof(std::uint32_t), device);
  auto alt_keys = Buffer<K>::wrap(base + layout.keys, count, device);
  auto alt_values = Buffer<V>::wrap(Pairs ? base + layout.values : base + layout.keys, count, device);
  const RadixBits<K> flip = options.descending ? kRadixKeyMask<K> : RadixBits<K>{0};
  // Portion q's keys [q * portion, ...) of `whole`, and the offsets of pass p for portion q.
  auto portion_of = [&](const auto& whole, std::int64_t q) {
    using T = typename std::remove_cvref_t<decltype(whole)>::element_type;
    const std::int64_t first = q * portions.portion;
    return Buffer<T>::wrap(whole.data() + static_cast<std::uint64_t>(first) * sizeof(T),
                           static_cast<std::size_t>(std::min(portions.portion, n - first)), device);
  };
  auto offsets_of = [&](int p, std::int64_t q) {
    const auto at = (static_cast<std::size_t>(q) * passes.count + p) * kRadixDigits * sizeof(std::uint32_t);
    return Buffer<std::uint32_t>::wrap(base + layout.bins + at, kRadixDigits, device);
  };

  auto& k = radix_sort_kernels<Pairs, K, V>();
  for (std::int64_t q = 0; q < portions.count; ++q) {  // every pass's digit counts, into portion 0's bins
    const Buffer<K> keys = portion_of(keys_in, q);
    const auto m = static_cast<std::int32_t>(keys.size());
    const int grid = streaming_grid(device, m / kVectorLanes<K> + 1, kRadixHistogramBlock, 4);
    k.histogram.launch(stream, {.grid = grid, .block = kRadixHistogramBlock}, offsets_of(0, 0), keys, m, flip,
                       static_cast<std::uint32_t>(passes.begin_bit), passes.count, passes.last_mask);
  }
  k.offsets.launch(stream, {.grid = passes.count, .block = kRadixDigits}, offsets_of(0, 0));

  // Pass p writes the output when an even number of passes follow it, else the alternate
  // buffers, so that the last pass writes the output. A pass must not write what it reads:
  // when the output is the input and the passes are odd, every pass shifts by one, the last
  // writes the alternate buffers, and a copy ends the sort.
  bool in_place = keys_out.data() == keys_in.data();
  if constexpr (Pairs) in_place = in_place || values_out->data() == values_in->data();
  const bool copy_at_end = in_place && passes.count % 2 == 1;
  const int shift_by = copy_at_end ? 1 : 0;
  const Buffer<K>* src_keys = &keys_in;
  const Buffer<V>* src_values = Pairs ? values_in : &alt_values;
  for (int p = 0; p < passes.count; ++p) {
    const bool to_output = (passes.count - 1 - p + shift_by) % 2 == 0;
    Buffer<K>& dst_keys = to_output ? keys_out : alt_keys;
    Buffer<V>& dst_values = Pairs && to_output ? *values_out : alt_values;
    const bool last = p == passes.count - 1;
    const std::uint32_t mask = last ? passes.last_mask : kRadixDigits - 1;
    for (std::int64_t q = 0; q < portions.count; ++q) {
      // One portion: the passes alternate the status flags' parity and need no zeroing in
      // between. Several: a launch may span more tiles than the one before, whose words from
      // two launches back would read as its own; the status is zeroed before each launch.
      if (portions.count > 1 && (p > 0 || q > 0)) zero_bytes(stream, status.data(), status_bytes);
      const std::uint32_t parity = portions.count > 1 ? 0u : static_cast<std::uint32_t>(p & 1);
      const std::size_t launch = static_cast<std::size_t>(p) * portions.count + q;
      const auto counter = Buffer<std::uint32_t>::wrap(base + layout.counters + 4 * launch, 1, device);
      const bool has_next = q + 1 < portions.count;
      const Buffer<K> keys = portion_of(*src_keys, q);
      Buffer<V> values;  // keys alone: unused
      if constexpr (Pairs) values = portion_of(*src_values, q);
      const auto m = static_cast<std::int32_t>(keys.size());
      const LaunchConfig config{.grid = (m + kRadixTile<K, Pairs> - 1) / kRadixTile<K, Pairs>,
                                .block = kRadixBlock,
                                .shared_bytes = radix_onesweep_shared_bytes<Pairs, K, V>};
      k.onesweep.launch(stream, config, dst_keys, keys, dst_values, Pairs ? values : alt_values, m,
                        static_cast<std::uint32_t>(passes.begin_bit + p * kRadixBits), mask, flip, parity, counter,
                        status, offsets_of(p, q), offsets_of(p, has_next ? q + 1 : q),
                        static_cast<std::uint32_t>(has_next));
    }
    src_keys = &dst_keys;
    src_values = &dst_values;
  }
  if (copy_at_end) {
    copy_bytes(stream, keys_out.data(), alt_keys.data(), count * sizeof(K));
    if constexpr (Pairs) copy_bytes(stream, values_out->data(), alt_values.data(), count * sizeof(V));
  }
}

}  // namespace detail

/// Sorts the n = keys_in.size() keys into keys_out[0, n), smallest first (largest first with
/// options.descending), stably: equal keys keep their input order. Queued on `stream`
/// without host synchronization: a memset, a kernel counting every pass's digits, a kernel
/// turning them into offsets, and one sorting kernel per 8 bits of the key.
///
/// The order is CUB's: integers by value; floats by value, with -0.0 and +0.0 equal (they
/// keep their input order) and NaNs by their bits (sign bit set: before -inf; clear: after
/// +inf). options.begin_bit and end_bit restrict the sort to those bits of the keys' ordered
/// bits (the key's bits with the sign bit inverted for signed integers; for floats also all
/// other bits inverted when the sign is set), as CUB's begin_bit and end_bit do.
///
/// `keys_out` holds at least n keys and may be `keys_in` (a sort in place). Both are of the
/// stream's device, `keys_in` 16-byte aligned. At most kRadixSortMaxCount keys. Temporary
/// storage (radix_sort_workspace_bytes) comes from `workspace`. Throws cutlet::Error for bad
/// arguments.
template <Element K>
void radix_sort_keys(const Stream& stream, const Buffer<K>& keys_in, Buffer<K>& keys_out,
                     const RadixSortOptions& options = {}, const Workspace& workspace = {}) {
  detail::launch_radix_sort<false, K, K>(stream, keys_in, keys_out, nullptr, nullptr, options, workspace,
                                         "radix_sort_keys");
}

/// As radix_sort_keys, moving values_in[i] along with keys_in[i]: values_out[j] is the value
/// of the key that lands at keys_out[j]. `values_in` and `values_out` hold at least n values
/// of the stream's device; `values_out` may be `values_in`.
template <Element K, Element V>
void radix_sort_pairs(const Stream& stream, const Buffer<K>& keys_in, Buffer<K>& keys_out, const Buffer<V>& values_in,
                      Buffer<V>& values_out, const RadixSortOptions& options = {}, const Workspace& workspace = {}) {
  detail::launch_radix_sort<true, K, V>(stream, keys_in, keys_out, &values_in, &values_out, options, workspace,
                                        "radix_sort_pairs");
}

namespace detail {

/// Where radix_sort_pairs over struct values keeps its index arrays (n i32 each), a copy of
/// the values when it sorts them in place (n of `value_bytes`), and the storage of its sort of
/// (key, index) pairs (`sort`), each 256-byte aligned.
struct StructPairsLayout {
  std::size_t index = 0, sorted_index = 0, values = 0, sort = 0, total_bytes = 0;
};
template <class K>
StructPairsLayout struct_pairs_layout(std::size_t n, std::size_t value_bytes, bool in_place) {
  StructPairsLayout l;
  l.sorted_index = align_workspace(n * sizeof(std::int32_t));
  l.values = l.sorted_index + align_workspace(n * sizeof(std::int32_t));
  l.sort = l.values + (in_place ? align_workspace(n * value_bytes) : 0);
  l.total_bytes = l.sort + align_workspace(radix_sort_workspace_bytes<K>(n, sizeof(std::int32_t)));
  return l;
}

}  // namespace detail

/// Bytes of temporary storage radix_sort_pairs needs for `n` keys of K with values of the
/// user struct S (for Workspace::borrow): `in_place` when values_out is values_in.
template <Element K, StructElement S>
std::size_t radix_sort_struct_pairs_workspace_bytes(std::size_t n, bool in_place = false) {
  return n == 0 ? 0 : detail::struct_pairs_layout<K>(n, sizeof(S), in_place).total_bytes;
}

/// As radix_sort_pairs, for values of a user struct S (a record carried along with its key):
/// a radix sort of (key, input position) pairs, then a gather of the values by the sorted
/// positions (permutation_iterator), so that each value is read and written once whatever
/// its size. `values_out` may be `values_in` (the values are then gathered from a copy).
/// At most 2^31 - 1 keys (the positions are i32).
/// Temporary storage (radix_sort_struct_pairs_workspace_bytes) comes from `workspace`.
template <Element K, StructElement S>
void radix_sort_pairs(const Stream& stream, const Buffer<K>& keys_in, Buffer<K>& keys_out, const Buffer<S>& values_in,
                      Buffer<S>& values_out, const RadixSortOptions& options = {}, const Workspace& workspace = {}) {
  const char* name = "radix_sort_pairs";
  const auto range = detail::call_range<K>(name);
  // The input positions it sorts by key are i32.
  const std::int32_t n = detail::checked_count(keys_in.size(), std::numeric_limits<std::int32_t>::max(), name);
  detail::radix_passes(options.begin_bit, options.end_bit, static_cast<int>(8 * sizeof(K)), name);  // checks the bits
  if (n == 0) return;
  const auto count = static_cast<std::size_t>(n);
  detail::check_size(values_in.size(), count, name, "values input");
  detail::check_size(values_out.size(), count, name, "values output");
  detail::check_device(values_in.device(), stream, name, "values input");
  detail::check_device(values_out.device(), stream, name, "values output");
  const bool in_place = values_out.data() == values_in.data();
  if (!in_place)
    detail::check_disjoint(values_out.data(), count * sizeof(S), values_in.data(), count * sizeof(S), name,
                           "values output", "values input");
  const Device device = stream.device();
  const detail::StructPairsLayout layout = detail::struct_pairs_layout<K>(count, sizeof(S), in_place);
  detail::Scratch scratch = detail::acquire(workspace, stream, layout.total_bytes, name);
  const std::uint64_t base = scratch.address();
  auto index = Buffer<std::int32_t>::wrap(base + layout.index, count, device);
  auto sorted_index = Buffer<std::int32_t>::wrap(base + layout.sorted_index, count, device);
  const DeviceMemory sort_memory = DeviceMemory::wrap(base + layout.sort, layout.total_bytes - layout.sort, device);
  transform(stream, counting_iterator(std::int32_t{0}), count, index, identity{});
  radix_sort_pairs(stream, keys_in, keys_out, index, sorted_index, options, Workspace::borrow(sort_memory));
  const Buffer<S>* from = &values_in;
  Buffer<S> copied;
  if (in_place) {
    copied = Buffer<S>::wrap(base + layout.values, count, device);
    detail::copy_bytes(stream, copied.data(), values_in.data(), count * sizeof(S));
    from = &copied;
  }
  transform(stream, permutation_iterator(*from, sorted_index), count, values_out, identity{});
}

}  // namespace cutlet::algorithms
