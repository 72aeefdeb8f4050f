// Hopper's tensor memory accelerator (sm_90 and later) in the per-thread language: TMA
// descriptor parameters (the kernel side of a host TensorMap), mbarriers, and the bulk copies
// of boxes between a tensor and shared memory that complete on them.
//
//   auto k = kernel([](TmaDescriptor<float, 2> in, TmaDescriptor<float, 2> out) {
//     auto box = shared_array<float>(64 * 64);
//     auto bar = shared_array<std::uint64_t>(1);
//     i32 row = block_idx().x * 64;
//     if_(thread_idx().x == 0, [&] {
//       mbarrier_init(bar, 1);
//       fence_proxy_async();
//       mbarrier_arrive_expect_tx(bar, 64 * 64 * 4);
//       tma_load(box, in, {row, 0}, bar);
//     });
//     syncthreads();
//     mbarrier_wait(bar, 0);       // every thread: the box has arrived
//     ...                          // read and write `box`
//     fence_proxy_async();         // the writes, before the TMA store reads them
//     syncthreads();
//     if_(thread_idx().x == 0, [&] { tma_store(out, {row, 0}, box); bulk_commit(); bulk_wait(0); });
//   }, {.target = Target::from_string("sm_90a")});
//   k.launch(stream, {.grid = rows / 64, .block = 128},
//            cached_tensor_map(tensor_map_spec(tensor(x, {rows, 64}), {64, 64})), ...);
//
// Coordinates are element offsets of the box's first element, outermost dimension first (as
// a TensorMapSpec's shape); a box reaching past the tensor's edge reads zeros there (or the
// spec's fill) and stores nothing there.
#pragma once

#include <array>
#include <cstdint>
#include <source_location>
#include <string>

#include "cutlet/language/control.h"
#include "cutlet/language/pointer.h"
#include "cutlet/language/value.h"
#include "cutlet/runtime/tensor_map.h"

namespace cutlet {

/// A kernel parameter holding the TMA tensor map of a rank-R tensor of T. Launch it with a
/// TensorMap encoded from a TensorMapSpec of element type tma_element_of<T>() and rank R
/// (cached_tensor_map(tensor_map_spec(...))); it is passed by value, 128 bytes.
template <ScalarType T, int R>
class TmaDescriptor {
  static_assert(R >= 1 && R <= 5, "cutlet: a TMA descriptor has 1 to 5 dimensions");

 public:
  using element_type = T;
  static constexpr int rank = R;
  ir::ValueId id() const { return id_.get(); }
  static TmaDescriptor wrap(ir::ValueId id) { return TmaDescriptor(id); }

 private:
  explicit TmaDescriptor(ir::ValueId id) : id_(id) {}
  detail::TracedId id_;
};

/// An mbarrier: a 64-bit word in shared memory (shared_array<std::uint64_t>).
using Mbarrier = SharedPtr<std::uint64_t>;

/// Initialises the mbarrier at `bar` for `count` arrivals per phase (one thread does it,
/// before the block's other threads use the barrier: follow it with syncthreads()).
inline void mbarrier_init(const Mbarrier& bar, const i32& count, std::source_location where = std::source_location::current()) {
  detail::set_location(where);
  detail::builder("cutlet::mbarrier_init").mbarrier_init(bar.id(), count.id());
}

/// One arrival on the mbarrier at `bar`.
inline void mbarrier_arrive(const Mbarrier& bar, std::source_location where = std::source_location::current()) {
  detail::set_location(where);
  detail::builder("cutlet::mbarrier_arrive").mbarrier_arrive(bar.id());
}

/// One arrival on the mbarrier at `bar` that also sets it to expect `bytes` of bulk copies
/// (the boxes the phase's tma_loads bring) before its phase completes.
inline void mbarrier_arrive_expect_tx(const Mbarrier& bar, const i32& bytes, std::source_location where = std::source_location::current()) {
  detail::set_location(where);
  detail::builder("cutlet::mbarrier_arrive_expect_tx").mbarrier_arrive(bar.id(), bytes.id());
}

/// Whether the phase of parity `phase` (0 or 1; phases alternate) of the mbarrier at `bar`
/// has completed. The hardware waits a while before answering false.
inline Value<bool> mbarrier_try_wait(const Mbarrier& bar, const i32& phase, std::source_location where = std::source_location::current()) {
  detail::set_location(where);
  return Value<bool>::wrap(detail::builder("cutlet::mbarrier_try_wait").mbarrier_try_wait(bar.id(), phase.id()));
}

/// Waits until the phase of parity `phase` of the mbarrier at `bar` has completed.
inline void mbarrier_wait(const Mbarrier& bar, const i32& phase, std::source_location where = std::source_location::current()) {
  while_([&] { return !mbarrier_try_wait(bar, phase, where); }, [] {}, where);
}

namespace detail {
/// The value numbers of a TMA op's coordinates.
template <int R>
std::array<ir::ValueId, R> coordinate_ids(const std::array<i32, R>& coords) {
  std::array<ir::ValueId, R> ids;
  for (int d = 0; d < R; ++d) ids[d] = coords[d].id();
  return ids;
}
}  // namespace detail

/// Starts copying the box of `desc` at `coords` into shared memory at `dst`; it completes on
/// the mbarrier at `bar` with the box's bytes (which an mbarrier_arrive_expect_tx of this
/// phase must have announced). One thread issues it.
template <ScalarType T, int R>
void tma_load(const SharedPtr<T>& dst, const TmaDescriptor<T, R>& desc, const std::array<i32, R>& coords,
              const Mbarrier& bar, std::source_location where = std::source_location::current()) {
  detail::set_location(where);
  detail::builder("cutlet::tma_load").tma_load(desc.id(), dst.id(), bar.id(), detail::coordinate_ids<R>(coords));
}

/// Starts copying the box at `src` in shared memory to `desc` at `coords`; it joins the
/// thread's current bulk group. The block's writes to `src` must come before it through
/// fence_proxy_async() and a barrier. One thread issues it.
template <ScalarType T, int R>
void tma_store(const TmaDescriptor<T, R>& desc, const std::array<i32, R>& coords, const SharedPtr<T>& src,
               std::source_location where = std::source_location::current()) {
  detail::set_location(where);
  detail::builder("cutlet::tma_store").tma_store(desc.id(), src.id(), detail::coordinate_ids<R>(coords));
}

/// Ends the thread's current bulk group (the tma_stores issued since the last one).
inline void bulk_commit(std::source_location where = std::source_location::current()) {
  detail::set_location(where);
  detail::builder("cutlet::bulk_commit").bulk_commit();
}

/// Waits until at most `pending` of the thread's bulk groups are in flight; with
/// `reads_only`, only until they have read their shared memory (which may then be reused),
/// not until their writes are visible.
inline void bulk_wait(int pending, bool reads_only = false, std::source_location where = std::source_location::current()) {
  detail::set_location(where);
  if (pending < 0 || pending > 63)
    detail::throw_trace_error("bulk_wait leaves 0 to 63 bulk groups in flight, not " + std::to_string(pending), where);
  detail::builder("cutlet::bulk_wait").bulk_wait(pending, reads_only);
}

/// Orders this thread's earlier shared-memory accesses (and an mbarrier_init) before the
/// bulk copies that follow it.
inline void fence_proxy_async(std::source_location where = std::source_location::current()) {
  detail::set_location(where);
  detail::builder("cutlet::fence_proxy_async").fence_proxy_async();
}

}  // namespace cutlet
