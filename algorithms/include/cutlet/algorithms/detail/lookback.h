// The decoupled look-back of the single-pass algorithms (Merrill and Garland, "Single-pass
// Parallel Prefix Scan with Decoupled Look-back"): tiles taken in the order blocks start, a
// status per tile published with an atomic (release, where the value lies apart from its
// flag) and read with atomic loads, and one warp that combines the status of the tiles
// before its own. The scans and the compactions
// (select, unique, run_length_encode) share it.
#pragma once

#include <cstdint>
#include <type_traits>

#include "cutlet/algorithms/detail/maybe.h"
#include "cutlet/algorithms/detail/scan_layout.h"
#include "cutlet/algorithms/detail/warp_block.h"
#include "cutlet/algorithms/element.h"
#include "cutlet/language/atomic.h"
#include "cutlet/language/control.h"
#include "cutlet/language/index.h"
#include "cutlet/language/math.h"
#include "cutlet/language/memory.h"
#include "cutlet/language/pointer.h"
#include "cutlet/language/warp.h"

namespace cutlet::algorithms::detail {

/// This block's tile: the next one in the order blocks started, from an atomic counter, so
/// that a block only ever waits for tiles whose blocks started before it (no deadlock
/// whatever order the GPU schedules blocks in). Every thread of the block calls it; it
/// synchronizes the block.
inline i32 take_tile(const Ptr<std::uint32_t>& counter) {
  auto slot = shared_array<std::int32_t>(1);
  if_(thread_idx().x == 0, [&] { slot[0] = cast<std::int32_t>(atomic_add(counter[0], 1u)); });
  syncthreads();
  return slot[0];
}

/// Tile status in three arrays (scan_layout): a u32 flag per tile, and the tiles' aggregates
/// and inclusive prefixes in arrays of their own, so that values of any size work. A value is
/// written, then its flag with a release atomic; a reader reads the flag with an acquire
/// load, then the value from L2 (ld.global.cg).
template <class T>
struct SplitTileStatus {
  /// What a lane reads of a tile's status with one atomic: the flag.
  using Word = std::uint32_t;
  /// The word of a tile that has its prefix (for the lanes past tile 0, which never look).
  static constexpr Word kPrefixWord = kTilePrefix;

  Ptr<std::uint32_t> flags;
  Ptr<storage_t<T>> aggregates;  ///< a struct's words for a StructElement T
  Ptr<storage_t<T>> prefixes;

  /// Publishes tile `tile`'s aggregate (kTileAggregate) or inclusive prefix (kTilePrefix).
  void publish(const i32& tile, std::uint32_t kind, const held_t<T>& value) const {
    store_held<T>(kind == kTilePrefix ? prefixes : aggregates, tile, value);
    atomic_exchange(flags[tile], kind, Scope::Device, Order::Release);
  }
  /// Tile `j`'s word, spinning while it is invalid.
  Value<Word> wait(const i32& j) const {
    Var<Word> flag = atomic_load(flags[j], Scope::Device, Order::Acquire);
    while_([&] { return flag.get() == kTileInvalid; },
           [&] { flag = atomic_load(flags[j], Scope::Device, Order::Acquire); });
    return flag.get();
  }
  static Value<std::uint32_t> flag_of(const Value<Word>& word) { return word; }
  /// Tile `j`'s published value, read only where `needed`.
  held_t<T> value_of(const Value<Word>& word, const i32& j, const Value<bool>& needed) const {
    if constexpr (StructElement<T>) {
      HeldVar<T> value;
      if_(needed & (word == kTilePrefix), [&] { value = load_held<T>(prefixes, j, CacheHint::CacheGlobal); });
      if_(needed & (word != kTilePrefix), [&] { value = load_held<T>(aggregates, j, CacheHint::CacheGlobal); });
      return value.get();
    } else {
      Var<T> value;
      if_(needed, [&] {
        value = if_(word == kTilePrefix, [&] { return prefixes.load(j, CacheHint::CacheGlobal); },
                    [&] { return aggregates.load(j, CacheHint::CacheGlobal); });
      });
      return value.get();
    }
  }
};

/// Tile status of 4-byte values in one u64 word per tile (packed_scan_layout): the flag in the
/// high half, the value's bits in the low half, published with one exchange and read with one
/// load, half the round trips of SplitTileStatus. Both are relaxed atomics of device scope: a
/// reader needs nothing but the word itself, which holds the flag and the value together, so
/// no fence (release) nor cache invalidation (acquire) is paid on the look-back's path.
template <class T>
struct PackedTileStatus {
  static_assert(sizeof(T) == 4, "PackedTileStatus packs 4-byte values with their flags");
  using Word = std::uint64_t;
  static constexpr Word kPrefixWord = Word{kTilePrefix} << 32;

  Ptr<std::uint64_t> words;

  void publish(const i32& tile, std::uint32_t kind, const Value<T>& value) const {
    u64 bits = cast<std::uint64_t>(as_bits(value));
    atomic_exchange(words[tile], (Word{kind} << 32) | bits, Scope::Device, Order::Relaxed);
  }
  Value<Word> wait(const i32& j) const {
    Var<Word> word = atomic_load(words[j], Scope::Device, Order::Relaxed);
    while_([&] { return (word.get() >> 32) == Word{kTileInvalid}; },
           [&] { word = atomic_load(words[j], Scope::Device, Order::Relaxed); });
    return word.get();
  }
  static Value<std::uint32_t> flag_of(const Value<Word>& word) { return cast<std::uint32_t>(word >> 32); }
  Value<T> value_of(const Value<Word>& word, const i32&, const Value<bool>&) const {
    u32 bits = cast<std::uint32_t>(word);
    if constexpr (std::is_same_v<T, std::uint32_t>) return bits;
    else return bitcast<T>(bits);
  }

 private:
  static u32 as_bits(const Value<T>& v) {
    if constexpr (std::is_same_v<T, std::uint32_t>) return v;
    else return bitcast<std::uint32_t>(v);
  }
};

/// Tile status of u64 values below 2^62 (a pack_count_pair of two counts, or a scan by key's
/// (run head, value) pair) in one u64 word per tile with the flag in the top two bits
/// (packed_scan_layout): one relaxed exchange to publish and one relaxed load to read, as
/// PackedTileStatus. Sums of count pairs add both counts at once, without carries between
/// them, while the counts' totals stay below 2^31.
struct PackedU62Status {
  using Word = std::uint64_t;
  static constexpr Word kPrefixWord = Word{kTilePrefix} << 62;

  Ptr<std::uint64_t> words;

  void publish(const i32& tile, std::uint32_t kind, const Value<std::uint64_t>& value) const {
    atomic_exchange(words[tile], value | (Word{kind} << 62), Scope::Device, Order::Relaxed);
  }
  Value<Word> wait(const i32& j) const {
    Var<Word> word = atomic_load(words[j], Scope::Device, Order::Relaxed);
    while_([&] { return (word.get() >> 62) == Word{kTileInvalid}; },
           [&] { word = atomic_load(words[j], Scope::Device, Order::Relaxed); });
    return word.get();
  }
  static Value<std::uint32_t> flag_of(const Value<Word>& word) { return cast<std::uint32_t>(word >> 62); }
  Value<std::uint64_t> value_of(const Value<Word>& word, const i32&, const Value<bool>&) const {
    return word & ((Word{1} << 62) - 1);
  }
};

/// The counts (first, second), each in [0, 2^31), as one value for PackedU62Status.
inline Value<std::uint64_t> pack_count_pair(const i32& first, const i32& second) {
  return (cast<std::uint64_t>(second) << 31) | cast<std::uint64_t>(first);
}
/// The first count of a pack_count_pair value.
inline i32 first_of_pair(const Value<std::uint64_t>& pair) {
  return cast<std::int32_t>(pair & std::uint64_t{0x7fffffff});
}
/// The second count of a pack_count_pair value.
inline i32 second_of_pair(const Value<std::uint64_t>& pair) { return cast<std::int32_t>(pair >> 31); }

/// The exclusive prefix of tile `tile` (> 0) from the tiles before it, computed by one whole
/// warp; the result is meaningful in lane 0. Lane 0 first publishes the tile's `aggregate`;
/// then the 32 lanes read the status of the 32 preceding tiles (lane k the tile k + 1 before),
/// spinning while one is invalid. The window's values up to the nearest prefix (all 32 when
/// there is none) are combined in tile order (the farther tile first: `op` need not be
/// commutative) and put in front of what the later windows gave; the window after it starts
/// 32 tiles earlier, until a prefix has been met. Lane 0 then publishes the tile's inclusive
/// prefix, `result op aggregate`.
template <class T, class Op, class Status>
held_t<T> look_back(const Op& op, const Status& status, const i32& tile, const held_t<T>& aggregate) {
  using Word = typename Status::Word;
  i32 lane = lane_id();
  if_(lane == 0, [&] { status.publish(tile, kTileAggregate, aggregate); });
  HeldVar<T> exclusive;  // the tiles looked at so far, in order (lane 0)
  Var<bool> first_window = true;
  Var<bool> done = false;
  Var<std::int32_t> end = tile;  // this window: tiles [end - 32, end)
  while_([&] { return !done.get(); }, [&] {
    i32 j = end - 1 - lane;  // lane 0: the nearest tile
    // No tile before tile 0: never reached, as tile 0 only ever publishes a prefix.
    Var<Word> word = Status::kPrefixWord;
    if_(j >= 0, [&] { word = status.wait(j); });
    Value<Word> seen = word.get();
    Value<std::uint32_t> flag = Status::flag_of(seen);
    u32 is_prefix = ballot_sync(full_mask, flag == kTilePrefix);
    // Lanes up to the nearest prefix take part (all lanes when there is none).
    i32 stop = select(is_prefix != 0u, ffs(cast<std::int32_t>(is_prefix)) - 1, warp_size - 1);
    Value<bool> takes_part = (lane <= stop) & (j >= 0);
    held_t<T> value = status.value_of(seen, j, takes_part);
    Maybe<T> window = warp_reduce<true, T>(op, Maybe<T>{value, takes_part});
    exclusive = select(first_window.get(), window.value, call_op<T>(op, window.value, exclusive.get()));
    first_window = false;
    done = is_prefix != 0u;
    end -= warp_size;
  });
  held_t<T> result = exclusive.get();
  if_(lane == 0, [&] { status.publish(tile, kTilePrefix, call_op<T>(op, result, aggregate)); });
  return result;
}

}  // namespace cutlet::algorithms::detail
