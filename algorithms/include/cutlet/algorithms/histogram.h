// histogram_even and histogram_range: counts of samples in equal-width bins, or in bins
// between given levels, privatized in shared memory (CUB's DeviceHistogram::HistogramEven and
// HistogramRange).
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>

#include "cutlet/algorithms/detail/call_range.h"
#include "cutlet/algorithms/detail/histogram_levels.h"
#include "cutlet/algorithms/detail/host_checks.h"
#include "cutlet/algorithms/detail/iterator_kernel.h"
#include "cutlet/algorithms/detail/launch_shape.h"
#include "cutlet/algorithms/detail/sorted_search.h"
#include "cutlet/algorithms/element.h"
#include "cutlet/algorithms/iterators.h"
#include "cutlet/algorithms/workspace.h"
#include "cutlet/jit/kernel.h"
#include "cutlet/language/atomic.h"
#include "cutlet/language/control.h"
#include "cutlet/language/index.h"
#include "cutlet/language/memory.h"
#include "cutlet/language/pointer.h"
#include "cutlet/language/vector.h"
#include "cutlet/runtime/buffer.h"
#include "cutlet/runtime/stream.h"

namespace cutlet::algorithms {

/// Threads per block of the histogram kernels.
inline constexpr int kHistogramBlock = 256;
/// The most bins counted in shared memory (48 KiB of u32 counters per block); more bins are
/// counted with global atomics directly.
inline constexpr int kHistogramSharedBins = 48 * 1024 / 4;
/// The most samples histogram_even and histogram_range take.
inline constexpr std::int64_t kHistogramMaxCount = std::numeric_limits<std::int32_t>::max();
/// The most levels histogram_range keeps in shared memory (beside the counters): with more,
/// it searches them in global memory and counts with global atomics.
inline constexpr int kHistogramSharedLevels = 2049;

namespace detail {

/// The type of the levels of a histogram of samples of T, in which samples are binned: T, but
/// std::int32_t for 8- and 16-bit integers (so that the levels of a histogram of every value,
/// 0 and 256 for bytes, can be written) and float for half and bfloat16.
template <class T>
using HistogramLevel =
    std::conditional_t<(sizeof(T) >= 4), T, std::conditional_t<is_float_element_v<T>, float, std::int32_t>>;

/// What maps a sample to its bin besides the lower level: bins / (upper - lower) in T for
/// floats, upper - lower as a u64 for integers (of a HistogramLevel type T).
template <class T>
using HistogramScale = std::conditional_t<std::is_floating_point_v<T>, T, std::uint64_t>;

/// An integer sample's distance from 0 in two's complement, as a u64 (differences of two are
/// exact modulo 2^64).
template <class T>
u64 as_u64(const Value<T>& s) {
  if constexpr (std::is_signed_v<T>) return bitcast<std::uint64_t>(cast<std::int64_t>(s));
  else return cast<std::uint64_t>(s);
}

/// The bin of a sample lower <= s < upper: floats, min(int((s - lower) * scale), bins - 1) in
/// T's arithmetic; integers, (s - lower) * bins / (upper - lower) exactly, in 64 bits. T is
/// a HistogramLevel type (not half, bfloat16 or an integer of less than 32 bits).
template <class T>
i32 bin_of(const Value<T>& s, const Value<T>& lower, const i32& bins, const Value<HistogramScale<T>>& scale) {
  if constexpr (std::is_floating_point_v<T>) {
    i32 b = cast<std::int32_t>((s - lower) * scale);
    return min(b, bins - 1);
  } else {
    u64 d = as_u64<T>(s) - as_u64<T>(lower);
    return cast<std::int32_t>(d * cast<std::uint64_t>(bins) / scale);
  }
}

/// The bin of a sample among num_levels ascending `levels` (shared or global memory): the
/// last i with levels[i] <= s, found by binary search, and kept within [0, num_levels - 2]
/// (levels out of order give wrong bins, never a counter past the histogram).
template <class T, class Levels>
i32 range_bin_of(const Value<T>& s, const Levels& levels, const i32& num_levels) {
  return max(i32(0), min(count_not_above<T>(s, levels, num_levels) - 1, num_levels - 2));
}

/// The counting of a histogram kernel: each_sample(count) calls count(s) for each sample s
/// the thread takes, which gives it to binner(s, counted), which calls counted(bin) for a
/// sample it counts. Privatized: each block counts into its own `bins` counters in dynamic
/// shared memory with block-scope atomics, then adds its nonzero counts to `hist` with one
/// global atomic per bin. Otherwise it counts into `hist` with global atomics. `hist` must be
/// zero before the launch. Privatized, the block synchronizes before its first sample, so a
/// binner may read shared memory its block filled before the call.
template <bool Privatized, class T, class Binner, class EachSample>
void histogram_counts(const Ptr<std::uint32_t>& hist, const i32& bins, const Binner& binner,
                      const EachSample& each_sample) {
  i32 tid = thread_idx().x;
  std::optional<SharedPtr<std::uint32_t>> local;
  if constexpr (Privatized) {
    local = dynamic_shared<std::uint32_t>();
    for_range(tid, bins, kHistogramBlock, [&](i32 b) { (*local)[b] = 0u; });
    syncthreads();
  }
  each_sample([&](const Value<T>& s) {
    binner(s, [&](const i32& b) {
      if constexpr (Privatized) atomic_add((*local)[b], 1u, Scope::Block);
      else atomic_add(hist[b], 1u);
    });
  });
  if constexpr (Privatized) {
    syncthreads();
    for_range(tid, bins, kHistogramBlock, [&](i32 b) {
      u32 c = (*local)[b];
      if_(c != 0u, [&] { atomic_add(hist[b], c); });
    });
  }
}

/// The histogram kernel over a buffer (histogram_counts): a grid-stride loop over 16-byte
/// vectors of samples, then the n % lanes last samples one per thread of block 0.
template <bool Privatized, class T, class Binner>
void histogram_body(const Ptr<std::uint32_t>& hist, const Ptr<T>& samples, const i32& n, const i32& bins,
                    const Binner& binner) {
  constexpr int V = kVectorLanes<T>;
  histogram_counts<Privatized, T>(hist, bins, binner, [&](const auto& count) {
    i32 tid = thread_idx().x;
    i32 vectors = n / V;
    for_range(block_idx().x * kHistogramBlock + tid, vectors, grid_dim().x * kHistogramBlock, [&](i32 i) {
      Vec<T, V> v = samples.template vload<V>(i);
      for (int j = 0; j < V; ++j) count(v[j]);
    });
    i32 tail = vectors * V + block_idx().x * kHistogramBlock + tid;
    if_(tail < n, [&] { count(samples[tail].load()); });
  });
}

/// Elements each thread of a histogram over an iterator reads per step (all before counting
/// any).
inline constexpr int kHistogramIteratorItems = 4;

/// The histogram kernel over iterator It (parameters `p`; histogram_counts): a grid-stride
/// loop over tiles of kHistogramBlock * kHistogramIteratorItems samples (thread t reads t,
/// t + kHistogramBlock, ... of a tile), then the partial last tile with bounds checks.
template <bool Privatized, class It, class Binner>
void histogram_iterator_body(const Ptr<std::uint32_t>& hist, const typename It::Params& p, const i32& n,
                             const i32& bins, const Binner& binner) {
  using T = typename It::value_type;
  constexpr int U = kHistogramIteratorItems;
  constexpr int kTile = kHistogramBlock * U;
  histogram_counts<Privatized, T>(hist, bins, binner, [&](const auto& count) {
    i32 tid = thread_idx().x;
    auto read = [&](const i32& i) { return Value<T>(It::read(p, cast<std::int64_t>(i))); };
    i32 full_tiles = n / kTile;
    for_range(block_idx().x, full_tiles, grid_dim().x, [&](i32 t) {
      i32 first = t * kTile + tid;
      std::vector<Value<T>> samples;
      for (int u = 0; u < U; ++u) samples.push_back(read(first + u * kHistogramBlock));
      for (const auto& s : samples) count(s);
    });
    i32 partial = full_tiles * kTile;
    if_((partial < n) & (block_idx().x == full_tiles % grid_dim().x), [&] {
      for (int u = 0; u < U; ++u) {
        i32 i = partial + tid + u * kHistogramBlock;
        if_(i < n, [&] { count(read(i)); });
      }
    });
  });
}

/// The bin counting of histogram_even: samples of T in [lower, upper) by bin_of, in the
/// levels' type L.
template <class T, class L = HistogramLevel<T>>
auto even_binner(const Value<L>& lower, const Value<L>& upper, const i32& bins,
                 const Value<HistogramScale<L>>& scale) {
  return [=](const Value<T>& sample, const auto& counted) {
    Value<L> s = cast<L>(sample);  // the sample itself where L is T
    if_((s >= lower) & (s < upper), [&] { counted(bin_of<L>(s, lower, bins, scale)); });
  };
}

/// Makes histogram_even's kernel over iterator It for Privatized: (hist, n, bins, lower,
/// upper, scale, It's parameters...).
template <bool Privatized, class It>
auto make_histogram_iterator_kernel() {
  using T = typename It::value_type;
  using L = HistogramLevel<T>;
  return with_params<typename It::Params>([]<class... P>() {
    return cutlet::kernel(
        [](Ptr<std::uint32_t> hist, i32 n, i32 bins, Value<L> lower, Value<L> upper, Value<HistogramScale<L>> scale,
           P... p) {
          histogram_iterator_body<Privatized, It>(hist, typename It::Params{p...}, n, bins,
                                                  even_binner<T>(lower, upper, bins, scale));
        },
        {.name = std::string(Privatized ? "cutlet_histogram_even_iterator_shared_"
                                        : "cutlet_histogram_even_iterator_global_") +
                 element_name<T>()});
  });
}

/// Makes the histogram kernel for (Privatized, T).
template <bool Privatized, class T>
auto make_histogram_kernel() {
  using L = HistogramLevel<T>;
  return cutlet::kernel(
      [](Ptr<std::uint32_t> hist, Ptr<T> samples, i32 n, i32 bins, Value<L> lower, Value<L> upper,
         Value<HistogramScale<L>> scale) {
        histogram_body<Privatized, T>(hist, samples, n, bins, even_binner<T>(lower, upper, bins, scale));
      },
      {.name = std::string(Privatized ? "cutlet_histogram_even_shared_" : "cutlet_histogram_even_global_") +
               element_name<T>()});
}

/// Makes histogram_range's kernel for (Privatized, T, levels of L): privatized, the levels are
/// copied to shared memory first (at most kHistogramSharedLevels); otherwise searched where
/// they are.
template <bool Privatized, class T, class L>
auto make_histogram_range_kernel() {
  return cutlet::kernel(
      [](Ptr<std::uint32_t> hist, Ptr<T> samples, i32 n, Ptr<L> levels, i32 num_levels) {
        auto bin_among = [&](const auto& lv) {
          return [&, lv](const Value<T>& sample, const auto& counted) {
            Value<L> s = cast<L>(sample);  // the sample itself where L is T
            if_((s >= lv[0].load()) & (s < lv[num_levels - 1].load()),
                [&] { counted(range_bin_of<L>(s, lv, num_levels)); });
          };
        };
        if constexpr (Privatized) {
          auto shared_levels = shared_array<L>(kHistogramSharedLevels);
          for_range(thread_idx().x, num_levels, kHistogramBlock, [&](i32 i) { shared_levels[i] = levels[i].load(); });
          histogram_body<true, T>(hist, samples, n, num_levels - 1, bin_among(shared_levels));
        } else {
          histogram_body<false, T>(hist, samples, n, num_levels - 1, bin_among(levels));
        }
      },
      {.name = std::string(Privatized ? "cutlet_histogram_range_shared_" : "cutlet_histogram_range_global_") +
               element_name<T>() + (std::is_same_v<L, T> ? "" : std::string("_") + element_name<L>())});
}

}  // namespace detail

/// The histogram kernel for samples of type T (made at the first use, then shared): counting
/// in shared memory (Privatized, for at most kHistogramSharedBins bins) or with global atomics.
template <bool Privatized, Element T>
auto& histogram_kernel() {
  static auto k = detail::make_histogram_kernel<Privatized, T>();
  return k;
}

/// The kernel of histogram_even over iterator It (made at the first use, then shared):
/// counting in shared memory (Privatized) or with global atomics.
template <bool Privatized, InputIterator It>
auto& histogram_iterator_kernel() {
  static auto k = detail::make_histogram_iterator_kernel<Privatized, It>();
  return k;
}

/// The kernel of histogram_range for samples of type T and levels of L (made at the first
/// use, then shared): levels and counters in shared memory (Privatized, for at most
/// kHistogramSharedLevels levels), or the levels searched in global memory and counts added
/// with global atomics.
template <bool Privatized, Element T, Element L = T>
auto& histogram_range_kernel() {
  static auto k = detail::make_histogram_range_kernel<Privatized, T, L>();
  return k;
}

namespace detail {

/// What histogram_even checks and does before counting: the levels and the histogram are
/// checked, its first num_levels - 1 counters zeroed on `stream`; returns the scale of its
/// bins (HistogramScale).
template <class T>
HistogramScale<T> prepare_histogram_even(const Stream& stream, Buffer<std::uint32_t>& histogram, int num_levels,
                                         T lower, T upper) {
  check_num_levels(num_levels, "histogram_even");
  check_bounds(lower < upper, static_cast<double>(lower), static_cast<double>(upper));
  const int bins = num_levels - 1;
  check_size(histogram.size(), static_cast<std::size_t>(bins), "histogram_even", "histogram");
  check_device(histogram.device(), stream, "histogram_even", "histogram");
  HistogramScale<T> scale;
  if constexpr (std::is_floating_point_v<T>) {
    scale = static_cast<T>(bins) / (upper - lower);
  } else {
    using W = std::conditional_t<std::is_signed_v<T>, std::int64_t, std::uint64_t>;
    scale = static_cast<std::uint64_t>(static_cast<W>(upper)) - static_cast<std::uint64_t>(static_cast<W>(lower));
    check_integer_range(scale, bins);
  }
  zero_bytes(stream, histogram.data(), static_cast<std::size_t>(bins) * sizeof(std::uint32_t));
  return scale;
}

}  // namespace detail

/// histogram[b] = the number of samples s (of the n = samples.size()) with lower <= s < upper
/// that fall in bin b, for the bins = num_levels - 1 equal-width bins between the levels
/// lower and upper, queued on `stream` without host synchronization. The first `bins`
/// counters are overwritten (others are left alone); samples outside [lower, upper), and NaNs,
/// are not counted. The bin of s: for floats, min(int((s - lower) * (bins / (upper - lower))),
/// bins - 1), computed in T (in float for half and bfloat16); for integers, (s - lower) *
/// bins / (upper - lower), exactly. The levels are of detail::HistogramLevel<T>: T, but
/// std::int32_t for 8- and 16-bit integers (every byte in its own bin: 257 levels from 0 to
/// 256) and float for half and bfloat16. Counts are exact (integer atomics), so the result
/// is the same on every run.
///
/// num_levels >= 2, lower < upper, and for 64-bit integers (upper - lower) * bins must fit
/// in 64 bits; `histogram` holds at least `bins` counters. Both buffers are of the stream's
/// device; `samples` is 16-byte aligned. Up to kHistogramSharedBins bins, each block counts
/// in shared memory; beyond, in global memory. At most kHistogramMaxCount samples. Throws
/// cutlet::Error for bad arguments.
template <Element T>
void histogram_even(const Stream& stream, const Buffer<T>& samples, Buffer<std::uint32_t>& histogram,
                    int num_levels, std::type_identity_t<detail::HistogramLevel<T>> lower,
                    std::type_identity_t<detail::HistogramLevel<T>> upper) {
  using L = detail::HistogramLevel<T>;
  const auto range = detail::call_range<T>("histogram_even");
  const std::int32_t n = detail::checked_count(samples.size(), kHistogramMaxCount, "histogram_even");
  const detail::HistogramScale<L> scale =
      detail::prepare_histogram_even<L>(stream, histogram, num_levels, lower, upper);
  const int bins = num_levels - 1;
  if (n == 0) return;
  detail::check_device(samples.device(), stream, "histogram_even", "samples");
  detail::check_aligned(samples.data(), "histogram_even", "samples");
  const std::int64_t vectors = n / detail::kVectorLanes<T> + 1;
  if (bins <= kHistogramSharedBins) {
    const int grid = detail::streaming_grid(stream.device(), vectors, kHistogramBlock, 4);
    histogram_kernel<true, T>().launch(
        stream,
        {.grid = grid, .block = kHistogramBlock, .shared_bytes = static_cast<std::size_t>(bins) * sizeof(std::uint32_t)},
        histogram, samples, n, bins, lower, upper, scale);
  } else {
    const int grid = detail::streaming_grid(stream.device(), vectors, kHistogramBlock, 8);
    histogram_kernel<false, T>().launch(stream, {.grid = grid, .block = kHistogramBlock}, histogram, samples, n, bins,
                                        lower, upper, scale);
  }
}

/// histogram_even over the first n samples of iterator `samples` (a transform_iterator, a
/// permutation_iterator, ...; iterators.h), read one at a time (kHistogramIteratorItems per
/// thread in flight) and traced into the kernel: no buffer of the samples is made. The buffers
/// the iterator reads must be of the stream's device. At most kHistogramMaxCount samples.
template <InputIterator It>
void histogram_even(const Stream& stream, const It& samples, std::size_t n, Buffer<std::uint32_t>& histogram,
                    int num_levels, detail::HistogramLevel<typename It::value_type> lower,
                    detail::HistogramLevel<typename It::value_type> upper) {
  using T = typename It::value_type;
  using L = detail::HistogramLevel<T>;
  const auto range = detail::call_range<T>("histogram_even");
  const std::int32_t count = detail::checked_count(n, kHistogramMaxCount, "histogram_even");
  const detail::HistogramScale<L> scale =
      detail::prepare_histogram_even<L>(stream, histogram, num_levels, lower, upper);
  const int bins = num_levels - 1;
  if (count == 0) return;
  const std::int64_t tile = std::int64_t{kHistogramBlock} * detail::kHistogramIteratorItems;
  if (bins <= kHistogramSharedBins) {
    const int grid = detail::streaming_grid(stream.device(), count, tile, 4);
    detail::launch_over(histogram_iterator_kernel<true, It>(), stream,
                        {.grid = grid,
                         .block = kHistogramBlock,
                         .shared_bytes = static_cast<std::size_t>(bins) * sizeof(std::uint32_t)},
                        std::tie(samples), histogram, count, bins, lower, upper, scale);
  } else {
    const int grid = detail::streaming_grid(stream.device(), count, tile, 8);
    detail::launch_over(histogram_iterator_kernel<false, It>(), stream, {.grid = grid, .block = kHistogramBlock},
                        std::tie(samples), histogram, count, bins, lower, upper, scale);
  }
}

/// histogram[b] = the number of samples s (of the n = samples.size()) with
/// levels[b] <= s < levels[b + 1], for the bins = num_levels - 1 bins between the num_levels =
/// levels.size() ascending levels (CUB's HistogramRange), queued on `stream` without host
/// synchronization. The first `bins` counters are overwritten (others are left alone); samples
/// below levels[0] or at or above the last level, and NaNs, are not counted. A sample's bin is
/// found by binary search over the levels, kept in shared memory up to
/// kHistogramSharedLevels levels (each block counting in shared memory too), beyond that read
/// from global memory (counting with global atomics). Counts are exact. The levels are of T,
/// or of detail::HistogramLevel<T> (std::int32_t for 8- and 16-bit integers, float for half
/// and bfloat16), in which the samples are then compared.
///
/// num_levels >= 2; the levels must be in ascending order (out of order they give wrong
/// counts, never a write past the bins); `histogram` holds at least `bins` counters. All three
/// buffers are of the stream's device; `samples` is 16-byte aligned. At most
/// kHistogramMaxCount samples. Throws cutlet::Error for bad arguments.
template <Element T, Element L>
  requires std::same_as<L, T> || std::same_as<L, detail::HistogramLevel<T>>
void histogram_range(const Stream& stream, const Buffer<T>& samples, Buffer<std::uint32_t>& histogram,
                     const Buffer<L>& levels) {
  const char* name = "histogram_range";
  const auto range = detail::call_range<T>(name);
  const std::int64_t level_count = static_cast<std::int64_t>(levels.size());
  detail::check_num_levels(level_count > std::numeric_limits<int>::max() ? -1 : static_cast<int>(level_count), name);
  const int num_levels = static_cast<int>(level_count);
  const int bins = num_levels - 1;
  const std::int32_t n = detail::checked_count(samples.size(), kHistogramMaxCount, name);
  detail::check_size(histogram.size(), static_cast<std::size_t>(bins), name, "histogram");
  detail::check_device(histogram.device(), stream, name, "histogram");
  detail::check_device(levels.device(), stream, name, "levels");
  detail::zero_bytes(stream, histogram.data(), static_cast<std::size_t>(bins) * sizeof(std::uint32_t));
  if (n == 0) return;
  detail::check_device(samples.device(), stream, name, "samples");
  detail::check_aligned(samples.data(), name, "samples");
  const std::int64_t vectors = n / detail::kVectorLanes<T> + 1;
  if (num_levels <= kHistogramSharedLevels) {
    const int grid = detail::streaming_grid(stream.device(), vectors, kHistogramBlock, 4);
    histogram_range_kernel<true, T, L>().launch(
        stream,
        {.grid = grid, .block = kHistogramBlock, .shared_bytes = static_cast<std::size_t>(bins) * sizeof(std::uint32_t)},
        histogram, samples, n, levels, num_levels);
  } else {
    const int grid = detail::streaming_grid(stream.device(), vectors, kHistogramBlock, 8);
    histogram_range_kernel<false, T, L>().launch(stream, {.grid = grid, .block = kHistogramBlock}, histogram, samples,
                                                 n, levels, num_levels);
  }
}

}  // namespace cutlet::algorithms
