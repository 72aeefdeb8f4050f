// transform: out[i] = op(in[i]) or op(a[i], b[i]) with a user operator.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>

#include "cutlet/algorithms/detail/call_range.h"
#include "cutlet/algorithms/detail/host_checks.h"
#include "cutlet/algorithms/detail/iterator_kernel.h"
#include "cutlet/algorithms/detail/launch_shape.h"
#include "cutlet/algorithms/element.h"
#include "cutlet/algorithms/iterators.h"
#include "cutlet/jit/kernel.h"
#include "cutlet/language/control.h"
#include "cutlet/language/index.h"
#include "cutlet/language/pointer.h"
#include "cutlet/language/vector.h"
#include "cutlet/runtime/buffer.h"
#include "cutlet/runtime/stream.h"

namespace cutlet::algorithms {

/// Threads per block of the transform kernels.
inline constexpr int kTransformBlock = 256;
/// Blocks per SM of the transform kernels' grid-stride loop.
inline constexpr int kTransformBlocksPerSm = 8;
/// Elements each thread of a transform over iterators reads per step (all before writing any).
inline constexpr int kTransformIteratorItems = 4;
/// The most elements a transform over iterators takes, and how many one launch takes (its
/// kernel counts them in 32 bits from a 64-bit base).
inline constexpr std::int64_t kTransformIteratorMaxCount = std::int64_t{1} << 40;
inline constexpr std::int64_t kTransformIteratorChunk = std::int64_t{1} << 30;
/// The most elements transform takes.
inline constexpr std::int64_t kTransformMaxCount = std::numeric_limits<std::int32_t>::max();

namespace detail {

/// Elements per thread and step of a transform over these element types: as many as the
/// widest type fits in 16 bytes, so that its accesses are 16-byte vectors (2 for a 64-bit
/// type, 4 when all are 32-bit).
template <Element... Ts>
inline constexpr int kTransformLanes = 16 / static_cast<int>(std::max({sizeof(Ts)...}));

/// The unary transform: a grid-stride loop over vectors of kTransformLanes elements (loaded
/// and stored as one access each), then the n % lanes last elements one per thread of block 0.
template <class In, class Out, class Op>
void transform_body(const Ptr<Out>& out, const Ptr<In>& in, const i32& n) {
  const Op op{};
  constexpr int V = kTransformLanes<In, Out>;
  i32 tid = thread_idx().x;
  i32 vectors = n / V;
  for_range(block_idx().x * kTransformBlock + tid, vectors, grid_dim().x * kTransformBlock, [&](i32 i) {
    Vec<In, V> x = in.template vload<V>(i);
    Vec<Out, V> y = Vec<Out, V>::splat(0);
    for (int j = 0; j < V; ++j) y = y.with(j, Value<Out>(op(x[j])));
    out.template vstore<V>(i, y);
  });
  i32 tail = vectors * V + block_idx().x * kTransformBlock + tid;
  if_(tail < n, [&] { out[tail] = Value<Out>(op(in[tail].load())); });
}

/// The binary transform, as transform_body over two inputs.
template <class A, class B, class Out, class Op>
void transform2_body(const Ptr<Out>& out, const Ptr<A>& a, const Ptr<B>& b, const i32& n) {
  const Op op{};
  constexpr int V = kTransformLanes<A, B, Out>;
  i32 tid = thread_idx().x;
  i32 vectors = n / V;
  for_range(block_idx().x * kTransformBlock + tid, vectors, grid_dim().x * kTransformBlock, [&](i32 i) {
    Vec<A, V> x = a.template vload<V>(i);
    Vec<B, V> z = b.template vload<V>(i);
    Vec<Out, V> y = Vec<Out, V>::splat(0);
    for (int j = 0; j < V; ++j) y = y.with(j, Value<Out>(op(x[j], z[j])));
    out.template vstore<V>(i, y);
  });
  i32 tail = vectors * V + block_idx().x * kTransformBlock + tid;
  if_(tail < n, [&] { out[tail] = Value<Out>(op(a[tail].load(), b[tail].load())); });
}

/// Makes the unary transform kernel for (In, Out, Op).
template <class In, class Out, class Op>
auto make_transform_kernel() {
  return cutlet::kernel([](Ptr<Out> out, Ptr<In> in, i32 n) { transform_body<In, Out, Op>(out, in, n); },
                        {.name = std::string("cutlet_transform_") + element_name<In>() + "_" + element_name<Out>()});
}
/// Makes the binary transform kernel for (A, B, Out, Op).
template <class A, class B, class Out, class Op>
auto make_transform2_kernel() {
  return cutlet::kernel(
      [](Ptr<Out> out, Ptr<A> a, Ptr<B> b, i32 n) { transform2_body<A, B, Out, Op>(out, a, b, n); },
      {.name = std::string("cutlet_transform_") + element_name<A>() + "_" + element_name<B>() + "_" +
               element_name<Out>()});
}

/// The transform over iterators: out[i] = op(in[i]) for i in base + [0, n), a grid-stride
/// loop over tiles of kTransformBlock * kTransformIteratorItems elements (thread t takes t,
/// t + kTransformBlock, ... of a tile, reading all before writing any), then the partial last
/// tile with bounds checks.
template <class In, class Out, class Op>
void transform_iterator_body(const typename In::Params& in, const typename Out::Params& out, const i64& base,
                             const i32& n) {
  using T = typename Out::value_type;
  const Op op{};
  constexpr int U = kTransformIteratorItems;
  constexpr int kTile = kTransformBlock * U;
  i32 tid = thread_idx().x;
  auto at = [&](const i32& i) { return base + cast<std::int64_t>(i); };
  i32 full_tiles = n / kTile;
  for_range(block_idx().x, full_tiles, grid_dim().x, [&](i32 t) {
    i32 first = t * kTile + tid;
    std::vector<held_t<T>> results;
    for (int u = 0; u < U; ++u) results.push_back(apply_op<T, In>(op, In::read(in, at(first + u * kTransformBlock))));
    for (int u = 0; u < U; ++u) Out::write(out, at(first + u * kTransformBlock), results[static_cast<std::size_t>(u)]);
  });
  i32 partial = full_tiles * kTile;
  if_((partial < n) & (block_idx().x == full_tiles % grid_dim().x), [&] {
    for (int u = 0; u < U; ++u) {
      i32 i = partial + tid + u * kTransformBlock;
      if_(i < n, [&] { Out::write(out, at(i), apply_op<T, In>(op, In::read(in, at(i)))); });
    }
  });
}

/// Makes the transform kernel from iterator In to iterator Out with Op: (base, n, In's
/// parameters..., Out's parameters...).
template <class In, class Out, class Op>
auto make_transform_iterator_kernel() {
  using Params = tuple_cat_t<typename In::Params, typename Out::Params>;
  constexpr std::size_t kIn = std::tuple_size_v<typename In::Params>;
  constexpr std::size_t kOut = std::tuple_size_v<typename Out::Params>;
  return with_params<Params>([]<class... P>() {
    return cutlet::kernel(
        [](i64 base, i32 n, P... p) {
          const Params params{p...};
          transform_iterator_body<In, Out, Op>(tuple_slice<0, kIn>(params), tuple_slice<kIn, kOut>(params), base, n);
        },
        {.name = std::string("cutlet_transform_iterator_") + held_name<typename Out::value_type>()});
  });
}

}  // namespace detail

/// The kernel of the transform from iterator In to iterator Out with operator type Op (made
/// at the first use, then shared).
template <ReadableIterator In, OutputIterator Out, class Op>
auto& transform_iterator_kernel() {
  static auto k = detail::make_transform_iterator_kernel<In, Out, Op>();
  return k;
}

/// The kernel of the unary transform from In to Out with operator type Op (made at the first
/// use, then shared), for inspection and compiling ahead.
template <Element In, Element Out, class Op>
  requires UnaryTransform<Op, In, Out>
auto& transform_kernel() {
  static auto k = detail::make_transform_kernel<In, Out, Op>();
  return k;
}

/// The kernel of the binary transform from (A, B) to Out with operator type Op.
template <Element A, Element B, Element Out, class Op>
  requires BinaryTransform<Op, A, B, Out>
auto& transform_kernel() {
  static auto k = detail::make_transform2_kernel<A, B, Out, Op>();
  return k;
}

/// out[i] = op(in[i]) for the n = in.size() elements of `in`, queued on `stream`. `out` holds
/// at least n elements; both are of the stream's device and 16-byte aligned. `out` may be
/// `in` (for In == Out). At most kTransformMaxCount elements. Throws cutlet::Error for bad
/// arguments.
template <Element In, Element Out, class Op>
  requires UnaryTransform<Op, In, Out>
void transform(const Stream& stream, const Buffer<In>& in, Buffer<Out>& out, Op op) {
  const auto range = detail::call_range<In>("transform");
  const std::int32_t n = detail::checked_count(in.size(), kTransformMaxCount, "transform");
  if (n == 0) return;
  detail::check_size(out.size(), static_cast<std::size_t>(n), "transform", "output");
  detail::check_device(in.device(), stream, "transform", "input");
  detail::check_device(out.device(), stream, "transform", "output");
  detail::check_aligned(in.data(), "transform", "input");
  detail::check_aligned(out.data(), "transform", "output");
  const int grid = detail::streaming_grid(stream.device(), n / detail::kTransformLanes<In, Out> + 1, kTransformBlock,
                                          kTransformBlocksPerSm);
  transform_kernel<In, Out, Op>().launch(stream, {.grid = grid, .block = kTransformBlock}, out, in, n);
}

/// out[i] = op(a[i], b[i]) for the n = a.size() elements of `a`; `b` and `out` hold at least
/// n elements, all three of the stream's device and 16-byte aligned. `out` may be `a` or `b`
/// (same type). Throws cutlet::Error for bad arguments.
template <Element A, Element B, Element Out, class Op>
  requires BinaryTransform<Op, A, B, Out>
void transform(const Stream& stream, const Buffer<A>& a, const Buffer<B>& b, Buffer<Out>& out, Op op) {
  const auto range = detail::call_range<A>("transform");
  const std::int32_t n = detail::checked_count(a.size(), kTransformMaxCount, "transform");
  if (n == 0) return;
  detail::check_size(b.size(), static_cast<std::size_t>(n), "transform", "second input");
  detail::check_size(out.size(), static_cast<std::size_t>(n), "transform", "output");
  detail::check_device(a.device(), stream, "transform", "first input");
  detail::check_device(b.device(), stream, "transform", "second input");
  detail::check_device(out.device(), stream, "transform", "output");
  detail::check_aligned(a.data(), "transform", "first input");
  detail::check_aligned(b.data(), "transform", "second input");
  detail::check_aligned(out.data(), "transform", "output");
  const int grid = detail::streaming_grid(stream.device(), n / detail::kTransformLanes<A, B, Out> + 1,
                                          kTransformBlock, kTransformBlocksPerSm);
  transform_kernel<A, B, Out, Op>().launch(stream, {.grid = grid, .block = kTransformBlock}, out, a, b, n);
}

/// out[i] = op(in[i]) for i in [0, n): `in` a Buffer or an input iterator (iterators.h; a
/// zip_iterator gives op its elements as separate arguments), `out` a Buffer or an output
/// iterator (a Buffer, a permutation_iterator to scatter, a reverse_iterator, a
/// discard_iterator), both traced into one kernel: a grid-stride loop with
/// kTransformIteratorItems elements per thread in flight, read and written one at a time. The
/// buffers read or written must be of the stream's device and hold the elements the
/// iterators touch. At most kTransformIteratorMaxCount elements, in launches of
/// kTransformIteratorChunk. Queued on `stream` without host synchronization.
template <class In, class Out, class Op>
  requires ReadableIterator<iterator_of_t<In>>
void transform(const Stream& stream, const In& in, std::size_t n, const Out& out, Op op) {
  (void)op;
  using InIt = iterator_of_t<In>;
  using OutIt = iterator_of_t<Out>;
  static_assert(OutputIterator<OutIt>,
                "cutlet::algorithms::transform: the output must be a Buffer or an output iterator");
  using T = typename OutIt::value_type;
  const auto range = detail::call_range<T>("transform");
  if (n > static_cast<std::size_t>(kTransformIteratorMaxCount))
    throw Error("cutlet::algorithms::transform: " + std::to_string(n) + " elements are more than it takes over "
                "iterators (" + std::to_string(kTransformIteratorMaxCount) + ")");
  const InIt in_it = as_iterator(in);
  const OutIt out_it = as_iterator(out);
  for (std::int64_t at = 0; at < static_cast<std::int64_t>(n); at += kTransformIteratorChunk) {
    const auto count = static_cast<std::int32_t>(std::min(kTransformIteratorChunk, static_cast<std::int64_t>(n) - at));
    const int grid = detail::streaming_grid(stream.device(), count,
                                            std::int64_t{kTransformBlock} * kTransformIteratorItems,
                                            kTransformBlocksPerSm);
    detail::launch_over(transform_iterator_kernel<InIt, OutIt, Op>(), stream, {.grid = grid, .block = kTransformBlock},
                        std::tie(in_it, out_it), at, count);
  }
}

}  // namespace cutlet::algorithms
