// unique and unique_by_key: the first item of each run of equal consecutive items, with a user
// equality (CUB's DeviceSelect::Unique and UniqueByKey): a select_if whose predicate is
// "differs from the item before", by key carrying each kept key's value along.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "cutlet/algorithms/detail/compaction.h"
#include "cutlet/algorithms/detail/host_checks.h"
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

/// Makes unique_by_key's kernel for keys of K, values of V and Eq: unique's, each kept key's
/// value (loaded with the keys, the same striped way) stored at the key's position.
template <class K, class V, class Eq>
auto make_unique_by_key_kernel() {
  return cutlet::kernel(
      [](Ptr<K> keys_out, Ptr<std::int32_t> num_selected, Ptr<K> keys_in, i32 n, Ptr<std::uint32_t> counter,
         Ptr<std::uint64_t> words, Ptr<V> values_out, Ptr<V> values_in) {
        const Eq eq{};
        std::vector<Value<V>> values;
        select_tile_body<K>(
            keys_out, num_selected, keys_in, n, counter, words,
            [&](const TileItems<K>& t) {
              values = load_striped<kSelectBlock, kSelectVectors, kVectorLanes<K>>(values_in, n, t.tile_vector, t.tid,
                                                                                   t.full);
              return run_heads<kSelectVectors>(eq, keys_in, t);
            },
            [&](const i32& at, std::size_t i) { values_out[at] = values[i]; });
      },
      {.name = std::string("cutlet_unique_by_key_") + element_name<K>() + "_" + element_name<V>()});
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

/// The kernel of unique_by_key for keys of K, values of V and equality Eq (made at the first
/// use, then shared), for inspection and compiling ahead.
template <Element K, Element V, class Eq = equal_to>
  requires BinaryPredicate<Eq, K>
auto& unique_by_key_kernel() {
  static auto k = detail::make_unique_by_key_kernel<K, V, Eq>();
  return k;
}

/// unique over keys that carry values (CUB's DeviceSelect::UniqueByKey): the first key of
/// each run of consecutive keys equal under `eq` goes to keys_out[0, m) and its value, the
/// value at the same position of `values_in`, to values_out[0, m); num_selected[0] = m. The
/// rest of both outputs is left alone. One kernel, as unique: the values are loaded with the
/// keys and each kept key's value stored at its position.
///
/// `values_in` and `values_out` hold at least n = keys_in.size() values; `keys_out` may be
/// `keys_in` and `values_out` `values_in` (in place). All of the stream's device, `keys_in`
/// and `values_in` 16-byte aligned. At most kSelectMaxCount keys. Temporary storage
/// (select_workspace_bytes<K>) comes from `workspace`. Throws cutlet::Error for bad arguments.
template <Element K, Element V, class Eq = equal_to>
  requires BinaryPredicate<Eq, K>
void unique_by_key(const Stream& stream, const Buffer<K>& keys_in, const Buffer<V>& values_in, Buffer<K>& keys_out,
                   Buffer<V>& values_out, Buffer<std::int32_t>& num_selected, Eq eq = {},
                   const Workspace& workspace = {}) {
  const char* name = "unique_by_key";
  if (!keys_in.empty()) {
    detail::check_size(values_in.size(), keys_in.size(), name, "values input");
    detail::check_size(values_out.size(), keys_in.size(), name, "values output");
    detail::check_device(values_in.device(), stream, name, "values input");
    detail::check_device(values_out.device(), stream, name, "values output");
    detail::check_aligned(values_in.data(), name, "values input");
  }
  detail::launch_select(unique_by_key_kernel<K, V, Eq>(), stream, keys_in, keys_out, num_selected, workspace, name,
                        values_out, values_in);
}

/// As unique_by_key, returning m to the host: waits for the stream (the one host
/// synchronization).
template <Element K, Element V, class Eq = equal_to>
  requires BinaryPredicate<Eq, K>
std::size_t unique_by_key(const Stream& stream, const Buffer<K>& keys_in, const Buffer<V>& values_in,
                          Buffer<K>& keys_out, Buffer<V>& values_out, Eq eq = {}, const Workspace& workspace = {}) {
  Buffer<std::int32_t> count(1, stream);
  unique_by_key(stream, keys_in, values_in, keys_out, values_out, count, eq, workspace);
  return static_cast<std::size_t>(count.to_host(stream)[0]);
}

}  // namespace cutlet::algorithms
