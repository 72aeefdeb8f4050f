// inclusive_scan_by_key and exclusive_scan_by_key (CUB's DeviceScan::InclusiveScanByKey and
// ExclusiveScanByKey): scans that start again at every run of equal consecutive keys, as the
// scans' single pass with decoupled look-back over (head, value) pairs.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include "cutlet/algorithms/operators.h"
#include "cutlet/algorithms/scan.h"

namespace cutlet::algorithms {

/// The value types of the scans by key: the elements of at most 4 bytes (float, half,
/// bfloat16, and the integers of 8, 16 and 32 bits), whose bits travel through the look-back
/// with their run flag in one u64.
template <class T>
concept ScanByKeyValue = Element<T> && sizeof(T) <= 4;

namespace detail {

/// The bit of a (head, value) pair that says a run of keys starts at or before its items.
inline constexpr std::uint64_t kRunHeadBit = std::uint64_t{1} << 32;

/// The (head, value) pair of a value of at most 4 bytes: its bits in the low half (zeros above
/// a narrow value's), `head` in bit 32.
template <class T>
Value<std::uint64_t> pack_run_item(const Value<bool>& head, const Value<T>& value) {
  using B = SameWidthBits<T>;
  u32 bits = [&] {
    if constexpr (std::is_same_v<T, B>) return cast<std::uint32_t>(value);
    else return cast<std::uint32_t>(bitcast<B>(value));
  }();
  return select(head, Value<std::uint64_t>(kRunHeadBit), Value<std::uint64_t>(std::uint64_t{0})) |
         cast<std::uint64_t>(bits);
}

/// The value of a (head, value) pair.
template <class T>
Value<T> run_item_value(const Value<std::uint64_t>& pair) {
  using B = SameWidthBits<T>;
  Value<B> bits = cast<B>(pair);
  if constexpr (std::is_same_v<T, B>) return bits;
  else return bitcast<T>(bits);
}

/// The segmented form of a user operator on (head, value) pairs: `a` then `b` gives b where
/// b's items hold a run's start (what came before does not reach past it), else the pair of
/// a's head and `a.value op b.value`. Associative when Op is.
template <class T, class Op>
struct RunOperator {
  Value<std::uint64_t> operator()(const Value<std::uint64_t>& a, const Value<std::uint64_t>& b) const {
    Value<T> both = call_op<T>(Op{}, run_item_value<T>(a), run_item_value<T>(b));
    Value<std::uint64_t> joined = (a & kRunHeadBit) | (pack_run_item<T>(Value<bool>(false), both));
    return select((b & kRunHeadBit) != std::uint64_t{0}, b, joined);
  }
};

/// One tile of a scan by key, in one block: the tile's values and keys loaded as scan_tile_body
/// loads its items (16-byte vectors, warp-striped), each item's head flag (the first item, or a
/// key unequal under `Eq` to the one before it; the key before a lane's first item of a row
/// comes from the lane before by a shuffle, before a warp's run from memory), then
/// scan_tile_results over the (head, value) pairs with RunOperator. Inclusive: an item's
/// result is its pair's value. Exclusive: `init` at a run's first item, else `init op` the
/// value of the pairs before it (which hold its run's start). A chunk of a longer input
/// (`chained`) compares its first key with the one before it in memory.
template <bool Exclusive, class K, class T, class Eq, class Op>
void scan_by_key_tile_body(const Ptr<T>& out, const Ptr<K>& keys, const Ptr<T>& values, const i32& n,
                           const Value<T>& init, const Ptr<std::uint32_t>& counter,
                           const PackedU62Status& status, const Ptr<std::uint64_t>& carry_in,
                           const Ptr<std::uint64_t>& carry_out, const Value<bool>& chained) {
  using Pair = std::uint64_t;
  using Span = ScanTileSpan<T>;
  const Eq eq{};
  constexpr int V = Span::V;
  // Keys per vector load: V (keys of 1 to 4 bytes, as many as a vector of values) or V / 2.
  constexpr int KV = std::min(kVectorLanes<K>, V);
  const Span at(counter);
  Var<T> value[Span::kItems];
  Var<bool> head[Span::kItems];
  if_(at.tile_end <= n,
      [&] {
        Ptr<T> pv = values + at.mine;
        Ptr<K> pk = keys + at.mine;
        std::vector<Value<K>> key;
        for (int k = 0; k < Span::kVectors; ++k) {
          Vec<T, V> v = pv.template vload<V>(k * warp_size);
          for (int j = 0; j < V; ++j) value[k * V + j] = v[j];
          for (int h = 0; h < V / KV; ++h) {
            Vec<K, KV> kv = pk.template vload<KV>(k * warp_size * (V / KV) + h);
            for (int j = 0; j < KV; ++j) key.push_back(kv[j]);
          }
        }
        // The key before the warp's run, where there is one (lane 0 of row 0 needs it).
        Var<K> before_run = key[0];
        Value<bool> has_before_run = (at.warp_first > 0) | chained;
        if_((at.lane == 0) & has_before_run, [&] { before_run = keys[at.warp_first - 1].load(); });
        for (int k = 0; k < Span::kVectors; ++k) {
          const auto first = static_cast<std::size_t>(k * V);
          Value<K> from_lane_before = shfl_up_sync(full_mask, key[first + V - 1], 1);
          Value<bool> starts = !call_pred<K>(eq, from_lane_before, key[first]);
          if (k == 0) {
            Value<bool> lane0_starts = !has_before_run | !call_pred<K>(eq, before_run.get(), key[first]);
            starts = select(at.lane == 0, lane0_starts, starts);
          } else {
            Value<K> row_before = shfl_sync(full_mask, key[first - 1], warp_size - 1);
            starts = select(at.lane == 0, !call_pred<K>(eq, row_before, key[first]), starts);
          }
          head[k * V] = starts;
          for (int j = 1; j < V; ++j) {
            const auto item = first + static_cast<std::size_t>(j);
            head[item] = !call_pred<K>(eq, key[item - 1], key[item]);
          }
        }
      },
      [&] {
        for (int k = 0; k < Span::kVectors; ++k)
          for (int j = 0; j < V; ++j) {
            i32 i = at.index(k, j);
            if_(i < n, [&] {
              Value<K> key = keys[i].load();
              value[k * V + j] = values[i].load();
              Var<bool> starts = true;
              if_((i > 0) | chained, [&] { starts = !call_pred<K>(eq, keys[i - 1].load(), key); });
              head[k * V + j] = starts.get();
            });
          }
      });
  std::vector<Value<Pair>> items;
  for (int j = 0; j < Span::kItems; ++j) items.push_back(pack_run_item<T>(head[j].get(), value[j].get()));

  std::vector<Value<Pair>> pairs =
      scan_tile_results<Exclusive, Pair, RunOperator<T, Op>, V>(items, at.tile, at.tile_end >= n,
                                                                 pack_run_item<T>(Value<bool>(false), init), status,
                                                                 carry_in, carry_out, chained);
  std::vector<Value<T>> results;
  for (int j = 0; j < Span::kItems; ++j) {
    Value<T> v = run_item_value<T>(pairs[static_cast<std::size_t>(j)]);
    if constexpr (Exclusive) results.push_back(select(head[j].get(), init, call_op<T>(Op{}, init, v)));
    else results.push_back(v);
  }
  store_scan_results<T, V>(out, at.mine, at.tile_end <= n, n, results);
}

/// Makes the kernel of a scan by key: parameters (out, keys, values, n, init, carry_in,
/// carry_out, chained, counter, words).
template <bool Exclusive, class K, class T, class Eq, class Op>
auto make_scan_by_key_kernel() {
  const KernelOptions options{
      .name = std::string(Exclusive ? "cutlet_exclusive_scan_by_key_" : "cutlet_inclusive_scan_by_key_") +
              element_name<K>() + "_" + element_name<T>()};
  return cutlet::kernel(
      [](Ptr<T> out, Ptr<K> keys, Ptr<T> values, i32 n, Value<T> init, Ptr<std::uint64_t> carry_in,
         Ptr<std::uint64_t> carry_out, Value<bool> chained, Ptr<std::uint32_t> counter, Ptr<std::uint64_t> words) {
        scan_by_key_tile_body<Exclusive, K, T, Eq, Op>(out, keys, values, n, init, counter, PackedU62Status{words},
                                                       carry_in, carry_out, chained);
      },
      options);
}

/// Queues a scan by key of `values` (runs of `keys`) into `out` on `stream`.
template <bool Exclusive, class K, class T, class Kernel>
void launch_scan_by_key(Kernel& kernel, const Stream& stream, const Buffer<K>& keys, const Buffer<T>& values,
                        Buffer<T>& out, T init, const Workspace& workspace, const char* algorithm) {
  const auto range = call_range<T>(algorithm);
  check_count(values.size(), kScanMaxCount, algorithm);
  const auto n = static_cast<std::int64_t>(values.size());
  if (n == 0) return;
  check_size(keys.size(), static_cast<std::size_t>(n), algorithm, "keys");
  check_size(out.size(), static_cast<std::size_t>(n), algorithm, "output");
  check_device(keys.device(), stream, algorithm, "keys");
  check_device(values.device(), stream, algorithm, "values");
  check_device(out.device(), stream, algorithm, "output");
  check_aligned(keys.data(), algorithm, "keys");
  check_aligned(values.data(), algorithm, "values");
  check_aligned(out.data(), algorithm, "output");
  check_disjoint(keys, out, algorithm, "keys", "output");
  const Device device = stream.device();
  for_each_scan_chunk<std::uint64_t, true>(stream, n, kScanTile<T>, workspace, algorithm, [&](const ScanChunk& c) {
    launch_scan_chunk<std::uint64_t, true>(kernel, stream, c, std::tuple<>{}, chunk_of(out, c.at, c.count, device),
                                           chunk_of(keys, c.at, c.count, device),
                                           chunk_of(values, c.at, c.count, device), c.count, init);
  });
}

}  // namespace detail

/// The kernel of inclusive_scan_by_key (Exclusive false) or exclusive_scan_by_key (true) for
/// key type K, value type T, equality Eq and operator Op (made at the first use, then
/// shared), for inspection and compiling ahead.
template <bool Exclusive, Element K, ScanByKeyValue T, class Eq, class Op>
  requires BinaryOperator<Op, T> && BinaryPredicate<Eq, K>
auto& scan_by_key_kernel() {
  static auto k = detail::make_scan_by_key_kernel<Exclusive, K, T, Eq, Op>();
  return k;
}

/// Bytes of temporary storage the scans by key need for `n` values (for Workspace::borrow):
/// a tile counter, and per tile of kScanTile<T> a u64 status word.
template <ScanByKeyValue T>
std::size_t scan_by_key_workspace_bytes(std::size_t n) {
  if (n == 0) return 0;
  const long long tiles = detail::scan_chunk_tiles(static_cast<std::int64_t>(n), kScanTile<T>);
  return detail::scan_storage_bytes<std::uint64_t, true>(tiles).first;
}

/// out[i] = values[s] op values[s + 1] op ... op values[i], where s is the first index of the
/// run of consecutive keys equal (under `eq`, default ==) to keys[i] that holds i: a scan that
/// starts again at every new key (CUB's DeviceScan::InclusiveScanByKey), for the n =
/// values.size() values, applied in that order (`op` must be associative). One kernel launch
/// (after a memset of the tile status) per kScanChunk values, without host synchronization;
/// the same bits on every run.
///
/// `keys` holds at least n keys; `out` at least n values and may be `values` (in place), not
/// `keys`. All of the stream's device and 16-byte aligned. At most kScanMaxCount values.
/// Temporary storage (scan_by_key_workspace_bytes) comes from `workspace`. Throws
/// cutlet::Error for bad arguments.
template <Element K, ScanByKeyValue T, class Op, class Eq = equal_to>
  requires BinaryOperator<Op, T> && BinaryPredicate<Eq, K>
void inclusive_scan_by_key(const Stream& stream, const Buffer<K>& keys, const Buffer<T>& values, Buffer<T>& out, Op op,
                           Eq eq = {}, const Workspace& workspace = {}) {
  detail::launch_scan_by_key<false>(scan_by_key_kernel<false, K, T, Eq, Op>(), stream, keys, values, out, T{},
                                    workspace, "inclusive_scan_by_key");
}

/// out[i] = init at the first index of each run of consecutive equal keys (under `eq`), and
/// out[i] = init op values[s] op ... op values[i - 1] after it, s the run's first index (CUB's
/// DeviceScan::ExclusiveScanByKey); otherwise as inclusive_scan_by_key.
template <Element K, ScanByKeyValue T, class Op, class Eq = equal_to>
  requires BinaryOperator<Op, T> && BinaryPredicate<Eq, K>
void exclusive_scan_by_key(const Stream& stream, const Buffer<K>& keys, const Buffer<T>& values, Buffer<T>& out, Op op,
                           T init, Eq eq = {}, const Workspace& workspace = {}) {
  detail::launch_scan_by_key<true>(scan_by_key_kernel<true, K, T, Eq, Op>(), stream, keys, values, out, init, workspace,
                                   "exclusive_scan_by_key");
}

}  // namespace cutlet::algorithms
