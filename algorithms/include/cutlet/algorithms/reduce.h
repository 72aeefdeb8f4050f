// reduce: the reduction of a buffer with a user operator, in two deterministic passes.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <tuple>
#include <vector>

#include "cutlet/algorithms/detail/call_range.h"
#include "cutlet/algorithms/detail/held.h"
#include "cutlet/algorithms/detail/host_checks.h"
#include "cutlet/algorithms/detail/iterator_kernel.h"
#include "cutlet/algorithms/detail/launch_shape.h"
#include "cutlet/algorithms/detail/maybe.h"
#include "cutlet/algorithms/detail/tree.h"
#include "cutlet/algorithms/detail/warp_block.h"
#include "cutlet/algorithms/element.h"
#include "cutlet/algorithms/iterators.h"
#include "cutlet/algorithms/workspace.h"
#include "cutlet/jit/kernel.h"
#include "cutlet/language/control.h"
#include "cutlet/language/index.h"
#include "cutlet/language/memory.h"
#include "cutlet/language/pointer.h"
#include "cutlet/runtime/buffer.h"
#include "cutlet/runtime/stream.h"

namespace cutlet::algorithms {

/// Threads per block of both reduce kernels.
inline constexpr int kReduceBlock = 256;
/// 16-byte vectors each thread of the first pass loads per tile (all before combining any).
inline constexpr int kReduceUnroll = 4;
/// Blocks per SM of the first pass (a full SM of 2048 threads).
inline constexpr int kReduceBlocksPerSm = 8;
/// Elements each thread of the first pass reads from an iterator per tile (all before
/// combining any).
inline constexpr int kReduceIteratorItems = 8;
/// The most elements reduce takes.
inline constexpr std::int64_t kReduceMaxCount = std::int64_t{1} << 40;
/// Elements one launch of reduce's first pass takes (its kernel counts them in 32 bits):
/// larger inputs go in chunks of this many, each launch writing its blocks' partials after
/// the last one's.
inline constexpr std::int64_t kReduceChunk = std::int64_t{1} << 30;

namespace detail {

/// The first pass: block b reduces its share of in[0, n) into partials[b]. The input is read
/// in tiles of kReduceBlock * kReduceUnroll 16-byte vectors (thread t loads vectors t,
/// t + kReduceBlock, ... of a tile, coalesced), tiles going to blocks block-cyclically (a
/// grid-stride loop); then the partial last tile with bounds checks, and the n % lanes last
/// elements one per thread of block 0. Each block must get at least one element (see
/// reduce_grid).
template <class T, class Op>
void reduce_partials_body(const Ptr<T>& partials, const Ptr<T>& in, const i32& n) {
  const Op op{};
  constexpr int V = kVectorLanes<T>;
  constexpr int kTile = kReduceBlock * kReduceUnroll;  // vectors per tile
  i32 tid = thread_idx().x;
  i32 vectors = n / V;
  Var<T> acc;
  Var<bool> has = false;
  auto add = [&](const Value<T>& s) {
    acc = select(has.get(), call_op<T>(op, acc.get(), s), s);
    has = true;
  };
  auto lanes_of = [&](const Vec<T, V>& v, std::vector<Value<T>>& out) {
    for (int j = 0; j < V; ++j) out.push_back(v[j]);
  };

  i32 full_tiles = vectors / kTile;
  for_range(block_idx().x, full_tiles, grid_dim().x, [&](i32 t) {
    Ptr<T> first = in + (t * kTile + tid) * V;  // this thread's first vector; constant offsets after
    std::vector<Vec<T, V>> loaded;
    for (int k = 0; k < kReduceUnroll; ++k) loaded.push_back(first.template vload<V>(k * kReduceBlock));
    std::vector<Value<T>> values;
    for (const auto& v : loaded) lanes_of(v, values);
    add(tree_reduce<T>(op, values));
  });
  i32 partial = full_tiles * kTile;
  if_((partial < vectors) & (block_idx().x == full_tiles % grid_dim().x), [&] {
    for (int k = 0; k < kReduceUnroll; ++k) {
      i32 i = partial + tid + k * kReduceBlock;
      if_(i < vectors, [&] {
        std::vector<Value<T>> values;
        lanes_of(in.template vload<V>(i), values);
        add(tree_reduce<T>(op, values));
      });
    }
  });
  i32 tail = vectors * V + block_idx().x * kReduceBlock + tid;
  if_(tail < n, [&] { add(in[tail].load()); });

  Maybe<T> total = block_reduce<kReduceBlock, T>(op, Maybe<T>{acc.get(), has.get()});
  if_(tid == 0, [&] { partials[block_idx().x] = total.value; });
}

/// The second pass, one block: out[0] = init op (partials[0] op ... op partials[count - 1]),
/// or init when count is 0 (T a struct: its words).
template <class T, class Op>
void reduce_final_body(const Ptr<storage_t<T>>& out, const Ptr<storage_t<T>>& partials, const i32& count,
                       const param_t<T>& init) {
  const Op op{};
  i32 tid = thread_idx().x;
  HeldVar<T> acc;
  Var<bool> has = false;
  for_range(tid, count, kReduceBlock, [&](i32 i) {
    held_t<T> p = load_held<T>(partials, i);
    acc = select(has.get(), call_op<T>(op, acc.get(), p), p);
    has = true;
  });
  Maybe<T> total = block_reduce<kReduceBlock, T>(op, Maybe<T>{acc.get(), has.get()});
  if_(tid == 0, [&] { store_held<T>(out, 0, select(total.present, call_op<T>(op, init, total.value), init)); });
}

/// The first pass over an iterator: as reduce_partials_body, over elements base + [0, n) of
/// iterator It (parameters `p`), read one at a time: tiles of kReduceBlock *
/// kReduceIteratorItems elements (thread t reads t, t + kReduceBlock, ... of a tile), tiles
/// to blocks block-cyclically, then the partial last tile with bounds checks. Each block must
/// get at least one element (see reduce_iterator_grid).
template <class T, class Op, class It>
void reduce_iterator_partials_body(const Ptr<storage_t<T>>& partials, const typename It::Params& p, const i64& base,
                                   const i32& n) {
  const Op op{};
  constexpr int kTile = kReduceBlock * kReduceIteratorItems;
  i32 tid = thread_idx().x;
  HeldVar<T> acc;
  Var<bool> has = false;
  auto add = [&](const held_t<T>& s) {
    acc = select(has.get(), call_op<T>(op, acc.get(), s), s);
    has = true;
  };
  auto item = [&](const i32& i) { return held_t<T>(It::read(p, base + cast<std::int64_t>(i))); };
  i32 full_tiles = n / kTile;
  for_range(block_idx().x, full_tiles, grid_dim().x, [&](i32 t) {
    i32 first = t * kTile + tid;
    std::vector<held_t<T>> values;
    for (int u = 0; u < kReduceIteratorItems; ++u) values.push_back(item(first + u * kReduceBlock));
    add(tree_reduce<T>(op, values));
  });
  i32 partial = full_tiles * kTile;
  if_((partial < n) & (block_idx().x == full_tiles % grid_dim().x), [&] {
    for (int u = 0; u < kReduceIteratorItems; ++u) {
      i32 i = partial + tid + u * kReduceBlock;
      if_(i < n, [&] { add(item(i)); });
    }
  });
  Maybe<T> total = block_reduce<kReduceBlock, T>(op, Maybe<T>{acc.get(), has.get()});
  if_(tid == 0, [&] { store_held<T>(partials, block_idx().x, total.value); });
}

/// Makes reduce's first-pass kernel over iterator It for (T, Op): (partials, base, n,
/// It's parameters...).
template <class T, class Op, class It>
auto make_reduce_iterator_partials_kernel() {
  return with_params<typename It::Params>([]<class... P>() {
    return cutlet::kernel(
        [](Ptr<storage_t<T>> partials, i64 base, i32 n, P... p) {
          reduce_iterator_partials_body<T, Op, It>(partials, typename It::Params{p...}, base, n);
        },
        {.name = std::string("cutlet_reduce_partials_iterator_") + held_name<T>()});
  });
}

/// Makes reduce's first-pass kernel for (T, Op).
template <class T, class Op>
auto make_reduce_partials_kernel() {
  return cutlet::kernel([](Ptr<T> partials, Ptr<T> in, i32 n) { reduce_partials_body<T, Op>(partials, in, n); },
                        {.name = std::string("cutlet_reduce_partials_") + element_name<T>()});
}
/// Makes reduce's second-pass kernel for (T, Op).
template <class T, class Op>
auto make_reduce_final_kernel() {
  return cutlet::kernel([](Ptr<storage_t<T>> out, Ptr<storage_t<T>> partials, i32 count,
                           param_t<T> init) { reduce_final_body<T, Op>(out, partials, count, init); },
                        {.name = std::string("cutlet_reduce_final_") + held_name<T>()});
}

/// The two kernels of reduce for (T, Op), built once per process (the first call) and
/// specialized per device by Kernel's cache.
template <class T, class Op>
struct ReduceKernels {
  decltype(make_reduce_partials_kernel<T, Op>()) partials = make_reduce_partials_kernel<T, Op>();
  decltype(make_reduce_final_kernel<T, Op>()) final_pass = make_reduce_final_kernel<T, Op>();
};

/// Blocks of reduce's first pass for n > 0 elements of T on `device`: at most
/// kReduceBlocksPerSm per SM and at most one per (possibly partial) tile, so that every block
/// gets at least one element.
template <class T>
int reduce_grid(const Device& device, std::int64_t n) {
  const std::int64_t vectors = n / kVectorLanes<T>;
  if (vectors == 0) return 1;
  return streaming_grid(device, vectors, std::int64_t{kReduceBlock} * kReduceUnroll, kReduceBlocksPerSm);
}

/// Blocks of reduce's first pass over n > 0 elements of an iterator on `device`: at most
/// kReduceBlocksPerSm per SM and at most one per (possibly partial) tile.
inline int reduce_iterator_grid(const Device& device, std::int64_t n) {
  return streaming_grid(device, n, std::int64_t{kReduceBlock} * kReduceIteratorItems, kReduceBlocksPerSm);
}

}  // namespace detail

/// The kernels reduce launches for element type T and operator type Op (made at the first
/// use, then shared by every call): `.partials` (the first pass) and `.final_pass`. For
/// inspection (their PTX and resources through compile()) and compiling ahead (compile_for).
template <Element T, class Op>
  requires BinaryOperator<Op, T>
detail::ReduceKernels<T, Op>& reduce_kernels() {
  static detail::ReduceKernels<T, Op> kernels;
  return kernels;
}

namespace detail {

/// The first-pass launches of a reduce over n elements: one per chunk of kReduceChunk
/// elements, the last one the rest, each block writing one partial after those of the chunks
/// before. A chunk's grid depends on its size alone, so a whole chunk's and the last partial
/// chunk's are worked out once, for the workspace's size and for the launches alike.
struct ReduceChunks {
  std::int64_t n = 0;
  int whole_grid = 0;  ///< blocks of a chunk of kReduceChunk elements (0 when there is none)
  int last_grid = 0;   ///< blocks of the last chunk when it is partial (0 when there is none)

  /// grid_of(count): the blocks of a launch over `count` elements.
  template <class GridOf>
  ReduceChunks(std::int64_t elements, const GridOf& grid_of) : n(elements) {
    if (n >= kReduceChunk) whole_grid = grid_of(kReduceChunk);
    if (n % kReduceChunk != 0) last_grid = grid_of(n % kReduceChunk);
  }
  /// Elements of the chunk that starts at element `at`.
  std::int32_t count_at(std::int64_t at) const { return static_cast<std::int32_t>(std::min(kReduceChunk, n - at)); }
  /// Blocks of the chunk that starts at element `at`.
  int grid_at(std::int64_t at) const { return n - at >= kReduceChunk ? whole_grid : last_grid; }
  /// Partials all the chunks write.
  std::int64_t blocks() const { return n / kReduceChunk * whole_grid + last_grid; }
  /// Partial slots of the workspace: one per block, at least one (n == 0 writes none).
  std::size_t slots() const { return static_cast<std::size_t>(std::max<std::int64_t>(blocks(), 1)); }
};

/// The chunks of reduce's first pass over `n` elements of T on `device`.
template <class T>
ReduceChunks reduce_chunks(const Device& device, std::int64_t n) {
  return ReduceChunks(n, [&](std::int64_t count) { return reduce_grid<T>(device, count); });
}

/// The chunks of reduce's first pass over `n` elements of an iterator on `device`.
inline ReduceChunks reduce_iterator_chunks(const Device& device, std::int64_t n) {
  return ReduceChunks(n, [&](std::int64_t count) { return reduce_iterator_grid(device, count); });
}

}  // namespace detail

/// Bytes of temporary storage reduce needs on `device` for `n` elements of T (for
/// Workspace::borrow): one T per block of the first pass.
template <Element T>
std::size_t reduce_workspace_bytes(const Device& device, std::size_t n) {
  return detail::reduce_chunks<T>(device, static_cast<std::int64_t>(n)).slots() * sizeof(T);
}

/// out[0] = init op x[0] op x[1] op ... op x[n-1], for the n = in.size() elements of `in`,
/// queued on `stream` (no host synchronization); out[0] = init when `in` is empty.
///
/// `op` must be associative and commutative: the elements are combined in an order and a
/// grouping of the algorithm's choosing. The first pass has a fixed grid (a function of n and
/// the device's SM count); each block combines its elements, then its threads' and warps'
/// results in a fixed order, and writes one partial; a second one-block pass combines the
/// partials in a fixed order. No floating-point atomics: for a given device, n and input the
/// result is the same, bit for bit, on every run (for floats it may differ from a sequential
/// sum by rounding, and between devices of different SM counts). Inputs of more than
/// kReduceChunk elements take one first-pass launch per chunk.
///
/// `in` and `out` (at least one element) must be of the stream's device, `in` 16-byte aligned
/// (every Buffer cutlet allocates is). At most kReduceMaxCount elements. Temporary storage
/// (reduce_workspace_bytes) comes from `workspace`. Throws cutlet::Error for bad arguments.
template <Element T, class Op>
  requires BinaryOperator<Op, T>
void reduce(const Stream& stream, const Buffer<T>& in, Buffer<T>& out, Op op, T init,
            const Workspace& workspace = {}) {
  const auto range = detail::call_range<T>("reduce");
  detail::check_count(in.size(), kReduceMaxCount, "reduce");
  const auto n = static_cast<std::int64_t>(in.size());
  detail::check_size(out.size(), 1, "reduce", "output");
  detail::check_device(out.device(), stream, "reduce", "output");
  if (n > 0) {
    detail::check_device(in.device(), stream, "reduce", "input");
    detail::check_aligned(in.data(), "reduce", "input");
  }
  const Device device = stream.device();
  const detail::ReduceChunks chunks = detail::reduce_chunks<T>(device, n);
  detail::Scratch scratch = detail::acquire(workspace, stream, chunks.slots() * sizeof(T), "reduce");
  auto& kernels = reduce_kernels<T, Op>();
  // Chunks of kReduceChunk elements (whole 16-byte vectors: the next chunk stays aligned),
  // each block's partial after the blocks of the chunks before.
  std::int64_t written = 0;
  for (std::int64_t at = 0; at < n; at += kReduceChunk) {
    const std::int32_t count = chunks.count_at(at);
    const int grid = chunks.grid_at(at);
    const Buffer<T> chunk = Buffer<T>::wrap(in.data() + static_cast<std::uint64_t>(at) * sizeof(T),
                                            static_cast<std::size_t>(count), device);
    const Buffer<T> partials = Buffer<T>::wrap(scratch.address() + static_cast<std::uint64_t>(written) * sizeof(T),
                                               static_cast<std::size_t>(grid), device);
    kernels.partials.launch(stream, {.grid = grid, .block = kReduceBlock}, partials, chunk, count);
    written += grid;
  }
  const Buffer<T> partials = Buffer<T>::wrap(scratch.address(), chunks.slots(), device);
  kernels.final_pass.launch(stream, {.grid = 1, .block = kReduceBlock}, out, partials,
                            static_cast<std::int32_t>(written), init);
}

/// As reduce, returning the result to the host: waits for the stream (the one host
/// synchronization), with the one-element output from the stream's device default pool.
template <Element T, class Op>
  requires BinaryOperator<Op, T>
T reduce_value(const Stream& stream, const Buffer<T>& in, Op op, T init, const Workspace& workspace = {}) {
  Buffer<T> out(1, stream);
  reduce(stream, in, out, op, init, workspace);
  return out.to_host(stream)[0];
}

namespace detail {

/// reduce's second-pass kernel for (T, Op): reduce_kernels' for an Element, its own (made at
/// the first use) for a struct, whose first pass is always over an iterator.
template <class T, class Op>
auto& reduce_final_kernel() {
  if constexpr (Element<T>) {
    return algorithms::reduce_kernels<T, Op>().final_pass;
  } else {
    static auto k = make_reduce_final_kernel<T, Op>();
    return k;
  }
}

/// Reduce over the first n elements of iterator `in` (checked by the caller) with the
/// iterator first pass `partials_kernel`: one first-pass launch per chunk of kReduceChunk
/// elements, each block's partial after the blocks of the chunks before, then the final pass
/// into out[0]. T a struct: the partials and the output are seen as words.
template <class T, class Op, class Kernel, class It>
void reduce_over(const Stream& stream, Kernel& partials_kernel, const It& in, std::size_t n, Buffer<T>& out,
                 const T& init, const Workspace& workspace) {
  using W = storage_t<T>;
  constexpr std::size_t kWords = storage_words<T>();
  detail::check_size(out.size(), 1, "reduce", "output");
  detail::check_device(out.device(), stream, "reduce", "output");
  const Device device = stream.device();
  const ReduceChunks chunks = reduce_iterator_chunks(device, static_cast<std::int64_t>(n));
  Scratch scratch = acquire(workspace, stream, chunks.slots() * sizeof(T), "reduce");
  std::int64_t written = 0;
  for (std::int64_t at = 0; at < static_cast<std::int64_t>(n); at += kReduceChunk) {
    const std::int32_t count = chunks.count_at(at);
    const int grid = chunks.grid_at(at);
    const Buffer<W> partials = Buffer<W>::wrap(scratch.address() + static_cast<std::uint64_t>(written) * sizeof(T),
                                               static_cast<std::size_t>(grid) * kWords, device);
    launch_over(partials_kernel, stream, {.grid = grid, .block = kReduceBlock}, std::tie(in), partials, at, count);
    written += grid;
  }
  const Buffer<W> partials = Buffer<W>::wrap(scratch.address(), chunks.slots() * kWords, device);
  const Buffer<W> result = Buffer<W>::wrap(out.data(), kWords, device);
  reduce_final_kernel<T, Op>().launch(stream, {.grid = 1, .block = kReduceBlock}, result, partials,
                                      static_cast<std::int32_t>(written), init);
}

}  // namespace detail

/// The first-pass kernel of reduce over the structs of a buffer with operator Op (made at
/// the first use, then shared).
template <StructElement S, class Op>
  requires BinaryOperator<Op, S>
auto& reduce_struct_kernel() {
  static auto k = detail::make_reduce_iterator_partials_kernel<S, Op, StructBufferIterator<S>>();
  return k;
}

/// Bytes of temporary storage reduce over an iterator, or over a buffer of structs, needs on
/// `device` for `n` elements of T: one T per block of the first pass.
template <ElementOrStruct T>
std::size_t reduce_iterator_workspace_bytes(const Device& device, std::size_t n) {
  return detail::reduce_iterator_chunks(device, static_cast<std::int64_t>(n)).slots() * sizeof(T);
}

/// out[0] = init op in[0] op ... op in[n-1] over a buffer of user structs (a StructElement:
/// a struct of scalars whose size is a whole number of 32-bit words), `op` taking and
/// returning Struct<S> values:
///
///     struct Stats { float lo, hi, sum; };
///     auto op = [](Struct<Stats> a, Struct<Stats> b) {
///       return a.with(&Stats::lo, min(a[&Stats::lo], b[&Stats::lo]))
///           .with(&Stats::hi, max(a[&Stats::hi], b[&Stats::hi]))
///           .with(&Stats::sum, a[&Stats::sum] + b[&Stats::sum]);
///     };
///     algorithms::reduce(stream, stats, out, op, Stats{inf, -inf, 0.0f});
///
/// The rules of reduce over a buffer hold (op associative and commutative, the same bits on
/// every run, queued on `stream`, out[0] = init for an empty input), the elements read one
/// struct a thread at a time (its words in one 8- or 16-byte load for structs of 8 or 16
/// bytes) as reduce over an iterator reads them. Temporary storage
/// (reduce_iterator_workspace_bytes<S>) from `workspace`; at most kReduceMaxCount elements.
template <StructElement S, class Op>
  requires BinaryOperator<Op, S>
void reduce(const Stream& stream, const Buffer<S>& in, Buffer<S>& out, Op op, const S& init,
            const Workspace& workspace = {}) {
  const auto range = detail::call_range<S>("reduce");
  detail::check_count(in.size(), kReduceMaxCount, "reduce");
  if (in.size() > 0) detail::check_device(in.device(), stream, "reduce", "input");
  detail::reduce_over<S, Op>(stream, reduce_struct_kernel<S, Op>(), StructBufferIterator<S>(in), in.size(), out, init,
                             workspace);
}

/// As reduce over structs, returning the result to the host (waits for the stream).
template <StructElement S, class Op>
  requires BinaryOperator<Op, S>
S reduce_value(const Stream& stream, const Buffer<S>& in, Op op, const S& init, const Workspace& workspace = {}) {
  Buffer<S> out(1, stream);
  reduce(stream, in, out, op, init, workspace);
  return out.to_host(stream)[0];
}

/// The first-pass kernel of reduce over iterator It with operator Op (made at the first use,
/// then shared); its second pass is reduce_kernels<T, Op>().final_pass.
template <InputIterator It, class Op>
  requires BinaryOperator<Op, typename It::value_type>
auto& reduce_iterator_kernel() {
  static auto k = detail::make_reduce_iterator_partials_kernel<typename It::value_type, Op, It>();
  return k;
}

/// out[0] = init op it[0] op ... op it[n-1] over the first n elements of iterator `in`
/// (a counting_iterator, a transform_iterator of buffers, ...; see iterators.h), its reads
/// traced into the kernel: no buffer of the elements is made. As reduce over a Buffer
/// otherwise (the same order and grouping rules, the same bits on every run), but the
/// elements are read one at a time, kReduceIteratorItems per thread in flight, and there is
/// no alignment requirement. The buffers the iterator reads must be of the stream's device.
/// At most kReduceMaxCount elements, in launches of kReduceChunk.
template <InputIterator It, class Op>
  requires BinaryOperator<Op, typename It::value_type>
void reduce(const Stream& stream, const It& in, std::size_t n, Buffer<typename It::value_type>& out, Op op,
            typename It::value_type init, const Workspace& workspace = {}) {
  using T = typename It::value_type;
  const auto range = detail::call_range<T>("reduce");
  detail::check_count(n, kReduceMaxCount, "reduce");
  detail::reduce_over<T, Op>(stream, reduce_iterator_kernel<It, Op>(), in, n, out, init, workspace);
}

/// As reduce over an iterator, returning the result to the host (waits for the stream).
template <InputIterator It, class Op>
  requires BinaryOperator<Op, typename It::value_type>
typename It::value_type reduce_value(const Stream& stream, const It& in, std::size_t n, Op op,
                                     typename It::value_type init, const Workspace& workspace = {}) {
  Buffer<typename It::value_type> out(1, stream);
  reduce(stream, in, n, out, op, init, workspace);
  return out.to_host(stream)[0];
}

}  // namespace cutlet::algorithms
