// unique and unique_by_key: the first item of each run of equal consecutive items, with a user
// equality (CUB's DeviceSelect::Unique and UniqueByKey): a select_if whose predicate is
// "differs from the item before", by key carrying each kept key's value along. Items, keys and
// values may be numbers or user structs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "cutlet/algorithms/detail/compaction.h"
#include "cutlet/algorithms/detail/held.h"
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

/// The run heads of a thread's items `t` of a buffer `in` of T (run_heads; for structs, the
/// struct before a warp's first read with load_held).
template <class T, class Eq>
std::vector<Value<bool>> buffer_run_heads(const Eq& eq, const Ptr<storage_t<T>>& in, const TileItems<T>& t) {
  if constexpr (StructElement<T>)
    return run_heads_of<kSelectVectors>(eq, [&](const i32& i) { return load_held<T>(in, cast<std::int64_t>(i)); }, t);
  else return run_heads<kSelectVectors>(eq, in, t);
}

/// The values of a buffer of V at the positions of a thread's keys `t` (of K): loaded the
/// keys' striped way in 16-byte vectors where both are numbers, else one at a time
/// (read_at_items; load_held for structs).
template <class K, class V>
std::vector<held_t<V>> values_at_keys(const Ptr<storage_t<V>>& values_in, const i32& n, const TileItems<K>& t) {
  if constexpr (Element<K> && Element<V>)
    return load_striped<kSelectBlock, kSelectVectors, kVectorLanes<K>>(values_in, n, t.tile_vector, t.tid, t.full);
  else
    return read_at_items<V, tile_lanes<K>()>(
        [&](const i32& i) { return load_held<V>(values_in, cast<std::int64_t>(i)); }, t);
}

/// Makes unique's kernel for (T, Eq): select_tile_body keeping the run heads.
template <class T, class Eq>
auto make_unique_kernel() {
  return cutlet::kernel(
      [](Ptr<storage_t<T>> out, Ptr<std::int32_t> num_selected, Ptr<storage_t<T>> in, i32 n,
         Ptr<std::uint32_t> counter, Ptr<std::uint64_t> words) {
        const Eq eq{};
        select_tile_body<T>(out, num_selected, n, counter, words, buffer_tiles<T>(in, n),
                            [&](const TileItems<T>& t) { return buffer_run_heads<T>(eq, in, t); });
      },
      {.name = std::string("cutlet_unique_") + held_name<T>()});
}

/// Makes unique_by_key's kernel for keys of K, values of V and Eq: unique's, each kept key's
/// value (loaded with the keys, values_at_keys) stored at the key's position.
template <class K, class V, class Eq>
auto make_unique_by_key_kernel() {
  return cutlet::kernel(
      [](Ptr<storage_t<K>> keys_out, Ptr<std::int32_t> num_selected, Ptr<storage_t<K>> keys_in, i32 n,
         Ptr<std::uint32_t> counter, Ptr<std::uint64_t> words, Ptr<storage_t<V>> values_out,
         Ptr<storage_t<V>> values_in) {
        const Eq eq{};
        std::vector<held_t<V>> values;
        select_tile_body<K>(
            keys_out, num_selected, n, counter, words, buffer_tiles<K>(keys_in, n),
            [&](const TileItems<K>& t) {
              values = values_at_keys<K, V>(values_in, n, t);
              return buffer_run_heads<K>(eq, keys_in, t);
            },
            [&](const i32& at, std::size_t i) { store_held<V>(values_out, at, values[i]); });
      },
      {.name = std::string("cutlet_unique_by_key_") + held_name<K>() + "_" + held_name<V>()});
}

}  // namespace detail

/// The kernel of unique for element type T (a number or a StructElement) and equality type
/// Eq (made at the first use, then shared), for inspection and compiling ahead.
template <ElementOrStruct T, class Eq = equal_to>
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
/// T may be a user struct (a StructElement), `eq` then comparing Struct<T> values (there is
/// no default for structs: name the fields that make two equal):
///
///     auto same_cell = [](Struct<Hit> a, Struct<Hit> b) {
///       return (a[&Hit::x] == b[&Hit::x]) & (a[&Hit::y] == b[&Hit::y]);
///     };
///     algorithms::unique(stream, hits, out, count, same_cell);
///
/// The structs are read as select_if reads them: one a lane, warp-striped, kSelectTile<T>
/// (1024) a tile, the struct before a warp's first from the lane below or, for lane 0, read
/// again.
///
/// `out` holds at least n elements and may be `in` (in place); `num_selected` at least one;
/// all of the stream's device, `in` 16-byte aligned (8- or 16-byte structs aligned to their
/// size). At most kSelectMaxCount elements. Temporary storage (select_workspace_bytes) comes
/// from `workspace`. Throws cutlet::Error for bad arguments.
template <ElementOrStruct T, class Eq = equal_to>
  requires BinaryPredicate<Eq, T>
void unique(const Stream& stream, const Buffer<T>& in, Buffer<T>& out, Buffer<std::int32_t>& num_selected, Eq eq = {},
            const Workspace& workspace = {}) {
  detail::launch_select(unique_kernel<T, Eq>(), stream, in, out, num_selected, workspace, "unique");
}

/// As unique, returning m to the host: waits for the stream (the one host synchronization).
template <ElementOrStruct T, class Eq = equal_to>
  requires BinaryPredicate<Eq, T>
std::size_t unique(const Stream& stream, const Buffer<T>& in, Buffer<T>& out, Eq eq = {},
                   const Workspace& workspace = {}) {
  Buffer<std::int32_t> count(1, stream);
  unique(stream, in, out, count, eq, workspace);
  return static_cast<std::size_t>(count.to_host(stream)[0]);
}

/// The kernel of unique_by_key for keys of K, values of V (each a number or a StructElement)
/// and equality Eq (made at the first use, then shared), for inspection and compiling ahead.
template <ElementOrStruct K, ElementOrStruct V, class Eq = equal_to>
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
/// Keys and values may be user structs (StructElement), `eq` then comparing Struct<K> values:
/// struct keys are read as unique reads structs (one a lane, tiles of kSelectTile<K>), and
/// values that are structs, or that go with struct keys, are read one at a time at their
/// keys' positions (a struct's words in one 8- or 16-byte load where its size allows) and
/// stored word by word.
///
/// `values_in` and `values_out` hold at least n = keys_in.size() values; `keys_out` may be
/// `keys_in` and `values_out` `values_in` (in place). All of the stream's device; `keys_in`
/// 16-byte aligned (8- or 16-byte struct keys aligned to their size), `values_in` too where
/// keys and values are numbers (struct values of 8 or 16 bytes aligned to their size). At
/// most kSelectMaxCount keys. Temporary storage (select_workspace_bytes<K>) comes from
/// `workspace`. Throws cutlet::Error for bad arguments.
template <ElementOrStruct K, ElementOrStruct V, class Eq = equal_to>
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
    if constexpr (Element<K> && Element<V>) detail::check_aligned(values_in.data(), name, "values input");
    else if constexpr (StructElement<V>) detail::check_tile_aligned<V>(values_in.data(), name, "values input");
  }
  detail::launch_select(unique_by_key_kernel<K, V, Eq>(), stream, keys_in, keys_out, num_selected, workspace, name,
                        values_out, values_in);
}

/// As unique_by_key, returning m to the host: waits for the stream (the one host
/// synchronization).
template <ElementOrStruct K, ElementOrStruct V, class Eq = equal_to>
  requires BinaryPredicate<Eq, K>
std::size_t unique_by_key(const Stream& stream, const Buffer<K>& keys_in, const Buffer<V>& values_in,
                          Buffer<K>& keys_out, Buffer<V>& values_out, Eq eq = {}, const Workspace& workspace = {}) {
  Buffer<std::int32_t> count(1, stream);
  unique_by_key(stream, keys_in, values_in, keys_out, values_out, count, eq, workspace);
  return static_cast<std::size_t>(count.to_host(stream)[0]);
}

}  // namespace cutlet::algorithms
