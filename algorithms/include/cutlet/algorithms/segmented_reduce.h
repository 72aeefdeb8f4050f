// segmented_reduce: the reduction of each segment of a buffer, given its begin and end
// offsets, with a user operator (CUB's DeviceSegmentedReduce::Reduce).
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "cutlet/algorithms/detail/call_range.h"
#include "cutlet/algorithms/detail/held.h"
#include "cutlet/algorithms/detail/host_checks.h"
#include "cutlet/algorithms/detail/iterator_kernel.h"
#include "cutlet/algorithms/detail/maybe.h"
#include "cutlet/algorithms/detail/tree.h"
#include "cutlet/algorithms/detail/warp_block.h"
#include "cutlet/algorithms/element.h"
#include "cutlet/algorithms/iterators.h"
#include "cutlet/jit/kernel.h"
#include "cutlet/language/control.h"
#include "cutlet/language/index.h"
#include "cutlet/language/pointer.h"
#include "cutlet/language/vector.h"
#include "cutlet/language/warp.h"
#include "cutlet/runtime/buffer.h"
#include "cutlet/runtime/stream.h"

namespace cutlet::algorithms {

/// Threads per block of both segmented_reduce kernels. The block kernel gives a block to each
/// segment; the warp kernel a warp (kSegmentedReduceBlock / 32 segments per block).
inline constexpr int kSegmentedReduceBlock = 256;
/// 16-byte vectors each thread (block kernel) or lane (warp kernel) loads per tile, all
/// before combining any.
inline constexpr int kSegmentedReduceUnroll = 4;
/// Segments whose mean length (in.size() / segments) is at most this many elements of T are
/// reduced a warp per segment; longer ones a block per segment. One warp tile: 32 lanes of
/// kSegmentedReduceUnroll vectors (512 floats, 256 doubles).
template <Element T>
inline constexpr std::int64_t kSegmentedReduceWarpMean =
    std::int64_t{32} * kSegmentedReduceUnroll * detail::kVectorLanes<T>;
/// Elements of an iterator (or structs of a buffer) each thread or lane reads per tile, one at
/// a time, all before combining any.
inline constexpr int kSegmentedReduceIteratorItems = 4;
/// Over an iterator or structs, segments whose mean length is at most this many elements are
/// reduced a warp per segment (one warp tile), longer ones a block per segment.
inline constexpr std::int64_t kSegmentedReduceIteratorWarpMean = std::int64_t{32} * kSegmentedReduceIteratorItems;
/// The most elements segmented_reduce takes (its i32 indices reach a vector past a segment's
/// end), and the most segments.
inline constexpr std::int64_t kSegmentedReduceMaxCount = std::numeric_limits<std::int32_t>::max() - (1 << 16);

namespace detail {

/// What `rank` (of `Threads` threads that share the segment in[begin, end)) reduces of it:
/// the vectors (kVectorLanes) that lie wholly inside the segment, in tiles of Threads *
/// kSegmentedReduceUnroll vectors (thread `rank` loads vectors rank, rank + Threads, ... of a
/// tile: coalesced, all in flight before any is combined), then the partial last tile with
/// bounds checks, then the up to V - 1 elements before the first whole vector and after the
/// last one (threads rank < V - 1, one each). `in` must be 16-byte aligned; an empty segment
/// (end <= begin) gives nothing (absent).
template <int Threads, class T, class Op>
Maybe<T> segment_share(const Op& op, const Ptr<T>& in, const i32& begin, const i32& end, const i32& rank) {
  constexpr int V = kVectorLanes<T>;
  constexpr int kShift = std::countr_zero(static_cast<unsigned>(V));  // log2(V)
  static_assert(Threads >= V - 1, "a thread for each element before the first whole vector");
  constexpr int U = kSegmentedReduceUnroll;
  constexpr int kTile = Threads * U;  // vectors per tile
  Var<T> acc;
  Var<bool> has = false;
  auto add = [&](const Value<bool>& present, const Value<T>& s) {
    acc = select(present, select(has.get(), call_op<T>(op, acc.get(), s), s), acc.get());
    has = has.get() | present;
  };
  auto lanes_of = [](const Vec<T, V>& v, std::vector<Value<T>>& out) {
    for (int j = 0; j < V; ++j) out.push_back(v[j]);
  };

  // Whole vectors: [vb, ve); vb rounds begin up, ve rounds end down (and is at least vb).
  i32 vb = (begin >> kShift) + cast<std::int32_t>((begin & (V - 1)) != 0);
  i32 ve = max(vb, end >> kShift);
  i32 vectors = ve - vb;
  Ptr<T> first = in + (vb + rank) * V;  // this thread's first vector; constant offsets after
  i32 full_tiles = vectors / kTile;
  for_range(0, full_tiles, [&](i32 t) {
    Ptr<T> p = first + t * (kTile * V);
    std::vector<Vec<T, V>> loaded;
    for (int k = 0; k < U; ++k) loaded.push_back(p.template vload<V>(k * Threads));
    std::vector<Value<T>> values;
    for (const auto& v : loaded) lanes_of(v, values);
    add(Value<bool>(true), tree_reduce<T>(op, values));
  });

  // The partial last tile: every load in flight first, then the vectors that were there.
  i32 done = full_tiles * kTile;
  Ptr<T> rest = first + done * V;
  std::vector<Value<bool>> there;
  std::vector<Var<T>> lanes(static_cast<std::size_t>(U * V));
  for (int k = 0; k < U; ++k) {
    there.push_back(done + rank + k * Threads < vectors);
    if_(there.back(), [&] {
      Vec<T, V> v = rest.template vload<V>(k * Threads);
      for (int j = 0; j < V; ++j) lanes[static_cast<std::size_t>(k * V + j)] = v[j];
    });
  }
  for (int k = 0; k < U; ++k) {
    std::vector<Value<T>> values;
    for (int j = 0; j < V; ++j) values.push_back(lanes[static_cast<std::size_t>(k * V + j)].get());
    add(there[static_cast<std::size_t>(k)], tree_reduce<T>(op, values));
  }

  // The elements before vector vb (head) and from vector ve on (tail), fewer than V each.
  i32 head = begin + rank;
  i32 tail = ve * V + rank;
  Value<bool> in_head = (rank < V - 1) & (head < min(end, vb * V));
  Value<bool> in_tail = (rank < V - 1) & (tail < end);
  Var<T> head_value, tail_value;
  if_(in_head, [&] { head_value = in[head].load(); });
  if_(in_tail, [&] { tail_value = in[tail].load(); });
  add(in_head, head_value.get());
  add(in_tail, tail_value.get());
  return Maybe<T>{acc.get(), has.get()};
}

/// What `rank` (of `Threads` threads that share segment [begin, end) of iterator It, whose
/// parameters are `p`) reduces of it: elements begin + rank, begin + rank + Threads, ... read
/// one at a time, kSegmentedReduceIteratorItems of them in flight, the last tile's with bounds
/// checks. T may be a struct (It reads Struct<T> values).
template <int Threads, class T, class Op, class It>
Maybe<T> segment_share_iterator(const Op& op, const typename It::Params& p, const i32& begin, const i32& end,
                                const i32& rank) {
  constexpr int U = kSegmentedReduceIteratorItems;
  constexpr int kTile = Threads * U;
  HeldVar<T> acc;
  Var<bool> has = false;
  auto add = [&](const Value<bool>& present, const held_t<T>& s) {
    acc = select(present, select(has.get(), call_op<T>(op, acc.get(), s), s), acc.get());
    has = has.get() | present;
  };
  auto item = [&](const i32& i) { return held_t<T>(It::read(p, cast<std::int64_t>(i))); };
  i32 full_tiles = max(end - begin, 0) / kTile;
  for_range(0, full_tiles, [&](i32 t) {
    i32 first = begin + t * kTile + rank;
    std::vector<held_t<T>> values;
    for (int u = 0; u < U; ++u) values.push_back(item(first + u * Threads));
    add(Value<bool>(true), tree_reduce<T>(op, values));
  });
  i32 rest = begin + full_tiles * kTile + rank;
  std::vector<Value<bool>> there;
  std::vector<HeldVar<T>> items(static_cast<std::size_t>(U));
  for (int u = 0; u < U; ++u) {
    there.push_back(rest + u * Threads < end);
    if_(there.back(), [&] { items[static_cast<std::size_t>(u)] = item(rest + u * Threads); });
  }
  for (int u = 0; u < U; ++u) add(there[static_cast<std::size_t>(u)], items[static_cast<std::size_t>(u)].get());
  return Maybe<T>{acc.get(), has.get()};
}

/// out[s] = init op (the reduction of segment s), or init for an empty segment, for one
/// segment per block: s = block_idx().x. `share.template operator()<Threads>(op, begin, end,
/// rank)` gives what thread `rank` of Threads reduces of segment [begin, end): segment_share
/// over a buffer's vectors, segment_share_iterator over an iterator. T a struct: out holds its
/// words.
template <class T, class Op, class Share>
void segmented_reduce_block_body(const Ptr<storage_t<T>>& out, const Ptr<std::int32_t>& begin_offsets,
                                 const Ptr<std::int32_t>& end_offsets, const param_t<T>& init, const Share& share) {
  const Op op{};
  i32 segment = block_idx().x;
  i32 tid = thread_idx().x;
  i32 begin = begin_offsets[segment];
  i32 end = end_offsets[segment];
  Maybe<T> mine = share.template operator()<kSegmentedReduceBlock>(op, begin, end, tid);
  Maybe<T> total = block_reduce<kSegmentedReduceBlock, T>(op, mine);
  if_(tid == 0, [&] { store_held<T>(out, segment, select(total.present, call_op<T>(op, init, total.value), init)); });
}

/// As segmented_reduce_block_body for one segment per warp: segment s = block * warps + warp,
/// for s < num_segments.
template <class T, class Op, class Share>
void segmented_reduce_warp_body(const Ptr<storage_t<T>>& out, const Ptr<std::int32_t>& begin_offsets,
                                const Ptr<std::int32_t>& end_offsets, const i32& num_segments, const param_t<T>& init,
                                const Share& share) {
  const Op op{};
  constexpr int kWarps = kSegmentedReduceBlock / warp_size;
  i32 tid = thread_idx().x;
  i32 lane = tid & 31;
  i32 segment = block_idx().x * kWarps + (tid >> 5);
  // A whole warp is in or out: the shuffles below need all 32 lanes.
  if_(segment < num_segments, [&] {
    i32 begin = begin_offsets[segment];
    i32 end = end_offsets[segment];
    Maybe<T> mine = share.template operator()<warp_size>(op, begin, end, lane);
    Maybe<T> total = warp_reduce<false, T>(op, mine);
    if_(lane == 0,
        [&] { store_held<T>(out, segment, select(total.present, call_op<T>(op, init, total.value), init)); });
  });
}

/// segment_share over buffer `in`, as segmented_reduce_block_body and _warp_body take it.
template <class T>
auto buffer_share(const Ptr<T>& in) {
  return [in]<int Threads, class Op>(const Op& op, const i32& begin, const i32& end, const i32& rank) {
    return segment_share<Threads, T>(op, in, begin, end, rank);
  };
}

/// segment_share_iterator over iterator It (parameters `p`), as the bodies take it.
template <class T, class It>
auto iterator_share(const typename It::Params& p) {
  return [p]<int Threads, class Op>(const Op& op, const i32& begin, const i32& end, const i32& rank) {
    return segment_share_iterator<Threads, T, Op, It>(op, p, begin, end, rank);
  };
}

/// out[s] = init for s < num_segments: segmented_reduce where the input is empty (every
/// segment is), without the iterator, whose buffers may be empty too.
template <class T>
void segmented_reduce_init_body(const Ptr<storage_t<T>>& out, const i32& num_segments, const param_t<T>& init) {
  i32 segment = block_idx().x * kSegmentedReduceBlock + thread_idx().x;
  if_(segment < num_segments, [&] { store_held<T>(out, segment, init); });
}

/// The kernels of segmented_reduce over iterator It for (T, Op): (out, begin_offsets,
/// end_offsets, [num_segments,] init, It's parameters...).
template <class T, class Op, class It>
struct SegmentedReduceIteratorKernels {
  static auto make_block() {
    return with_params<typename It::Params>([]<class... P>() {
      return cutlet::kernel(
          [](Ptr<storage_t<T>> out, Ptr<std::int32_t> begin_offsets, Ptr<std::int32_t> end_offsets, param_t<T> init,
             P... p) {
            segmented_reduce_block_body<T, Op>(out, begin_offsets, end_offsets, init,
                                               iterator_share<T, It>(typename It::Params{p...}));
          },
          {.name = std::string("cutlet_segmented_reduce_block_iterator_") + held_name<T>()});
    });
  }
  static auto make_warp() {
    return with_params<typename It::Params>([]<class... P>() {
      return cutlet::kernel(
          [](Ptr<storage_t<T>> out, Ptr<std::int32_t> begin_offsets, Ptr<std::int32_t> end_offsets, i32 num_segments,
             param_t<T> init, P... p) {
            segmented_reduce_warp_body<T, Op>(out, begin_offsets, end_offsets, num_segments, init,
                                              iterator_share<T, It>(typename It::Params{p...}));
          },
          {.name = std::string("cutlet_segmented_reduce_warp_iterator_") + held_name<T>()});
    });
  }
  decltype(make_block()) block = make_block();
  decltype(make_warp()) warp = make_warp();
};

/// The begin and end offsets of the back-to-back segments of `offsets` (S + 1 of them).
inline std::pair<Buffer<std::int32_t>, Buffer<std::int32_t>> segment_bounds(const Buffer<std::int32_t>& offsets) {
  const std::size_t segments = offsets.size() - 1;
  return {Buffer<std::int32_t>::wrap(offsets.data(), segments, offsets.device()),
          Buffer<std::int32_t>::wrap(offsets.data() + sizeof(std::int32_t), segments, offsets.device())};
}

/// segmented_reduce_init_body's kernel for T (made at the first use, then shared).
template <class T>
auto& segmented_reduce_init_kernel() {
  static auto k = cutlet::kernel([](Ptr<storage_t<T>> out, i32 num_segments,
                                    param_t<T> init) { segmented_reduce_init_body<T>(out, num_segments, init); },
                                 {.name = std::string("cutlet_segmented_reduce_init_") + held_name<T>()});
  return k;
}

/// Makes segmented_reduce's block-per-segment kernel for (T, Op).
template <class T, class Op>
auto make_segmented_reduce_block_kernel() {
  return cutlet::kernel(
      [](Ptr<T> out, Ptr<T> in, Ptr<std::int32_t> begin_offsets, Ptr<std::int32_t> end_offsets, Value<T> init) {
        segmented_reduce_block_body<T, Op>(out, begin_offsets, end_offsets, init, buffer_share<T>(in));
      },
      {.name = std::string("cutlet_segmented_reduce_block_") + element_name<T>()});
}
/// Makes segmented_reduce's warp-per-segment kernel for (T, Op).
template <class T, class Op>
auto make_segmented_reduce_warp_kernel() {
  return cutlet::kernel(
      [](Ptr<T> out, Ptr<T> in, Ptr<std::int32_t> begin_offsets, Ptr<std::int32_t> end_offsets, i32 num_segments,
         Value<T> init) {
        segmented_reduce_warp_body<T, Op>(out, begin_offsets, end_offsets, num_segments, init, buffer_share<T>(in));
      },
      {.name = std::string("cutlet_segmented_reduce_warp_") + element_name<T>()});
}

/// The two kernels of segmented_reduce for (T, Op), built once per process.
template <class T, class Op>
struct SegmentedReduceKernels {
  decltype(make_segmented_reduce_block_kernel<T, Op>()) block = make_segmented_reduce_block_kernel<T, Op>();
  decltype(make_segmented_reduce_warp_kernel<T, Op>()) warp = make_segmented_reduce_warp_kernel<T, Op>();
};

}  // namespace detail

/// The kernels segmented_reduce launches for element type T and operator type Op (made at the
/// first use, then shared by every call): `.block` (a block per segment) and `.warp` (a warp
/// per segment). For inspection and compiling ahead.
template <Element T, class Op>
  requires BinaryOperator<Op, T>
detail::SegmentedReduceKernels<T, Op>& segmented_reduce_kernels() {
  static detail::SegmentedReduceKernels<T, Op> kernels;
  return kernels;
}

/// For each segment s < S = begin_offsets.size(): out[s] = init op in[b] op in[b + 1] op ...
/// op in[e - 1], with b = begin_offsets[s] and e = end_offsets[s]; out[s] = init when the
/// segment is empty (e <= b). Queued on `stream` in one kernel launch, without host
/// synchronization or temporary storage.
///
/// `op` must be associative and commutative: a segment's elements are combined in an order
/// and a grouping of the algorithm's choosing, fixed for a given segment, so the result is the
/// same, bit for bit, on every run. Segments may be in any order, overlap, or leave elements
/// out; for a nonempty segment 0 <= b and e <= in.size() (the offsets are device data and are
/// not checked). The 16-byte vectors wholly inside a segment are loaded as vectors, the up to
/// three (f32, i32, u32) or one (f64, i64, u64) elements at each end one by one.
///
/// Kernel: a warp per segment when the mean segment length in.size() / S is at most
/// kSegmentedReduceWarpMean<T>, else a block per segment (segmented_reduce_kernels). Either is
/// correct for any lengths; the choice is one of speed.
///
/// `end_offsets` and `out` hold at least S elements. `in`, `out` and the offsets are of the
/// stream's device, `in` 16-byte aligned (every Buffer cutlet allocates is). At most
/// kSegmentedReduceMaxCount elements and segments. Throws cutlet::Error for bad arguments.
template <Element T, class Op>
  requires BinaryOperator<Op, T>
void segmented_reduce(const Stream& stream, const Buffer<T>& in, Buffer<T>& out,
                      const Buffer<std::int32_t>& begin_offsets, const Buffer<std::int32_t>& end_offsets, Op op,
                      T init) {
  const auto range = detail::call_range<T>("segmented_reduce");
  const char* name = "segmented_reduce";
  const std::int32_t n = detail::checked_count(in.size(), kSegmentedReduceMaxCount, name);
  const std::int32_t segments =
      detail::checked_count(begin_offsets.size(), kSegmentedReduceMaxCount, name, "segments");
  if (segments == 0) return;
  detail::check_size(end_offsets.size(), static_cast<std::size_t>(segments), name, "end offsets");
  detail::check_size(out.size(), static_cast<std::size_t>(segments), name, "output");
  detail::check_device(begin_offsets.device(), stream, name, "begin offsets");
  detail::check_device(end_offsets.device(), stream, name, "end offsets");
  detail::check_device(out.device(), stream, name, "output");
  if (n > 0) {
    detail::check_device(in.device(), stream, name, "input");
    detail::check_aligned(in.data(), name, "input");
  }
  // An empty input has only empty segments, whose kernels read nothing: `out` stands in for
  // it, as a launch takes no empty buffer.
  const Buffer<T> source = n > 0 ? Buffer<T>::wrap(in.data(), in.size(), stream.device())
                                 : Buffer<T>::wrap(out.data(), out.size(), stream.device());
  auto& kernels = segmented_reduce_kernels<T, Op>();
  if (n / segments <= kSegmentedReduceWarpMean<T>) {
    constexpr int kWarps = kSegmentedReduceBlock / warp_size;
    const long long grid = (static_cast<long long>(segments) + kWarps - 1) / kWarps;
    kernels.warp.launch(stream, {.grid = grid, .block = kSegmentedReduceBlock}, out, source, begin_offsets,
                        end_offsets, segments, init);
  } else {
    kernels.block.launch(stream, {.grid = segments, .block = kSegmentedReduceBlock}, out, source, begin_offsets,
                         end_offsets, init);
  }
}

/// segmented_reduce with the S + 1 offsets of S = offsets.size() - 1 back-to-back segments:
/// segment s is in[offsets[s], offsets[s + 1]) (CUB's d_offsets, d_offsets + 1). No segment
/// when `offsets` holds fewer than two.
template <Element T, class Op>
  requires BinaryOperator<Op, T>
void segmented_reduce(const Stream& stream, const Buffer<T>& in, Buffer<T>& out, const Buffer<std::int32_t>& offsets,
                      Op op, T init) {
  if (offsets.size() < 2) return;
  const auto [begin_offsets, end_offsets] = detail::segment_bounds(offsets);
  segmented_reduce(stream, in, out, begin_offsets, end_offsets, op, init);
}

/// The kernels segmented_reduce over iterator It (or, It a StructBufferIterator, over a
/// buffer of structs) launches with operator Op (made at the first use, then shared): `.block`
/// and `.warp`. For inspection and compiling ahead.
template <class It, class Op>
  requires BinaryOperator<Op, typename It::value_type>
detail::SegmentedReduceIteratorKernels<typename It::value_type, Op, It>& segmented_reduce_iterator_kernels() {
  static detail::SegmentedReduceIteratorKernels<typename It::value_type, Op, It> kernels;
  return kernels;
}

namespace detail {

/// segmented_reduce over iterator `in` (its first n elements hold the segments; T may be a
/// struct): the checks, then the init kernel (n == 0), a warp per segment (short segments on
/// average) or a block per segment.
template <class It, class Op, class T = typename It::value_type>
void segmented_reduce_over(const Stream& stream, const It& in, std::size_t n, Buffer<T>& out,
                           const Buffer<std::int32_t>& begin_offsets, const Buffer<std::int32_t>& end_offsets,
                           const T& init) {
  const char* name = "segmented_reduce";
  const std::int32_t count = checked_count(n, kSegmentedReduceMaxCount, name);
  const std::int32_t segments = checked_count(begin_offsets.size(), kSegmentedReduceMaxCount, name, "segments");
  if (segments == 0) return;
  check_size(end_offsets.size(), static_cast<std::size_t>(segments), name, "end offsets");
  check_size(out.size(), static_cast<std::size_t>(segments), name, "output");
  check_device(begin_offsets.device(), stream, name, "begin offsets");
  check_device(end_offsets.device(), stream, name, "end offsets");
  check_device(out.device(), stream, name, "output");
  const auto& words = storage_view(out);
  constexpr int kWarps = kSegmentedReduceBlock / warp_size;
  if (count == 0) {
    const long long grid = (static_cast<long long>(segments) + kSegmentedReduceBlock - 1) / kSegmentedReduceBlock;
    segmented_reduce_init_kernel<T>().launch(stream, {.grid = grid, .block = kSegmentedReduceBlock}, words, segments,
                                             init);
    return;
  }
  auto& kernels = segmented_reduce_iterator_kernels<It, Op>();
  if (count / segments <= kSegmentedReduceIteratorWarpMean) {
    const long long grid = (static_cast<long long>(segments) + kWarps - 1) / kWarps;
    launch_over(kernels.warp, stream, {.grid = grid, .block = kSegmentedReduceBlock}, std::tie(in), words,
                begin_offsets, end_offsets, segments, init);
  } else {
    launch_over(kernels.block, stream, {.grid = segments, .block = kSegmentedReduceBlock}, std::tie(in), words,
                begin_offsets, end_offsets, init);
  }
}

}  // namespace detail

/// segmented_reduce over the first n elements of iterator `in` (a counting_iterator, a
/// transform_iterator of buffers, ...; iterators.h), its reads traced into the kernel: for
/// each segment s, out[s] = init op in[b] op ... op in[e - 1] (b = begin_offsets[s], e =
/// end_offsets[s]), init for an empty segment. The rules of segmented_reduce over a buffer
/// hold (op associative and commutative, the same bits on every run, any segment order,
/// overlaps allowed, 0 <= b and e <= n for a nonempty segment, no temporary storage), but the
/// elements are read one at a time, kSegmentedReduceIteratorItems per thread in flight: a
/// warp per segment when the mean length n / S is at most kSegmentedReduceIteratorWarpMean,
/// else a block. The buffers the iterator reads must be of the stream's device.
template <InputIterator It, class Op>
  requires BinaryOperator<Op, typename It::value_type>
void segmented_reduce(const Stream& stream, const It& in, std::size_t n, Buffer<typename It::value_type>& out,
                      const Buffer<std::int32_t>& begin_offsets, const Buffer<std::int32_t>& end_offsets, Op op,
                      typename It::value_type init) {
  const auto range = detail::call_range<typename It::value_type>("segmented_reduce");
  detail::segmented_reduce_over<It, Op>(stream, in, n, out, begin_offsets, end_offsets, init);
}

/// segmented_reduce over an iterator with the S + 1 offsets of S back-to-back segments.
template <InputIterator It, class Op>
  requires BinaryOperator<Op, typename It::value_type>
void segmented_reduce(const Stream& stream, const It& in, std::size_t n, Buffer<typename It::value_type>& out,
                      const Buffer<std::int32_t>& offsets, Op op, typename It::value_type init) {
  if (offsets.size() < 2) return;
  const auto [begin, end] = detail::segment_bounds(offsets);
  segmented_reduce(stream, in, n, out, begin, end, op, init);
}

/// segmented_reduce over a buffer of user structs (a StructElement), `op` taking and returning
/// Struct<S> values (a segment's min, max and sum at once, say): the rules of segmented_reduce
/// over an iterator, each struct read whole (one 8- or 16-byte load for structs of 8 or 16
/// bytes, else a load a word).
template <StructElement S, class Op>
  requires BinaryOperator<Op, S>
void segmented_reduce(const Stream& stream, const Buffer<S>& in, Buffer<S>& out,
                      const Buffer<std::int32_t>& begin_offsets, const Buffer<std::int32_t>& end_offsets, Op op,
                      const S& init) {
  const auto range = detail::call_range<S>("segmented_reduce");
  if (in.size() > 0) detail::check_device(in.device(), stream, "segmented_reduce", "input");
  detail::segmented_reduce_over<StructBufferIterator<S>, Op>(stream, StructBufferIterator<S>(in), in.size(), out,
                                                             begin_offsets, end_offsets, init);
}

/// segmented_reduce over a buffer of structs with the S + 1 offsets of S back-to-back segments.
template <StructElement S, class Op>
  requires BinaryOperator<Op, S>
void segmented_reduce(const Stream& stream, const Buffer<S>& in, Buffer<S>& out, const Buffer<std::int32_t>& offsets,
                      Op op, const S& init) {
  if (offsets.size() < 2) return;
  const auto [begin, end] = detail::segment_bounds(offsets);
  segmented_reduce(stream, in, out, begin, end, op, init);
}

}  // namespace cutlet::algorithms
