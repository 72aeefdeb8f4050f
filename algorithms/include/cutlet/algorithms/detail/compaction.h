// The building blocks of the single-pass compactions (select_if, select_flagged, unique,
// run_length_encode), one block per tile: striped 16-byte loads, run heads, the ranks of
// selected items from warp ballots, the tile's rows scanned by one warp, and the tile's
// offset from the tiles before it by decoupled look-back (lookback.h).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

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

/// Lanes per access when loading groups of V consecutive elements of U: the whole group when
/// it fits in 16 bytes, else 16-byte vectors.
template <class U, int V>
inline constexpr int kAccessLanes = std::min(V, 16 / static_cast<int>(sizeof(U)));

/// A thread's elements of one tile: Vectors groups of V consecutive elements, group k of
/// thread `tid` starting at element (tile_vector + k * Block + tid) * V, so that a warp's
/// accesses to a group are contiguous (striped). In a full tile every group is loaded
/// unguarded in vector accesses; in the last, partial one, a group wholly below n as vectors
/// and the group across n element by element. Elements at n or past read as zero. Returns
/// them in sequence order, [k * V + j].
template <int Block, int Vectors, int V, class U>
std::vector<Value<U>> load_striped(const Ptr<U>& p, const i32& n, const i32& tile_vector, const i32& tid,
                                   const Value<bool>& full) {
  constexpr int C = kAccessLanes<U, V>;
  std::vector<Var<U>> got(static_cast<std::size_t>(Vectors * V));
  auto at = [&](int k, int j) -> Var<U>& { return got[static_cast<std::size_t>(k * V + j)]; };
  Ptr<U> mine = p + (tile_vector + tid) * V;  // group 0; constant offsets after
  auto load_group = [&](int k) {
    for (int c = 0; c < V / C; ++c) {
      Vec<U, C> v = mine.template vload<C>((k * Block * V + c * C) / C);
      for (int j = 0; j < C; ++j) at(k, c * C + j) = v[j];
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

/// A thread's items of a compaction tile (load_striped) and where they are.
template <class T>
struct TileItems {
  std::vector<Value<T>> items;     ///< [k * V + j], in sequence order
  std::vector<Value<bool>> valid;  ///< [k * V + j]: the item is below n
  std::vector<i32> first;          ///< [k]: the position of item (k, 0) in the input
  i32 tile_vector;                 ///< the tile's first 16-byte vector
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

/// Whether each item starts a run: it is valid, and at position 0 or not eq(the item before
/// it, it). The item before a group's first is the last of the lane below (a shuffle), or for
/// lane 0 the element before the group, read from `in`. All 32 lanes of each warp call it.
template <int Vectors, class T, class Eq>
std::vector<Value<bool>> run_heads(const Eq& eq, const Ptr<T>& in, const TileItems<T>& t) {
  constexpr int V = kVectorLanes<T>;
  i32 lane = lane_id();
  std::vector<Value<bool>> heads;
  for (int k = 0; k < Vectors; ++k) {
    auto item = [&](int j) { return t.items[static_cast<std::size_t>(k * V + j)]; };
    Var<T> before = shfl_up_sync(full_mask, item(V - 1), 1);
    const Value<bool>& group_valid = t.valid[static_cast<std::size_t>(k * V)];
    if_((lane == 0) & (t.first[k] > 0) & group_valid, [&] { before = in[t.first[k] - 1].load(); });
    Value<T> previous = before.get();
    for (int j = 0; j < V; ++j) {
      Value<bool> differs = !call_pred<T>(eq, j == 0 ? previous : item(j - 1), item(j));
      if (j == 0) differs = differs | (t.first[k] == 0);
      heads.push_back(differs & t.valid[static_cast<std::size_t>(k * V + j)]);
    }
  }
  return heads;
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
