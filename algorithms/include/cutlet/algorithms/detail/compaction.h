// The building blocks of the single-pass compactions (select_if, select_flagged, unique,
// run_length_encode, three_way_partition), one block per tile: striped 16-byte loads (or
// reads one item at a time, for structs and iterators), run heads, the ranks of selected
// items from warp ballots, the tile's rows scanned by one warp, and the tile's offset from
// the tiles before it by decoupled look-back (lookback.h).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "cutlet/algorithms/detail/held.h"
#include "cutlet/algorithms/detail/lookback.h"
#include "cutlet/algorithms/detail/warp_block.h"
#include "cutlet/algorithms/element.h"
#include "cutlet/language/control.h"
#include "cutlet/language/index.h"
#include "cutlet/language/math.h"
#include "cutlet/language/memory.h"
#include "cutlet/language/pointer.h"
#include "cutlet/language/vector.h"
#include "cutlet/language/warp.h"

namespace cutlet::algorithms::detail {

/// Items of T in one group of a compaction tile (a thread holds Vectors groups, group k of
/// thread t the tile's group k * Block + t): kVectorLanes<T> consecutive numbers, one 16-byte
/// vector; one struct. A struct is a whole number of words, 12 and 24 bytes among them, so
/// it does not split into 16-byte vectors; one struct a lane makes a warp's group 32
/// consecutive structs, each load instruction of the warp contiguous (coalesced), as the
/// scans and reduce read structs.
template <class T>
constexpr int tile_lanes() {
  if constexpr (StructElement<T>) return 1;
  else return kVectorLanes<T>;
}

/// Lanes per access when loading groups of V consecutive elements of U: the whole group when
/// it fits in 16 bytes, else 16-byte vectors.
template <class U, int V>
inline constexpr int kAccessLanes = std::min(V, 16 / static_cast<int>(sizeof(U)));

/// A thread's elements of one tile: Vectors groups of V consecutive elements, group k of
/// thread `tid` starting at element (tile_vector + k * Block + tid) * V, so that a warp's
/// accesses to a group are contiguous (striped). In a full tile every group is loaded
/// unguarded in vector accesses; in the last, partial one, a group wholly below n as vectors
/// and the group across n element by element (groups of one element, beside structs, are
/// single loads). Elements at n or past read as zero. Returns
/// them in sequence order, [k * V + j].
template <int Block, int Vectors, int V, class U>
std::vector<Value<U>> load_striped(const Ptr<U>& p, const i32& n, const i32& tile_vector, const i32& tid,
                                   const Value<bool>& full) {
  constexpr int C = kAccessLanes<U, V>;
  std::vector<Var<U>> got(static_cast<std::size_t>(Vectors * V));
  auto at = [&](int k, int j) -> Var<U>& { return got[static_cast<std::size_t>(k * V + j)]; };
  Ptr<U> mine = p + (tile_vector + tid) * V;  // group 0; constant offsets after
  auto load_group = [&](int k) {
    if constexpr (C == 1) {
      for (int j = 0; j < V; ++j) at(k, j) = mine[k * Block * V + j].load();  // single elements (V = 1)
    } else {
      for (int c = 0; c < V / C; ++c) {
        Vec<U, C> v = mine.template vload<C>((k * Block * V + c * C) / C);
        for (int j = 0; j < C; ++j) at(k, c * C + j) = v[j];
      }
    }
  };
  if_(full,
      [&] {
        for (int k = 0; k < Vectors; ++k) load_group(k);
      },
      [&] {
        for (int k = 0; k < Vectors; ++k) {
          i32 first = (tile_vector + tid + k * Block) * V;
          if_(first + V <= n, [&] { load_group(k); },
              [&] {
                for (int j = 0; j < V; ++j) if_(first + j < n, [&] { at(k, j) = p[first + j].load(); });
              });
        }
      });
  std::vector<Value<U>> values;
  for (auto& g : got) values.push_back(g.get());
  return values;
}

/// A thread's items of a compaction tile (load_striped, or read_tile_items) and where they
/// are; V is tile_lanes<T>() (kVectorLanes<T> for the numbers of an iterator).
template <class T>
struct TileItems {
  std::vector<held_t<T>> items;    ///< [k * V + j], in sequence order (Struct<T> for a struct)
  std::vector<Value<bool>> valid;  ///< [k * V + j]: the item is below n
  std::vector<i32> first;          ///< [k]: the position of item (k, 0) in the input
  i32 tile_vector;                 ///< the tile's first group (16-byte vector, or struct)
  i32 tid;                         ///< the thread
  Value<bool> full;                ///< the tile lies wholly below n
};

/// Loads a thread's items of tile `tile` of `in` (n elements), as load_striped.
template <int Block, int Vectors, class T>
TileItems<T> load_tile_items(const Ptr<T>& in, const i32& n, const i32& tile, const i32& tid, const Value<bool>& full) {
  constexpr int V = kVectorLanes<T>;
  i32 tile_vector = tile * (Block * Vectors);
  TileItems<T> t{load_striped<Block, Vectors, V>(in, n, tile_vector, tid, full), {}, {}, tile_vector, tid, full};
  for (int k = 0; k < Vectors; ++k) {
    t.first.push_back((tile_vector + tid + k * Block) * V);
    for (int j = 0; j < V; ++j) t.valid.push_back(t.first.back() + j < n);
  }
  return t;
}

/// Values of U at the positions of a thread's items `t` (groups of V), read one at a time
/// through `read` (read(i), i an i32, gives element i as held_t<U>): every one in a full
/// tile, those below n in the last; zero past n. The values that go with the items (flags,
/// unique_by_key's values) where they are not loaded as 16-byte vectors.
template <class U, int V, class T, class Read>
std::vector<held_t<U>> read_at_items(const Read& read, const TileItems<T>& t) {
  const int vectors = static_cast<int>(t.first.size());
  std::vector<HeldVar<U>> got(static_cast<std::size_t>(vectors * V));
  auto read_one = [&](int k, int j) { got[static_cast<std::size_t>(k * V + j)] = held_t<U>(read(t.first[k] + j)); };
  if_(t.full,
      [&] {
        for (int k = 0; k < vectors; ++k)
          for (int j = 0; j < V; ++j) read_one(k, j);
      },
      [&] {
        for (int k = 0; k < vectors; ++k)
          for (int j = 0; j < V; ++j) if_(t.valid[static_cast<std::size_t>(k * V + j)], [&] { read_one(k, j); });
      });
  std::vector<held_t<U>> values;
  for (const auto& g : got) values.push_back(g.get());
  return values;
}

/// A thread's items of tile `tile` (n items) read one at a time through `read` (read(i), i an
/// i32, gives item i as held_t<T>), in load_tile_items' layout with groups of V items: a
/// buffer of structs (V = 1, see tile_lanes) or an iterator's elements (V = kVectorLanes<T>:
/// the tiles of a buffer of them). All of a thread's reads are in flight together; nothing is
/// read at n or past (those items are zero).
template <int Block, int Vectors, int V, class T, class Read>
TileItems<T> read_tile_items(const Read& read, const i32& n, const i32& tile, const i32& tid,
                             const Value<bool>& full) {
  i32 tile_vector = tile * (Block * Vectors);
  TileItems<T> t{{}, {}, {}, tile_vector, tid, full};
  for (int k = 0; k < Vectors; ++k) {
    t.first.push_back((tile_vector + tid + k * Block) * V);
    for (int j = 0; j < V; ++j) t.valid.push_back(t.first.back() + j < n);
  }
  t.items = read_at_items<T, V>(read, t);
  return t;
}

/// Whether each item starts a run: it is valid, and at position 0 or not eq(the item before
/// it, it). The item before a group's first is the last of the lane below (a shuffle), or for
/// lane 0 the element before the group, read(first - 1) (held_t<T>). All 32 lanes of each
/// warp call it.
template <int Vectors, class T, class Eq, class Read>
std::vector<Value<bool>> run_heads_of(const Eq& eq, const Read& read, const TileItems<T>& t) {
  constexpr int V = tile_lanes<T>();
  i32 lane = lane_id();
  std::vector<Value<bool>> heads;
  for (int k = 0; k < Vectors; ++k) {
    auto item = [&](int j) { return t.items[static_cast<std::size_t>(k * V + j)]; };
    HeldVar<T> before(shfl_up_held<T>(item(V - 1), 1));
    const Value<bool>& group_valid = t.valid[static_cast<std::size_t>(k * V)];
    if_((lane == 0) & (t.first[k] > 0) & group_valid, [&] { before = held_t<T>(read(t.first[k] - 1)); });
    held_t<T> previous = before.get();
    for (int j = 0; j < V; ++j) {
      Value<bool> differs = !call_pred<T>(eq, j == 0 ? previous : item(j - 1), item(j));
      if (j == 0) differs = differs | (t.first[k] == 0);
      heads.push_back(differs & t.valid[static_cast<std::size_t>(k * V + j)]);
    }
  }
  return heads;
}

/// run_heads_of a buffer of numbers `in`.
template <int Vectors, class T, class Eq>
std::vector<Value<bool>> run_heads(const Eq& eq, const Ptr<T>& in, const TileItems<T>& t) {
  return run_heads_of<Vectors>(eq, [&](const i32& i) { return in[i].load(); }, t);
}

/// The ranks of a thread's selected items within its warp's rows (row k of a warp: the
/// warp's 32 groups k, contiguous in sequence order), from one ballot per item.
struct RowRanks {
  std::vector<i32> below;  ///< [k]: selected items of row k in the lanes below this one
  std::vector<i32> total;  ///< [k]: selected items of the warp's row k (the same in every lane)
};

/// RowRanks of `selected` ([k * V + j]). All 32 lanes of each warp call it.
template <int Vectors, int V>
RowRanks row_ranks(const std::vector<Value<bool>>& selected) {
  u32 lanes_below = (u32(1u) << cast<std::uint32_t>(lane_id())) - 1u;
  RowRanks r;
  for (int k = 0; k < Vectors; ++k) {
    i32 below = 0;
    i32 total = 0;
    for (int j = 0; j < V; ++j) {
      u32 votes = ballot_sync(full_mask, selected[static_cast<std::size_t>(k * V + j)]);
      below = below + popc(votes & lanes_below);
      total = total + popc(votes);
    }
    r.below.push_back(below);
    r.total.push_back(total);
  }
  return r;
}

/// Warp 0's exclusive scan of a tile's Rows (<= 32) row values in tile order (row k of warp w
/// at k * warps + w) with `op`, whose identity is `identity`: writes each row's exclusive
/// prefix to `row_prefix` and returns the tile's total (in every lane).
template <int Rows, class C, class Op>
Value<C> scan_rows(const Op& op, const SharedPtr<C>& rows, const SharedPtr<C>& row_prefix, const Value<C>& identity) {
  static_assert(Rows <= warp_size, "scan_rows scans at most one value per lane");
  i32 lane = lane_id();
  Var<C> mine = identity;
  if_(lane < Rows, [&] { mine = rows[lane].load(); });
  Value<C> inclusive = warp_inclusive_scan<C>(op, mine.get());
  Value<C> from_below = shfl_up_sync(full_mask, inclusive, 1);
  if_(lane < Rows, [&] { row_prefix[lane] = select(lane == 0, identity, from_below); });
  return shfl_sync(full_mask, inclusive, warp_size - 1);
}

/// Warp 0: the exclusive prefix of tile `tile` whose own total is `aggregate` (meaningful in
/// lane 0): `identity` for tile 0, which publishes its aggregate as its prefix, and for the
/// others what look_back gives.
template <class C, class Op, class Status>
Value<C> tile_exclusive_prefix(const Op& op, const Status& status, const i32& tile, const Value<C>& aggregate,
                               const Value<C>& identity) {
  return if_(
      tile == 0,
      [&] {
        if_(lane_id() == 0, [&] { status.publish(0, kTilePrefix, aggregate); });
        return identity;
      },
      [&] { return look_back<C>(op, status, tile, aggregate); });
}

}  // namespace cutlet::algorithms::detail
