// segmented_reduce over buffers of user structs and over iterators, against a CPU reference:
// segment lengths around the warp and block tiles of one-at-a-time reads, empty, reversed,
// overlapping and unordered segments, both kernels on the same segments, the offsets form, an
// empty input (every segment init), outputs poisoned first (those past the segments stay so),
// results bit identical run to run.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <set>

#include "algorithms/algorithm_test_support.h"
#include "algorithms/struct_test_elements.h"
#include "gpu_test_support.h"
#include "kernel_test_support.h"

using namespace cutlet;
using namespace cutlet::test;
namespace alg = cutlet::algorithms;

namespace {

/// Segments [begin[s], end[s]) over an input of n elements.
struct Segments {
  std::size_t n = 0;
  std::vector<std::int32_t> begin, end;
};

constexpr std::size_t kWarpTile = std::size_t{32} * alg::kSegmentedReduceIteratorItems;
constexpr std::size_t kBlockTile = std::size_t{alg::kSegmentedReduceBlock} * alg::kSegmentedReduceIteratorItems;

/// Back-to-back segments of every length around the warp and block tiles, with gaps of 0 to
/// 2 elements between them; then reversed, overlapping and whole-input ones.
Segments layout() {
  std::set<std::size_t> lengths{0, 1, 2, 3, 31, 32, 33, 2 * kBlockTile + 5, 3 * kBlockTile + 77};
  for (std::size_t t : {kWarpTile, kBlockTile})
    for (std::size_t d : {t - 1, t, t + 1}) lengths.insert(d);
  Segments s;
  std::int32_t at = 0;
  for (std::size_t len : lengths)
    for (std::int32_t gap = 0; gap < 3; ++gap) {
      at += gap;
      s.begin.push_back(at);
      at += static_cast<std::int32_t>(len);
      s.end.push_back(at);
    }
  s.n = static_cast<std::size_t>(at) + 2;
  const auto n = static_cast<std::int32_t>(s.n);
  for (auto [b, e] : {std::pair{n / 2, n / 3}, std::pair{0, n}, std::pair{n / 3, n / 2 + 7}, std::pair{5, 5},
                      std::pair{n - 1, n}})
    s.begin.push_back(b), s.end.push_back(e);
  return s;
}

/// Runs `reduce(in, out, begin, end)` (a segmented_reduce) as a warp per segment (empty
/// segments appended until the mean is short) and as a block per segment (the input
/// extended until it is long), and compares each segment with the CPU's fold of `at(i)` from
/// init, twice for the same bits. `at(n)` gives element i of the (extended) input.
template <class T, class Reduce, class At, class HostOp, class Same>
void check(const Stream& st, Segments s, std::size_t long_n, const Reduce& reduce, const At& at, HostOp host_op,
           Same same, const T& init) {
  for (bool warp : {true, false}) {
    SCOPED_TRACE(warp ? "a warp per segment" : "a block per segment");
    Segments run = s;
    if (warp) {
      while (run.n / run.begin.size() > static_cast<std::size_t>(alg::kSegmentedReduceIteratorWarpMean)) {
        run.begin.push_back(0);
        run.end.push_back(0);
      }
    } else {
      run.n = long_n;
      ASSERT_GT(run.n / run.begin.size(), static_cast<std::size_t>(alg::kSegmentedReduceIteratorWarpMean));
    }
    const std::size_t segments = run.begin.size();
    Buffer<std::int32_t> begin(st, run.begin), end(st, run.end);
    auto out = poisoned<T>(st, segments + 2);
    reduce(run.n, out, begin, end);
    const std::vector<T> got = out.to_host(st);
    for (std::size_t k = 0; k < segments; ++k) {
      T want = init;
      for (std::int32_t i = run.begin[k]; i < run.end[k]; ++i) want = host_op(want, at(static_cast<std::size_t>(i)));
      ASSERT_TRUE(same(got[k], want)) << "segment " << k << " [" << run.begin[k] << ", " << run.end[k] << ")";
    }
    const T poison = poisoned<T>(st, 1).to_host(st)[0];
    for (std::size_t k = segments; k < segments + 2; ++k) ASSERT_EQ(std::memcmp(&got[k], &poison, sizeof(T)), 0);
    auto again = poisoned<T>(st, segments);
    reduce(run.n, again, begin, end);
    ASSERT_EQ(std::memcmp(again.to_host(st).data(), got.data(), segments * sizeof(T)), 0);
  }
}

template <class S, class Op>
void check_structs(const S& init) {
  Stream st;
  const Segments s = layout();
  const std::size_t long_n = s.begin.size() * (alg::kSegmentedReduceIteratorWarpMean + 1) + s.n;
  const std::vector<S> h = struct_input<S>(long_n, 31);
  Buffer<S> in(st, h);
  check<S>(
      st, s, long_n,
      [&](std::size_t n, Buffer<S>& out, const Buffer<std::int32_t>& b, const Buffer<std::int32_t>& e) {
        const auto part = Buffer<S>::wrap(in.data(), n, st.device());
        alg::segmented_reduce(st, part, out, b, e, Op{}, init);
      },
      [&](std::size_t i) { return h[i]; }, [](S a, S b) { return host_op(a, b); },
      [](const S& a, const S& b) { return same_fields(a, b); }, init);
}

TEST(AlgorithmsSegmentedReduceStructGpu, MinMaxSumOfTwelveBytes) {
  CUTLET_REQUIRE_GPU();
  const float inf = std::numeric_limits<float>::infinity();
  check_structs<MinMaxSum, MinMaxSumOp>(MinMaxSum{inf, -inf, 0.5f});
}

TEST(AlgorithmsSegmentedReduceStructGpu, ArgmaxWithCountOfSixteenBytes) {
  CUTLET_REQUIRE_GPU();
  check_structs<Best, BestOp>(Best{-std::numeric_limits<float>::infinity(), -1, 5});
}

TEST(AlgorithmsSegmentedReduceStructGpu, OffsetsFormAndEmptyInput) {
  CUTLET_REQUIRE_GPU();
  Stream st;
  const std::vector<MinMaxSum> h = struct_input<MinMaxSum>(1000, 3);
  Buffer<MinMaxSum> in(st, h);
  const std::vector<std::int32_t> offsets{0, 0, 1, 130, 130, 999, 1000};
  Buffer<std::int32_t> d_offsets(st, offsets);
  auto out = poisoned<MinMaxSum>(st, offsets.size() - 1);
  const MinMaxSum init{1e9f, -1e9f, 0.0f};
  alg::segmented_reduce(st, in, out, d_offsets, MinMaxSumOp{}, init);
  const std::vector<MinMaxSum> got = out.to_host(st);
  for (std::size_t k = 0; k + 1 < offsets.size(); ++k) {
    MinMaxSum want = init;
    for (std::int32_t i = offsets[k]; i < offsets[k + 1]; ++i) want = host_op(want, h[static_cast<std::size_t>(i)]);
    EXPECT_TRUE(same_fields(got[k], want)) << "segment " << k;
  }
  // No elements: every segment (empty, as it must be) is init.
  Buffer<MinMaxSum> none(st, std::vector<MinMaxSum>{});
  Buffer<std::int32_t> empty_segments(st, std::vector<std::int32_t>{0, 0, 0, 0});
  auto inits = poisoned<MinMaxSum>(st, 3);
  alg::segmented_reduce(st, none, inits, empty_segments, MinMaxSumOp{}, init);
  for (const MinMaxSum& x : inits.to_host(st)) EXPECT_TRUE(same_fields(x, init));
}

TEST(AlgorithmsSegmentedReduceIteratorGpu, TransformOfABufferAndACounter) {
  CUTLET_REQUIRE_GPU();
  Stream st;
  const Segments s = layout();
  const std::size_t long_n = s.begin.size() * (alg::kSegmentedReduceIteratorWarpMean + 1) + s.n;
  const std::vector<std::int32_t> h = algorithm_input<std::int32_t>(long_n, 8);
  Buffer<std::int32_t> a(st, h);
  auto square = alg::transform_iterator(a, [](i32 x) { return cast<std::int64_t>(x) * cast<std::int64_t>(x); });
  auto host_max = [](std::int64_t x, std::int64_t y) { return std::max(x, y); };
  auto equal = [](std::int64_t x, std::int64_t y) { return x == y; };
  {
    SCOPED_TRACE("the largest square of a buffer's elements");
    check<std::int64_t>(
        st, s, long_n,
        [&](std::size_t n, Buffer<std::int64_t>& out, const Buffer<std::int32_t>& b, const Buffer<std::int32_t>& e) {
          alg::segmented_reduce(st, square, n, out, b, e, alg::maximum{}, std::int64_t{-7});
        },
        [&](std::size_t i) { return static_cast<std::int64_t>(h[i]) * h[i]; }, host_max, equal, std::int64_t{-7});
  }
  {
    SCOPED_TRACE("the sum of a counter's values: no buffer at all");
    auto counter = alg::counting_iterator<std::int64_t>(-1000);
    check<std::int64_t>(
        st, s, long_n,
        [&](std::size_t n, Buffer<std::int64_t>& out, const Buffer<std::int32_t>& b, const Buffer<std::int32_t>& e) {
          alg::segmented_reduce(st, counter, n, out, b, e, [](i64 x, i64 y) { return x + y; }, std::int64_t{3});
        },
        [&](std::size_t i) { return static_cast<std::int64_t>(i) - 1000; },
        [](std::int64_t x, std::int64_t y) { return x + y; }, equal, std::int64_t{3});
  }
  {
    SCOPED_TRACE("offsets form, and n = 0");
    Buffer<std::int32_t> offsets(st, std::vector<std::int32_t>{0, 5, 5, 300});
    auto out = poisoned<std::int64_t>(st, 3);
    alg::segmented_reduce(st, square, 300, out, offsets, alg::plus{}, std::int64_t{0});
    const std::vector<std::int64_t> got = out.to_host(st);
    const std::int32_t bounds[] = {0, 5, 5, 300};
    for (std::size_t k = 0; k < 3; ++k) {
      std::int64_t want = 0;
      for (std::int32_t i = bounds[k]; i < bounds[k + 1]; ++i) want += static_cast<std::int64_t>(h[i]) * h[i];
      EXPECT_EQ(got[k], want) << "segment " << k;
    }
    Buffer<std::int32_t> empty(st, std::vector<std::int32_t>{0, 0, 0});
    auto inits = poisoned<std::int64_t>(st, 2);
    alg::segmented_reduce(st, square, 0, inits, empty, alg::plus{}, std::int64_t{42});
    EXPECT_EQ(inits.to_host(st), (std::vector<std::int64_t>{42, 42}));
  }
}

}  // namespace
