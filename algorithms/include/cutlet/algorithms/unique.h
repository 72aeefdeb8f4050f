// unique: the first item of each run of equal consecutive items, with a user equality (CUB's
// DeviceSelect::Unique): a select_if whose predicate is "differs from the item before".
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "cutlet/algorithms/detail/compaction.h"
#include "cutlet/algorithms/element.h"
#include "cutlet/algorithms/operators.h"
#include "cutlet/algorithms/select.h"
#include "cutlet/algorithms/workspace.h"
#include "cutlet/jit/kernel.h"
#include "cutlet/runtime/buffer.h"
#include "cutlet/runtime/stream.h"

namespace cutlet::algorithms {

namespace detail {

/// Makes unique's kernel for (T, Eq): select_tile_body keeping the run heads.
template <class T, class Eq>
auto make_unique_kernel() {
  return cutlet::kernel(
      [](Ptr<T> out, Ptr<std::int32_t> num_selected, Ptr<T> in, i32 n, Ptr<std::uint32_t> counter,
         Ptr<std::uint64_t> words) {
        const Eq eq{};
        select_tile_body<T>(out, num_selected, in, n, counter, words,
                            [&](const TileItems<T>& t) { return run_heads<kSelectVectors>(eq, in, t); });
      },
      {.name = std::string("cutlet_unique_") + element_name<T>()});
}

}  // namespace detail

/// The kernel of unique for element type T and equality type Eq (made at the first use, then
/// shared), for inspection and compiling ahead.
template <Element T, class Eq = equal_to>
  requires BinaryPredicate<Eq, T>
auto& unique_kernel() {
  static auto k = detail::make_unique_kernel<T, Eq>();
  return k;
}

/// Copies the first item of each run of consecutive equal items of `in` (n = in.size()) to
/// out[0, m), in order, and sets num_selected[0] = m: in[0], and each in[i] with
/// !eq(in[i - 1], in[i]). out[m, n) is left alone. `eq` (default: ==; for floats NaN equals
/// nothing, so each NaN is a run of its own) is applied to neighbours only, so it need not be
/// an equivalence; it must have no side effects. Queued on `stream` in one kernel launch
/// (after a memset of the tile status), without host synchronization; select_if's tiles,
/// look-back and stores, each item's neighbour from the lane below (a shuffle) or, for a
/// warp's first, read again from `in`.
///
/// `out` holds at least n elements and may be `in` (in place); `num_selected` at least one;
/// all of the stream's device, `in` 16-byte aligned. At most kSelectMaxCount elements.
/// Temporary storage (select_workspace_bytes) comes from `workspace`. Throws cutlet::Error for
/// bad arguments.
template <Element T, class Eq = equal_to>
  requires BinaryPredicate<Eq, T>
void unique(const Stream& stream, const Buffer<T>& in, Buffer<T>& out, Buffer<std::int32_t>& num_selected, Eq eq = {},
            const Workspace& workspace = {}) {
  detail::launch_select(unique_kernel<T, Eq>(), stream, in, out, num_selected, workspace, "unique");
}

/// As unique, returning m to the host: waits for the stream (the one host synchronization).
template <Element T, class Eq = equal_to>
  requires BinaryPredicate<Eq, T>
std::size_t unique(const Stream& stream, const Buffer<T>& in, Buffer<T>& out, Eq eq = {},
                   const Workspace& workspace = {}) {
  Buffer<std::int32_t> count(1, stream);
  unique(stream, in, out, count, eq, workspace);
  return static_cast<std::size_t>(count.to_host(stream)[0]);
}

}  // namespace cutlet::algorithms
