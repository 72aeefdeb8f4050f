// Warp- and block-wide reductions and scans with a user operator, in sequence order.
#pragma once

#include "cutlet/algorithms/detail/maybe.h"
#include "cutlet/language/control.h"
#include "cutlet/language/memory.h"
#include "cutlet/language/warp.h"

namespace cutlet::algorithms::detail {

/// The reduction of the warp's 32 Maybes, in lane 0 (the other lanes hold partial results).
/// The lanes are combined in increasing lane order (lane 0's first), or in decreasing order
/// with HighLanesFirst; only neighbouring ranges are ever combined, so the operator need not
/// be commutative. Shuffles down with distances 1, 2, 4, ...: after the step of distance d,
/// lane i holds lanes [i, i + 2d), read only by lanes that need exactly that range.
template <bool HighLanesFirst, class T, class Op>
Maybe<T> warp_reduce(const Op& op, Maybe<T> m) {
  for (int d = 1; d < warp_size; d *= 2) {
    Maybe<T> other = shfl_down(m, d);
    if constexpr (HighLanesFirst) m = combine(op, other, m);
    else m = combine(op, m, other);
  }
  return m;
}

/// Inclusive scan of `v` over the lanes of the warp in lane order (Kogge-Stone with shuffles
/// up): lane i gets v_0 op v_1 op ... op v_i.
template <class T, class Op>
held_t<T> warp_inclusive_scan(const Op& op, held_t<T> v) {
  i32 lane = lane_id();
  for (int d = 1; d < warp_size; d *= 2) {
    held_t<T> up = shfl_up_held<T>(v, d);
    v = select(lane >= d, call_op<T>(op, up, v), v);
  }
  return v;
}

/// The reduction of the block's Maybes (Block threads, a multiple of 32, in one dimension), in
/// every thread: warp reductions, then each thread combines the warps' results in warp order
/// from shared memory. Every thread of the block must call it; each call has its own shared
/// memory (Block / 32 values and flags).
template <int Block, class T, class Op>
Maybe<T> block_reduce(const Op& op, const Maybe<T>& m) {
  static_assert(Block % warp_size == 0, "block_reduce needs whole warps");
  constexpr int kWarps = Block / warp_size;
  SharedHeld<T> values(kWarps);
  auto present = shared_array<std::int32_t>(kWarps);
  Maybe<T> w = warp_reduce<false>(op, m);
  i32 tid = thread_idx().x;
  if_((tid & 31) == 0, [&] {
    values.store(tid >> 5, w.value);
    present[tid >> 5] = cast<std::int32_t>(w.present);
  });
  syncthreads();
  Maybe<T> r{values.load(0), present[0] != 0};
  for (int k = 1; k < kWarps; ++k) r = combine(op, r, Maybe<T>{values.load(k), present[k] != 0});
  return r;
}

}  // namespace cutlet::algorithms::detail
