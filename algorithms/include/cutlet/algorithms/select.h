// select_if and select_flagged: stable compaction of a buffer (of numbers or of user structs)
// or of an iterator's elements by a user predicate or by flags, in one pass with decoupled
// look-back over the tiles' counts (CUB's DeviceSelect::If and DeviceSelect::Flagged).
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <tuple>
#include <vector>

#include "cutlet/algorithms/detail/call_range.h"
#include "cutlet/algorithms/detail/compaction.h"
#include "cutlet/algorithms/detail/held.h"
#include "cutlet/algorithms/detail/host_checks.h"
#include "cutlet/algorithms/detail/iterator_kernel.h"
#include "cutlet/algorithms/detail/lookback.h"
#include "cutlet/algorithms/detail/scan_layout.h"
#include "cutlet/algorithms/element.h"
#include "cutlet/algorithms/iterators.h"
#include "cutlet/algorithms/operators.h"
#include "cutlet/algorithms/workspace.h"
#include "cutlet/jit/kernel.h"
#include "cutlet/language/control.h"
#include "cutlet/language/index.h"
#include "cutlet/language/memory.h"
#include "cutlet/language/pointer.h"
#include "cutlet/runtime/buffer.h"
#include "cutlet/runtime/launch.h"
#include "cutlet/runtime/stream.h"

namespace cutlet::algorithms {

/// Threads per block of the compaction kernels (select_if, select_flagged, unique and
/// run_length_encode); one block per tile.
inline constexpr int kSelectBlock = 256;
/// 16-byte vectors each thread loads per tile, striped: vector k of thread t is the tile's
/// vector k * kSelectBlock + t. Of structs, as many structs, one a vector's place (see
/// detail::tile_lanes).
inline constexpr int kSelectVectors = 4;
/// Elements per tile of the compactions (4096 of 4 bytes, 2048 of 8; 1024 structs, 16 KiB of
/// 16-byte ones, the bytes of a tile of numbers). An iterator's elements go in the tiles of a
/// buffer of them.
template <ElementOrStruct T>
inline constexpr int kSelectTile = kSelectBlock * kSelectVectors * detail::tile_lanes<T>();
/// The most elements the compactions take (the kernels' i32 indices reach one tile past the
/// end).
inline constexpr std::int64_t kSelectMaxCount = std::numeric_limits<std::int32_t>::max() - (1 << 16);

namespace detail {

/// select_tile_body's default: nothing goes along with the kept items.
struct NoCarry {
  void operator()(const i32&, std::size_t) const {}
};

/// One tile of a compaction, in one block: the block takes the next tile (take_tile), loads
/// its items (`load(tile, tid, full)`, a TileItems<T>: load_tile_items for a buffer of
/// numbers, read_tile_items for structs and iterators), asks `selector` which to keep (a
/// vector of Value<bool>, [k * V + j], and'ed with being below n), ranks them in each warp's
/// rows from ballots, and warp 0
/// scans the tile's row counts and takes the tile's offset from the tiles before it (look-back
/// over counts packed with their flags). The kept items are then written in two phases, as
/// CUB does: each thread puts its kept items at their ranks within the tile in shared memory,
/// and the block copies the tile's kept items out with coalesced stores, thread t writing
/// items t, t + kSelectBlock, ... The last tile writes the total to num_selected[0]. For each
/// kept item, `carry(at, i)` is also called with its position in the output and its index
/// in the thread's items ([k * V + j]), to write what goes along with it (unique_by_key's
/// values). T a struct: `out` is its words, the staged items theirs side by side.
template <class T, class Load, class Selector, class Carry = NoCarry>
void select_tile_body(const Ptr<storage_t<T>>& out, const Ptr<std::int32_t>& num_selected, const i32& n,
                      const Ptr<std::uint32_t>& counter, const Ptr<std::uint64_t>& words, const Load& load,
                      const Selector& selector, const Carry& carry = {}) {
  constexpr int V = tile_lanes<T>();
  constexpr int kWarps = kSelectBlock / warp_size;
  constexpr int kRows = kSelectVectors * kWarps;
  auto rows = shared_array<std::int32_t>(kRows);
  auto row_prefix = shared_array<std::int32_t>(kRows);
  auto tile_offset = shared_array<std::int32_t>(1);
  auto tile_count = shared_array<std::int32_t>(1);
  SharedHeld<T> staged(kSelectTile<T>);
  const PackedTileStatus<std::int32_t> status{words};
  i32 tid = thread_idx().x;
  i32 lane = tid & 31;
  i32 warp = tid >> 5;

  i32 tile = take_tile(counter);
  i32 tile_end = (tile + 1) * kSelectTile<T>;
  const TileItems<T> t = load(tile, tid, tile_end <= n);
  const std::vector<Value<bool>> chosen = selector(t);
  std::vector<Value<bool>> keep;
  for (std::size_t i = 0; i < chosen.size(); ++i) keep.push_back(chosen[i] & t.valid[i]);
  const RowRanks ranks = row_ranks<kSelectVectors, V>(keep);
  if_(lane == 0, [&] {
    for (int k = 0; k < kSelectVectors; ++k) rows[k * kWarps + warp] = ranks.total[static_cast<std::size_t>(k)];
  });
  syncthreads();

  if_(warp == 0, [&] {
    i32 aggregate = scan_rows<kRows, std::int32_t>(plus{}, rows, row_prefix, i32(0));
    i32 exclusive = tile_exclusive_prefix<std::int32_t>(plus{}, status, tile, aggregate, i32(0));
    if_(lane == 0, [&] {
      tile_offset[0] = exclusive;
      tile_count[0] = aggregate;
      if_(tile_end >= n, [&] { num_selected[0] = exclusive + aggregate; });
    });
  });
  syncthreads();

  i32 offset = tile_offset[0].load();
  for (int k = 0; k < kSelectVectors; ++k) {
    i32 r = row_prefix[k * kWarps + warp] + ranks.below[static_cast<std::size_t>(k)];
    for (int j = 0; j < V; ++j) {
      const auto i = static_cast<std::size_t>(k * V + j);
      if_(keep[i], [&] {
        staged.store(r, t.items[i]);
        carry(offset + r, i);
      });
      r = r + cast<std::int32_t>(keep[i]);
    }
  }
  syncthreads();
  if constexpr (StructElement<T>) {
    for_range(tid, tile_count[0].load(), kSelectBlock, [&](i32 i) { store_held<T>(out, offset + i, staged.load(i)); });
  } else {
    Ptr<T> tile_out = out + offset;
    for_range(tid, tile_count[0].load(), kSelectBlock, [&](i32 i) { tile_out[i] = staged.load(i); });
  }
}

/// A thread's items of tile `tile` of a buffer of T (n items): load_tile_items' 16-byte
/// vectors of numbers, or read_tile_items one struct a lane (load_held: one 8- or 16-byte
/// load of its words where its size allows).
template <class T>
TileItems<T> load_buffer_tile(const Ptr<storage_t<T>>& in, const i32& n, const i32& tile, const i32& tid,
                              const Value<bool>& full) {
  if constexpr (StructElement<T>)
    return read_tile_items<kSelectBlock, kSelectVectors, 1, T>(
        [&](const i32& i) { return load_held<T>(in, cast<std::int64_t>(i)); }, n, tile, tid, full);
  else return load_tile_items<kSelectBlock, kSelectVectors>(in, n, tile, tid, full);
}

/// select_tile_body's `load` for a buffer of T (load_buffer_tile).
template <class T>
auto buffer_tiles(const Ptr<storage_t<T>>& in, const i32& n) {
  return [in, n](const i32& tile, const i32& tid, const Value<bool>& full) {
    return load_buffer_tile<T>(in, n, tile, tid, full);
  };
}

/// select_tile_body's `load` for the first n elements of iterator It (parameters `p`): read
/// one at a time (It::read, traced here) in the tiles of a buffer of them (groups of
/// kVectorLanes), a thread's reads all in flight together.
template <class It>
auto iterator_tiles(const typename It::Params& p, const i32& n) {
  using T = typename It::value_type;
  return [p, n](const i32& tile, const i32& tid, const Value<bool>& full) {
    return read_tile_items<kSelectBlock, kSelectVectors, kVectorLanes<T>, T>(
        [&](const i32& i) { return Value<T>(It::read(p, cast<std::int64_t>(i))); }, n, tile, tid, full);
  };
}

/// select_tile_body's `selector` of select_if: pred of each item.
template <class T, class Pred>
auto predicate_selector() {
  return [](const TileItems<T>& t) {
    const Pred pred{};
    std::vector<Value<bool>> chosen;
    for (const auto& x : t.items) chosen.push_back(call_pred<T>(pred, x));
    return chosen;
  };
}

/// Whether each flag of `flags` is nonzero.
template <class F>
std::vector<Value<bool>> nonzero(const std::vector<Value<F>>& flags) {
  std::vector<Value<bool>> chosen;
  for (const auto& x : flags) chosen.push_back(x != 0);
  return chosen;
}

/// Makes select_if's kernel for (T, Pred), T a number or a struct (its buffers seen as words).
template <class T, class Pred>
auto make_select_if_kernel() {
  return cutlet::kernel(
      [](Ptr<storage_t<T>> out, Ptr<std::int32_t> num_selected, Ptr<storage_t<T>> in, i32 n,
         Ptr<std::uint32_t> counter, Ptr<std::uint64_t> words) {
        select_tile_body<T>(out, num_selected, n, counter, words, buffer_tiles<T>(in, n),
                            predicate_selector<T, Pred>());
      },
      {.name = std::string("cutlet_select_if_") + held_name<T>()});
}

/// Makes select_flagged's kernel for items of T (a number or a struct) and flags of F.
template <class T, class F>
auto make_select_flagged_kernel() {
  return cutlet::kernel(
      [](Ptr<storage_t<T>> out, Ptr<std::int32_t> num_selected, Ptr<storage_t<T>> in, i32 n,
         Ptr<std::uint32_t> counter, Ptr<std::uint64_t> words, Ptr<F> flags) {
        select_tile_body<T>(out, num_selected, n, counter, words, buffer_tiles<T>(in, n), [&](const TileItems<T>& t) {
          // The flags of the same positions, loaded the same way (one a lane beside structs).
          return nonzero(
              load_striped<kSelectBlock, kSelectVectors, tile_lanes<T>()>(flags, n, t.tile_vector, t.tid, t.full));
        });
      },
      {.name = std::string("cutlet_select_flagged_") + held_name<T>() + "_" + element_name<F>()});
}

/// Makes select_if's kernel over iterator It for Pred: (out, num_selected, n, counter, words,
/// It's parameters...).
template <class It, class Pred>
auto make_select_if_iterator_kernel() {
  using T = typename It::value_type;
  return with_params<typename It::Params>([]<class... P>() {
    return cutlet::kernel(
        [](Ptr<T> out, Ptr<std::int32_t> num_selected, i32 n, Ptr<std::uint32_t> counter, Ptr<std::uint64_t> words,
           P... p) {
          select_tile_body<T>(out, num_selected, n, counter, words, iterator_tiles<It>(typename It::Params{p...}, n),
                              predicate_selector<T, Pred>());
        },
        {.name = std::string("cutlet_select_if_iterator_") + element_name<T>()});
  });
}

/// Makes select_flagged's kernel over iterator It with flags from iterator Flags: (out,
/// num_selected, n, counter, words, It's parameters..., Flags' parameters...). The flags are
/// read one at a time at the items' positions.
template <class It, class Flags>
auto make_select_flagged_iterator_kernel() {
  using T = typename It::value_type;
  using F = typename Flags::value_type;
  using Params = tuple_cat_t<typename It::Params, typename Flags::Params>;
  return with_params<Params>([]<class... P>() {
    return cutlet::kernel(
        [](Ptr<T> out, Ptr<std::int32_t> num_selected, i32 n, Ptr<std::uint32_t> counter, Ptr<std::uint64_t> words,
           P... p) {
          constexpr std::size_t kItemParams = std::tuple_size_v<typename It::Params>;
          const Params all{p...};
          const auto items = tuple_slice<0, kItemParams>(all);
          const auto flags = tuple_slice<kItemParams, std::tuple_size_v<typename Flags::Params>>(all);
          select_tile_body<T>(out, num_selected, n, counter, words, iterator_tiles<It>(items, n),
                              [&](const TileItems<T>& t) {
                                return nonzero(read_at_items<F, kVectorLanes<T>>(
                                    [&](const i32& i) { return Value<F>(Flags::read(flags, cast<std::int64_t>(i))); },
                                    t));
                              });
        },
        {.name = std::string("cutlet_select_flagged_iterator_") + element_name<T>() + "_" + element_name<F>()});
  });
}

/// Throws Error unless a buffer of T at `address` suits the compactions' loads of it: 16-byte
/// aligned for numbers (16-byte vectors); for a struct of 8 or 16 bytes, aligned to its size
/// (load_held reads its words in one vector access; other structs a word at a time).
template <class T>
void check_tile_aligned(std::uint64_t address, const char* algorithm, const char* which) {
  if constexpr (StructElement<T>) {
    constexpr std::size_t kWords = storage_words<T>();
    if constexpr (kWords == 2 || kWords == 4) check_aligned(address, sizeof(T), algorithm, which);
  } else {
    check_aligned(address, algorithm, which);
  }
}

/// The checks of a compaction's one-element `count` and its `out` for `items` items: for no
/// items sets count[0] to 0 and returns no tiles; otherwise returns the tile count for tiles
/// of `tile` elements.
template <class T>
long long compaction_output_tiles(const Stream& stream, std::size_t items, const Buffer<T>& out,
                                  const Buffer<std::int32_t>& count, int tile, const char* algorithm,
                                  const char* count_name) {
  const std::int32_t n = checked_count(items, kSelectMaxCount, algorithm);
  check_size(count.size(), 1, algorithm, count_name);
  check_device(count.device(), stream, algorithm, count_name);
  if (n == 0) {
    zero_bytes(stream, count.data(), sizeof(std::int32_t));
    return 0;
  }
  check_size(out.size(), static_cast<std::size_t>(n), algorithm, "output");
  check_device(out.device(), stream, algorithm, "output");
  return ceil_div(n, tile);
}

/// What every compaction launch does first: checks `in`, `out` (n elements) and the one-element
/// `count`, and for n == 0 sets count[0] to 0 and returns no tiles. Otherwise returns the
/// tile count for tiles of `tile` elements.
template <class T>
long long compaction_tiles(const Stream& stream, const Buffer<T>& in, const Buffer<T>& out,
                           const Buffer<std::int32_t>& count, int tile, const char* algorithm, const char* count_name) {
  const long long tiles = compaction_output_tiles(stream, in.size(), out, count, tile, algorithm, count_name);
  if (tiles == 0) return 0;
  check_device(in.device(), stream, algorithm, "input");
  check_tile_aligned<T>(in.data(), algorithm, "input");
  return tiles;
}

/// The tile counter and packed status words of a compaction over `tiles` tiles, zeroed on
/// `stream`, in memory from `workspace` (kept alive by `scratch`).
struct PackedLookback {
  Scratch scratch;
  Buffer<std::uint32_t> counter;
  Buffer<std::uint64_t> words;
};
inline PackedLookback packed_lookback(const Stream& stream, const Workspace& workspace, long long tiles,
                                      const char* algorithm) {
  const PackedScanLayout layout = packed_scan_layout(tiles);
  Scratch scratch = acquire(workspace, stream, layout.total_bytes, algorithm);
  zero_bytes(stream, scratch.address(), layout.total_bytes);
  const Device device = stream.device();
  const std::uint64_t base = scratch.address();
  return PackedLookback{std::move(scratch), Buffer<std::uint32_t>::wrap(base + layout.counter, 1, device),
                        Buffer<std::uint64_t>::wrap(base + layout.words, static_cast<std::size_t>(tiles), device)};
}

/// Queues a kernel made by select_tile_body: (out, num_selected, in, n, counter, words,
/// extra...), the buffers of structs as their words (storage_view).
template <class T, class Kernel, class... Extra>
void launch_select(Kernel& kernel, const Stream& stream, const Buffer<T>& in, Buffer<T>& out,
                   Buffer<std::int32_t>& num_selected, const Workspace& workspace, const char* algorithm,
                   const Extra&... extra) {
  const auto range = call_range<T>(algorithm);
  const long long tiles = compaction_tiles(stream, in, out, num_selected, kSelectTile<T>, algorithm, "count");
  if (tiles == 0) return;
  PackedLookback lb = packed_lookback(stream, workspace, tiles, algorithm);
  kernel.launch(stream, {.grid = tiles, .block = kSelectBlock}, storage_view(out), num_selected, storage_view(in),
                static_cast<std::int32_t>(in.size()), lb.counter, lb.words, storage_view(extra)...);
}

/// Queues a compaction kernel over iterators (make_select_if_iterator_kernel's): (out,
/// num_selected, n, counter, words, the parameters of each iterator of `its`, a tuple).
template <class T, class Kernel, class Iterators>
void launch_select_over(Kernel& kernel, const Stream& stream, const Iterators& its, std::size_t items,
                        Buffer<T>& out, Buffer<std::int32_t>& num_selected, const Workspace& workspace,
                        const char* algorithm) {
  const auto range = call_range<T>(algorithm);
  const long long tiles =
      compaction_output_tiles(stream, items, out, num_selected, kSelectTile<T>, algorithm, "count");
  if (tiles == 0) return;
  PackedLookback lb = packed_lookback(stream, workspace, tiles, algorithm);
  launch_over(kernel, stream, {.grid = tiles, .block = kSelectBlock}, its, out, num_selected,
              static_cast<std::int32_t>(items), lb.counter, lb.words);
}

}  // namespace detail

/// The kernel of select_if for element type T (a number or a StructElement) and predicate
/// type Pred (made at the first use, then shared), for inspection and compiling ahead.
template <ElementOrStruct T, class Pred>
  requires UnaryPredicate<Pred, T>
auto& select_if_kernel() {
  static auto k = detail::make_select_if_kernel<T, Pred>();
  return k;
}

/// The kernel of select_flagged for items of T (a number or a StructElement) and flags of F.
template <ElementOrStruct T, Flag F>
auto& select_flagged_kernel() {
  static auto k = detail::make_select_flagged_kernel<T, F>();
  return k;
}

/// Bytes of temporary storage select_if, select_flagged and unique need for `n` elements of T
/// (for Workspace::borrow): a tile counter and a u64 status word per tile of kSelectTile<T>.
/// T is the element type of a buffer of numbers or structs, or of an iterator.
template <ElementOrStruct T>
std::size_t select_workspace_bytes(std::size_t n) {
  if (n == 0) return 0;
  return detail::packed_scan_layout(static_cast<std::int64_t>((n + kSelectTile<T> - 1) / kSelectTile<T>)).total_bytes;
}

/// Copies the items x of `in` (n = in.size()) for which pred(x) is true to out[0, m), in their
/// order (stable), and sets num_selected[0] = m; out[m, n) is left alone. Queued on `stream`
/// in one kernel launch (after a memset of the tile status), without host synchronization.
///
/// One pass: each block takes a tile of kSelectTile<T> items (16-byte loads), ranks its kept
/// items with warp ballots, and takes the tile's output offset from the counts of the tiles
/// before it by decoupled look-back; a warp's kept items are stored contiguously.
///
/// T may be a user struct (a StructElement), `pred` then taking a Struct<T>:
///
///     struct Hit { float x, y, energy; };
///     algorithms::select_if(stream, hits, out, count, [](Struct<Hit> h) { return h[&Hit::energy] > 2.0f; });
///
/// A struct is a whole number of 32-bit words (12 or 24 bytes do not split into 16-byte
/// vectors), so each thread reads kSelectVectors structs, one a lane, warp-striped (a warp's
/// loads cover 32 consecutive structs), its words in one 8- or 16-byte load for structs of 8
/// or 16 bytes and a word at a time otherwise; the kept structs are staged in shared memory
/// as their words and stored to `out` with coalesced stores, as numbers are.
///
/// `out` holds at least n elements (any m may come) and may be `in` (compaction in place);
/// `num_selected` holds at least one. All are of the stream's device, `in` 16-byte aligned
/// (a buffer of 8- or 16-byte structs aligned to their size). At most kSelectMaxCount
/// elements. Temporary storage (select_workspace_bytes) comes from `workspace`. Throws
/// cutlet::Error for bad arguments.
template <ElementOrStruct T, class Pred>
  requires UnaryPredicate<Pred, T>
void select_if(const Stream& stream, const Buffer<T>& in, Buffer<T>& out, Buffer<std::int32_t>& num_selected,
               Pred pred, const Workspace& workspace = {}) {
  detail::launch_select(select_if_kernel<T, Pred>(), stream, in, out, num_selected, workspace, "select_if");
}

/// As select_if, returning m to the host: waits for the stream (the one host
/// synchronization), with the count from the stream's device default pool.
template <ElementOrStruct T, class Pred>
  requires UnaryPredicate<Pred, T>
std::size_t select_if(const Stream& stream, const Buffer<T>& in, Buffer<T>& out, Pred pred,
                      const Workspace& workspace = {}) {
  Buffer<std::int32_t> count(1, stream);
  select_if(stream, in, out, count, pred, workspace);
  return static_cast<std::size_t>(count.to_host(stream)[0]);
}

/// As select_if, keeping in[i] where flags[i] != 0: `flags` holds at least n flags of F
/// (std::uint8_t, as arrays of bool are stored, or any Element), is of the stream's device
/// and 16-byte aligned (with items of a struct type, read one a lane beside them, any
/// address). `out` may be `in`.
template <ElementOrStruct T, Flag F>
void select_flagged(const Stream& stream, const Buffer<T>& in, const Buffer<F>& flags, Buffer<T>& out,
                    Buffer<std::int32_t>& num_selected, const Workspace& workspace = {}) {
  if (!in.empty()) {
    detail::check_size(flags.size(), in.size(), "select_flagged", "flags");
    detail::check_device(flags.device(), stream, "select_flagged", "flags");
    if constexpr (Element<T>) detail::check_aligned(flags.data(), "select_flagged", "flags");
  }
  detail::launch_select(select_flagged_kernel<T, F>(), stream, in, out, num_selected, workspace, "select_flagged",
                        flags);
}

/// As select_flagged, returning the number kept to the host (waits for the stream).
template <ElementOrStruct T, Flag F>
std::size_t select_flagged(const Stream& stream, const Buffer<T>& in, const Buffer<F>& flags, Buffer<T>& out,
                           const Workspace& workspace = {}) {
  Buffer<std::int32_t> count(1, stream);
  select_flagged(stream, in, flags, out, count, workspace);
  return static_cast<std::size_t>(count.to_host(stream)[0]);
}

/// The kernel of select_if over iterator It with predicate Pred (made at the first use, then
/// shared).
template <InputIterator It, class Pred>
  requires UnaryPredicate<Pred, typename It::value_type>
auto& select_if_iterator_kernel() {
  static auto k = detail::make_select_if_iterator_kernel<It, Pred>();
  return k;
}

/// Copies the elements x of the first n of iterator `in` (a counting_iterator, a
/// transform_iterator of buffers, ...; see iterators.h) for which pred(x) is true to out[0,
/// m), in order, and sets num_selected[0] = m; out[m, n) is left alone. The iterator's reads
/// are traced into the kernel: no buffer of its elements is made (select the values of a
/// function of an index, of a zip of buffers, ...). As select_if over a Buffer otherwise (one
/// launch, the same tiles of kSelectTile<T> elements, look-back and coalesced stores, the
/// same workspace: select_workspace_bytes<T>), but each thread reads its elements one at a
/// time through the iterator, all of them in flight together, in the tile layout of a buffer
/// (groups of 16 bytes' worth, striped), and there is no alignment requirement. `out` (at
/// least n elements, of the stream's device) must not be a buffer the iterator reads; the
/// buffers the iterator reads must be of the stream's device. At most kSelectMaxCount
/// elements. Throws cutlet::Error for bad arguments.
template <InputIterator It, class Pred>
  requires UnaryPredicate<Pred, typename It::value_type>
void select_if(const Stream& stream, const It& in, std::size_t n, Buffer<typename It::value_type>& out,
               Buffer<std::int32_t>& num_selected, Pred pred, const Workspace& workspace = {}) {
  detail::launch_select_over(select_if_iterator_kernel<It, Pred>(), stream, std::tie(in), n, out, num_selected,
                             workspace, "select_if");
}

/// As select_if over an iterator, returning m to the host (waits for the stream).
template <InputIterator It, class Pred>
  requires UnaryPredicate<Pred, typename It::value_type>
std::size_t select_if(const Stream& stream, const It& in, std::size_t n, Buffer<typename It::value_type>& out,
                      Pred pred, const Workspace& workspace = {}) {
  Buffer<std::int32_t> count(1, stream);
  select_if(stream, in, n, out, count, pred, workspace);
  return static_cast<std::size_t>(count.to_host(stream)[0]);
}

/// The flags select_flagged over an iterator takes: a Buffer of a Flag type, or an
/// InputIterator whose elements are of one.
template <class X>
concept FlagSource = InputIterator<iterator_of_t<X>> && Flag<typename iterator_of_t<X>::value_type>;

/// The kernel of select_flagged over iterator It with flags from iterator Flags (made at the
/// first use, then shared).
template <InputIterator It, InputIterator Flags>
  requires Flag<typename Flags::value_type>
auto& select_flagged_iterator_kernel() {
  static auto k = detail::make_select_flagged_iterator_kernel<It, Flags>();
  return k;
}

/// As select_if over an iterator, keeping element i of the first n of iterator `in` where
/// flags[i] != 0: `flags` is a Buffer of at least n flags (of any Flag type, of the stream's
/// device; no alignment requirement) or an iterator of them (a transform_iterator computing
/// each flag, ...), read one at a time at the items' positions. `out` must not be a buffer
/// either reads.
template <InputIterator It, FlagSource Flags>
void select_flagged(const Stream& stream, const It& in, std::size_t n, const Flags& flags,
                    Buffer<typename It::value_type>& out, Buffer<std::int32_t>& num_selected,
                    const Workspace& workspace = {}) {
  using FlagIt = iterator_of_t<Flags>;
  if constexpr (detail::is_buffer_arg<Flags>::value) {
    if (n > 0) {
      detail::check_size(flags.size(), n, "select_flagged", "flags");
      detail::check_device(flags.device(), stream, "select_flagged", "flags");
    }
  }
  const FlagIt flag_it = as_iterator(flags);
  detail::launch_select_over(select_flagged_iterator_kernel<It, FlagIt>(), stream, std::tie(in, flag_it), n, out,
                             num_selected, workspace, "select_flagged");
}

/// As select_flagged over an iterator, returning the number kept to the host (waits for the
/// stream).
template <InputIterator It, FlagSource Flags>
std::size_t select_flagged(const Stream& stream, const It& in, std::size_t n, const Flags& flags,
                           Buffer<typename It::value_type>& out, const Workspace& workspace = {}) {
  Buffer<std::int32_t> count(1, stream);
  select_flagged(stream, in, n, flags, out, count, workspace);
  return static_cast<std::size_t>(count.to_host(stream)[0]);
}

}  // namespace cutlet::algorithms
