// Warp-level primitives: lane and warp ids, shuffles, votes, match and warp reductions.
// Every *_sync function takes the mask of lanes that take part, as in CUDA; all of them must
// execute it (full_mask when the whole warp does).
#pragma once

#include <source_location>
#include <type_traits>

#include "cutlet/language/index.h"
#include "cutlet/language/value.h"

namespace cutlet {

/// All 32 lanes.
inline constexpr std::uint32_t full_mask = 0xffffffffu;
/// Threads per warp.
inline constexpr int warp_size = 32;

/// This thread's lane in its warp (0..31).
inline i32 lane_id() { return i32::wrap(detail::builder("cutlet::lane_id").special(ir::SpecialReg::LaneId)); }
/// This thread's warp within its block: its linear index in the block divided by 32.
inline i32 warp_id() {
  auto t = thread_idx();
  auto d = block_dim();
  return (t.x + d.x * (t.y + d.y * t.z)) >> 5;
}
/// The lanes of the warp executing this instruction now (`__activemask`).
inline u32 active_mask() { return u32::wrap(detail::builder("cutlet::active_mask").active_mask()); }

namespace detail {
template <class X>
Value<traced_type_t<X>> shuffle(ir::ShuffleKind kind, const Value<std::uint32_t>& mask, const X& v, const i32& lane) {
  using T = traced_type_t<X>;
  static_assert(!std::is_same_v<T, bool>, "cutlet: shuffles move numbers; ballot_sync gathers predicates");
  return Value<T>::wrap(builder("a warp shuffle").shuffle(kind, as_value(v).id(), lane.id(), mask.id()));
}
}  // namespace detail

/// The value of `v` in lane `src` (`__shfl_sync`). The shuffles move numbers of every width:
/// 8- and 16-bit ones (half, bfloat16 among them) in one 32-bit shuffle, 64-bit ones in two.
template <Traced X>
Value<traced_type_t<X>> shfl_sync(const u32& mask, const X& v, const i32& src) {
  return detail::shuffle(ir::ShuffleKind::Idx, mask, v, src);
}
/// The value of `v` in lane (lane_id - delta); lanes below delta keep their own (`__shfl_up_sync`).
template <Traced X>
Value<traced_type_t<X>> shfl_up_sync(const u32& mask, const X& v, const i32& delta) {
  return detail::shuffle(ir::ShuffleKind::Up, mask, v, delta);
}
/// The value of `v` in lane (lane_id + delta); lanes past 31 keep their own (`__shfl_down_sync`).
template <Traced X>
Value<traced_type_t<X>> shfl_down_sync(const u32& mask, const X& v, const i32& delta) {
  return detail::shuffle(ir::ShuffleKind::Down, mask, v, delta);
}
/// The value of `v` in lane (lane_id ^ lane_mask) (`__shfl_xor_sync`).
template <Traced X>
Value<traced_type_t<X>> shfl_xor_sync(const u32& mask, const X& v, const i32& lane_mask) {
  return detail::shuffle(ir::ShuffleKind::Xor, mask, v, lane_mask);
}

/// True when `pred` is true on every lane of `mask` (`__all_sync`).
inline Value<bool> all_sync(const u32& mask, const Value<bool>& pred) {
  return Value<bool>::wrap(detail::builder().vote(ir::VoteKind::All, pred.id(), mask.id()));
}
/// True when `pred` is true on any lane of `mask` (`__any_sync`).
inline Value<bool> any_sync(const u32& mask, const Value<bool>& pred) {
  return Value<bool>::wrap(detail::builder().vote(ir::VoteKind::Any, pred.id(), mask.id()));
}
/// Bit k set when `pred` is true on lane k (`__ballot_sync`).
inline u32 ballot_sync(const u32& mask, const Value<bool>& pred) {
  return u32::wrap(detail::builder().vote(ir::VoteKind::Ballot, pred.id(), mask.id()));
}
/// The lanes of `mask` whose `v` equals this lane's (`__match_any_sync`). `v` is a 32- or
/// 64-bit value; another width is an IRError naming the line `where`.
template <Traced X>
u32 match_any_sync(const u32& mask, const X& v, std::source_location where = std::source_location::current()) {
  detail::set_location(where);
  return u32::wrap(detail::builder().match(ir::MatchKind::Any, detail::as_value(v).id(), mask.id()));
}
/// `mask` when every lane of it holds the same `v`, else 0 (`__match_all_sync`); `v` as for
/// match_any_sync.
template <Traced X>
u32 match_all_sync(const u32& mask, const X& v, std::source_location where = std::source_location::current()) {
  detail::set_location(where);
  return u32::wrap(detail::builder().match(ir::MatchKind::All, detail::as_value(v).id(), mask.id()));
}

namespace detail {
template <class X>
Value<traced_type_t<X>> redux(ir::ReduxKind kind, const u32& mask, const X& v) {
  using T = traced_type_t<X>;
  static_assert(std::is_same_v<T, std::int32_t> || std::is_same_v<T, std::uint32_t>,
                "cutlet: warp reductions (redux.sync) take i32 or u32");
  return Value<T>::wrap(builder("a warp reduction").redux(kind, as_value(v).id(), mask.id()));
}
}  // namespace detail

/// Sum / min / max / and / or / xor of a 32-bit integer over the lanes of `mask`, in one
/// redux.sync instruction (sm_80+): `__reduce_add_sync` and friends.
template <Traced X>
auto reduce_add_sync(const u32& mask, const X& v) { return detail::redux(ir::ReduxKind::Add, mask, v); }
template <Traced X>
auto reduce_min_sync(const u32& mask, const X& v) { return detail::redux(ir::ReduxKind::Min, mask, v); }
template <Traced X>
auto reduce_max_sync(const u32& mask, const X& v) { return detail::redux(ir::ReduxKind::Max, mask, v); }
template <Traced X>
auto reduce_and_sync(const u32& mask, const X& v) { return detail::redux(ir::ReduxKind::And, mask, v); }
template <Traced X>
auto reduce_or_sync(const u32& mask, const X& v) { return detail::redux(ir::ReduxKind::Or, mask, v); }
template <Traced X>
auto reduce_xor_sync(const u32& mask, const X& v) { return detail::redux(ir::ReduxKind::Xor, mask, v); }

}  // namespace cutlet
