// lower_bound and upper_bound: one binary search per needle in a sorted buffer, with a user
// comparator (std::lower_bound / std::upper_bound for many values at once; CUB's
// DeviceFind::LowerBound and UpperBound).
#pragma once

#include <cstdint>
#include <limits>
#include <string>

#include "cutlet/algorithms/detail/call_range.h"
#include "cutlet/algorithms/detail/host_checks.h"
#include "cutlet/algorithms/detail/launch_shape.h"
#include "cutlet/algorithms/element.h"
#include "cutlet/algorithms/operators.h"
#include "cutlet/algorithms/workspace.h"
#include "cutlet/jit/kernel.h"
#include "cutlet/language/control.h"
#include "cutlet/language/index.h"
#include "cutlet/language/memory.h"
#include "cutlet/language/pointer.h"
#include "cutlet/runtime/buffer.h"
#include "cutlet/runtime/stream.h"

namespace cutlet::algorithms {

/// Threads per block of the bounds kernels.
inline constexpr int kBoundsBlock = 256;
/// Blocks per SM of their grid-stride loop.
inline constexpr int kBoundsBlocksPerSm = 8;
/// The most elements the sorted buffer, and the most needles, the bounds take.
inline constexpr std::int64_t kBoundsMaxCount = std::numeric_limits<std::int32_t>::max();

namespace detail {

/// out[i] for each needle i < m: the first position p of sorted[0, n) where
/// comp(sorted[p], needle) is false (lower bound), or where comp(needle, sorted[p]) is true
/// (Upper), n when there is none. std::lower_bound's halving, with the step taken by a
/// select: every thread of a warp runs the same number of steps, within one, and takes no
/// branch on the data. The sorted buffer is read through the read-only cache, where the
/// first steps of every search hit the same few elements.
template <bool Upper, class T, class Comp>
void bounds_body(const Ptr<std::int32_t>& out, const Ptr<T>& sorted, const i32& n, const Ptr<T>& needles,
                 const i32& m) {
  const Comp comp{};
  for_range(block_idx().x * kBoundsBlock + thread_idx().x, m, grid_dim().x * kBoundsBlock, [&](i32 i) {
    Value<T> needle = needles[i];
    Var<std::int32_t> first = 0;
    Var<std::int32_t> count = n;
    while_([&] { return count.get() > 0; }, [&] {
      i32 step = count.get() >> 1;
      i32 probe = first.get() + step;
      Value<T> x = sorted.load(probe, CacheHint::ReadOnly);
      Value<bool> after = Upper ? !call_pred<T>(comp, needle, x) : call_pred<T>(comp, x, needle);
      first = select(after, probe + 1, first.get());
      count = select(after, count.get() - step - 1, step);
    });
    out[i] = first.get();
  });
}

/// Makes the kernel of lower_bound (Upper false) or upper_bound (true) for (T, Comp).
template <bool Upper, class T, class Comp>
auto make_bounds_kernel() {
  return cutlet::kernel(
      [](Ptr<std::int32_t> out, Ptr<T> sorted, i32 n, Ptr<T> needles, i32 m) {
        bounds_body<Upper, T, Comp>(out, sorted, n, needles, m);
      },
      {.name = std::string(Upper ? "cutlet_upper_bound_" : "cutlet_lower_bound_") + element_name<T>()});
}

/// Checks the arguments of a bounds call and queues its kernel.
template <bool Upper, class T, class Kernel>
void launch_bounds(Kernel& kernel, const Stream& stream, const Buffer<T>& sorted, const Buffer<T>& needles,
                   Buffer<std::int32_t>& out, const char* algorithm) {
  const auto range = call_range<T>(algorithm);
  const std::int32_t n = checked_count(sorted.size(), kBoundsMaxCount, algorithm);
  const std::int32_t m = checked_count(needles.size(), kBoundsMaxCount, algorithm, "needles");
  if (m == 0) return;
  check_size(out.size(), static_cast<std::size_t>(m), algorithm, "output");
  check_device(needles.device(), stream, algorithm, "needles");
  check_device(out.device(), stream, algorithm, "output");
  if (n == 0) {  // every needle's position in an empty range is 0
    zero_bytes(stream, out.data(), static_cast<std::size_t>(m) * sizeof(std::int32_t));
    return;
  }
  check_device(sorted.device(), stream, algorithm, "sorted input");
  const int grid = streaming_grid(stream.device(), m, kBoundsBlock, kBoundsBlocksPerSm);
  kernel.launch(stream, {.grid = grid, .block = kBoundsBlock}, out, sorted, n, needles, m);
}

}  // namespace detail

/// The kernel of lower_bound (Upper false) or upper_bound (true) for element type T and
/// comparator type Comp (made at the first use, then shared), for inspection and compiling
/// ahead.
template <bool Upper, Element T, class Comp>
  requires BinaryPredicate<Comp, T>
auto& bounds_kernel() {
  static auto k = detail::make_bounds_kernel<Upper, T, Comp>();
  return k;
}

/// For each of the m = needles.size() needles, out[i] = the first position p in sorted[0, n)
/// (n = sorted.size()) with !comp(sorted[p], needles[i]), or n if there is none: where
/// needles[i] would go before the elements equivalent to it (std::lower_bound). `sorted` must be
/// ordered by `comp` (a strict weak order; `less` by default, `greater` for descending);
/// otherwise the positions are unspecified but in [0, n]. Queued on `stream`, no host
/// synchronization. `out` holds at least m positions; the buffers are of the stream's device.
/// At most kBoundsMaxCount elements and needles. Throws cutlet::Error for bad arguments.
template <Element T, class Comp = less>
  requires BinaryPredicate<Comp, T>
void lower_bound(const Stream& stream, const Buffer<T>& sorted, const Buffer<T>& needles, Buffer<std::int32_t>& out,
                 Comp comp = {}) {
  detail::launch_bounds<false>(bounds_kernel<false, T, Comp>(), stream, sorted, needles, out, "lower_bound");
}

/// As lower_bound, with out[i] = the first position p with comp(needles[i], sorted[p]), or n:
/// where needles[i] would go after the elements equivalent to it (std::upper_bound).
template <Element T, class Comp = less>
  requires BinaryPredicate<Comp, T>
void upper_bound(const Stream& stream, const Buffer<T>& sorted, const Buffer<T>& needles, Buffer<std::int32_t>& out,
                 Comp comp = {}) {
  detail::launch_bounds<true>(bounds_kernel<true, T, Comp>(), stream, sorted, needles, out, "upper_bound");
}

}  // namespace cutlet::algorithms
