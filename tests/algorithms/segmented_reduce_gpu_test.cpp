// segmented_reduce against a CPU reference: every element type, segment lengths around the
// vector, warp-tile and block-tile boundaries at every misalignment, empty, reversed,
// overlapping and unordered segments, both kernels (a warp per segment when segments are
// short on average, a block per segment otherwise) on the same segments, user lambdas,
// outputs poisoned first (the elements past the segments stay so), run-to-run identical
// results, the single-offsets form and the argument checks.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "algorithms/algorithm_test_support.h"
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

/// Elements of T in a 16-byte vector, in a warp's tile and in a block's tile.
template <class T>
constexpr std::size_t kLanes = 16 / sizeof(T);
template <class T>
constexpr std::size_t kWarpTile = std::size_t{32} * alg::kSegmentedReduceUnroll * kLanes<T>;
template <class T>
constexpr std::size_t kBlockTile = std::size_t{alg::kSegmentedReduceBlock} * alg::kSegmentedReduceUnroll * kLanes<T>;

/// Back-to-back segments of every length around the vector, warp-tile and block-tile
/// boundaries, each starting at every offset from a 16-byte boundary (a gap of 0..V-1
/// elements before it, left out of every segment).
template <class T>
Segments boundary_segments() {
  const std::size_t v = kLanes<T>, w = kWarpTile<T>, b = kBlockTile<T>;
  std::set<std::size_t> lengths{0, 1, 2, 3, 4, 5, 7, 8, 9, 31, 32, 33, 2 * w + 3, 2 * b + v + 1, 3 * b + 5};
  for (std::size_t t : {v, w, b})
    for (std::size_t d : {t - 1, t, t + 1}) lengths.insert(d);
  Segments s;
  std::int32_t at = 0;
  for (std::size_t len : lengths)
    for (std::size_t gap = 0; gap < v; ++gap) {
      at += static_cast<std::int32_t>(gap);
      s.begin.push_back(at);
      at += static_cast<std::int32_t>(len);
      s.end.push_back(at);
    }
  s.n = static_cast<std::size_t>(at) + 3;  // a few elements past the last segment
  return s;
}

/// `count` back-to-back segments of random lengths in [0, max_length], starting anywhere.
inline Segments random_segments(std::size_t count, std::size_t max_length, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::size_t> d(0, max_length);
  Segments s;
  std::int32_t at = static_cast<std::int32_t>(d(rng) % 5);
  for (std::size_t i = 0; i < count; ++i) {
    s.begin.push_back(at);
    at += static_cast<std::int32_t>(d(rng));
    s.end.push_back(at);
  }
  s.n = static_cast<std::size_t>(at);
  return s;
}

/// Segments in no order: reversed (empty), overlapping, the whole input, empty ones.
inline Segments unordered_segments(std::size_t n) {
  const auto i = [](std::size_t x) { return static_cast<std::int32_t>(x); };
  Segments s;
  s.n = n;
  s.begin = {i(n / 2), i(10), 0, i(n / 3), 3, 0, i(n - 1), i(n / 2) + 1};
  s.end = {i(n), i(5), i(n), i(n / 2 + 7), 3, i(n / 2), i(n), i(n / 2)};
  return s;
}

/// The CPU's out[s]: init op x[b] op ... op x[e - 1] in order.
template <class T, class HostOp>
std::vector<T> host_segmented_reduce(const std::vector<T>& x, const Segments& s, HostOp host_op, T init) {
  std::vector<T> r;
  for (std::size_t k = 0; k < s.begin.size(); ++k) {
    T acc = init;
    for (std::int32_t i = s.begin[k]; i < s.end[k]; ++i) acc = host_op(acc, x[static_cast<std::size_t>(i)]);
    r.push_back(acc);
  }
  return r;
}

/// Runs segmented_reduce on `s` twice, once as a warp per segment (empty segments appended
/// until the mean length is short) and once as a block per segment (the input padded until it
/// is long), and compares every segment's result with the CPU's: exactly, or (float sums,
/// `tolerance` > 0) within tolerance of the segment's sum of |x|. Float sums are also run
/// twice and compared bit for bit.
template <class T, class Op, class HostOp>
void check_segments(const Stream& st, const Segments& s, Op op, HostOp host_op, T init, double tolerance) {
  const std::vector<T> h = algorithm_input<T>(s.n, 2000 + s.n);
  for (bool warp : {true, false}) {
    SCOPED_TRACE(warp ? "a warp per segment" : "a block per segment");
    Segments run = s;
    std::vector<T> data = h;
    const auto mean = [&] { return static_cast<std::int64_t>(data.size()) / static_cast<std::int64_t>(run.begin.size()); };
    if (warp) {
      while (mean() > alg::kSegmentedReduceWarpMean<T>) {
        run.begin.push_back(0);
        run.end.push_back(0);
      }
    } else {
      const auto pad = algorithm_input<T>(run.begin.size() * (alg::kSegmentedReduceWarpMean<T> + 1), 7);
      data.insert(data.end(), pad.begin(), pad.end());
      ASSERT_GT(mean(), alg::kSegmentedReduceWarpMean<T>);
    }
    const std::size_t segments = run.begin.size();
    Buffer<T> in(st, data);
    Buffer<std::int32_t> begin(st, run.begin), end(st, run.end);
    auto out = poisoned<T>(st, segments + 2);
    alg::segmented_reduce(st, in, out, begin, end, op, init);
    const std::vector<T> got = out.to_host(st);
    const std::vector<T> want = host_segmented_reduce(data, run, host_op, init);
    for (std::size_t k = 0; k < segments; ++k) {
      const std::string where = "segment " + std::to_string(k) + " [" + std::to_string(run.begin[k]) + ", " +
                                std::to_string(run.end[k]) + ")";
      if (tolerance == 0) {
        ASSERT_EQ(got[k], want[k]) << where;
      } else {
        double sum = static_cast<double>(init), magnitude = std::fabs(sum);
        for (std::int32_t i = run.begin[k]; i < run.end[k]; ++i) {
          sum += static_cast<double>(data[static_cast<std::size_t>(i)]);
          magnitude += std::fabs(static_cast<double>(data[static_cast<std::size_t>(i)]));
        }
        ASSERT_NEAR(static_cast<double>(got[k]), sum, tolerance * (magnitude + 1)) << where;
      }
    }
    const T poison = poisoned<T>(st, 1).to_host(st)[0];
    for (std::size_t k = segments; k < segments + 2; ++k) ASSERT_EQ(std::memcmp(&got[k], &poison, sizeof(T)), 0);
    if (tolerance != 0) {
      auto again = poisoned<T>(st, segments);
      alg::segmented_reduce(st, in, again, begin, end, op, init);
      ASSERT_EQ(std::memcmp(again.to_host(st).data(), got.data(), segments * sizeof(T)), 0);
    }
  }
}

/// Every segment layout with `op`.
template <class T, class Op, class HostOp>
void check_layouts(Op op, HostOp host_op, T init, double tolerance) {
  Stream st;
  SCOPED_TRACE(element_label<T>());
  {
    SCOPED_TRACE("boundary lengths");
    check_segments<T>(st, boundary_segments<T>(), op, host_op, init, tolerance);
  }
  {
    SCOPED_TRACE("random long segments");
    check_segments<T>(st, random_segments(300, 3 * kBlockTile<T>, 11), op, host_op, init, tolerance);
  }
  {
    SCOPED_TRACE("random short segments");
    check_segments<T>(st, random_segments(5000, 70, 12), op, host_op, init, tolerance);
  }
  {
    SCOPED_TRACE("unordered segments");
    check_segments<T>(st, unordered_segments(2 * kBlockTile<T> + 77), op, host_op, init, tolerance);
  }
  {
    SCOPED_TRACE("one element, one segment");
    Segments one;
    one.n = 1;
    one.begin = {0};
    one.end = {1};
    check_segments<T>(st, one, op, host_op, init, tolerance);
  }
}

template <class T>
void check_type() {
  const double sum_tolerance = std::is_same_v<T, float> ? 1e-5 : std::is_same_v<T, double> ? 1e-12 : 0.0;
  check_layouts<T>(alg::plus{}, [](T a, T b) { return T(a + b); }, T(7), sum_tolerance);
  check_layouts<T>(alg::maximum{}, [](T a, T b) { return std::max(a, b); }, std::numeric_limits<T>::lowest(), 0.0);
  // A user lambda: the larger magnitude, the larger value among equal ones (a total order,
  // so commutative and associative); init 3 shows in the short segments.
  check_layouts<T>([](Value<T> a, Value<T> b) { return select((a * a > b * b) | ((a * a == b * b) & (a > b)), a, b); },
                   [](T a, T b) { return (a * a > b * b) || (a * a == b * b && a > b) ? a : b; }, T(3), 0.0);
}

TEST(AlgorithmsSegmentedReduceGpu, Float) {
  CUTLET_REQUIRE_GPU();
  check_type<float>();
}
TEST(AlgorithmsSegmentedReduceGpu, Double) {
  CUTLET_REQUIRE_GPU();
  check_type<double>();
}
TEST(AlgorithmsSegmentedReduceGpu, Int32) {
  CUTLET_REQUIRE_GPU();
  check_type<std::int32_t>();
}
TEST(AlgorithmsSegmentedReduceGpu, UInt32) {
  CUTLET_REQUIRE_GPU();
  check_type<std::uint32_t>();
}
TEST(AlgorithmsSegmentedReduceGpu, Int64) {
  CUTLET_REQUIRE_GPU();
  check_type<std::int64_t>();
}
TEST(AlgorithmsSegmentedReduceGpu, UInt64AndBitwise) {
  CUTLET_REQUIRE_GPU();
  check_type<std::uint64_t>();
  check_layouts<std::uint64_t>(alg::bit_xor{}, [](std::uint64_t a, std::uint64_t b) { return a ^ b; },
                               std::uint64_t{0x5555}, 0.0);
}

TEST(AlgorithmsSegmentedReduceGpu, OneOffsetsBuffer) {
  CUTLET_REQUIRE_GPU();
  Stream st;
  // S + 1 offsets: segment s is [offsets[s], offsets[s + 1]).
  const Segments s = random_segments(777, 900, 5);
  std::vector<std::int32_t> offsets = s.begin;
  offsets.push_back(s.end.back());
  const auto h = algorithm_input<std::int32_t>(s.n, 6);
  Buffer<std::int32_t> in(st, h), off(st, offsets);
  auto out = poisoned<std::int32_t>(st, s.begin.size());
  alg::segmented_reduce(st, in, out, off, alg::plus{}, std::int32_t{-4});
  EXPECT_EQ(out.to_host(st), host_segmented_reduce(h, s, [](std::int32_t a, std::int32_t b) { return a + b; },
                                                   std::int32_t{-4}));
  // One offset, or none: no segment, nothing written.
  Buffer<std::int32_t> single(st, std::vector<std::int32_t>{0});
  auto untouched = poisoned<std::int32_t>(st, 1);
  alg::segmented_reduce(st, in, untouched, single, alg::plus{}, std::int32_t{0});
  EXPECT_EQ(untouched.to_host(st)[0], static_cast<std::int32_t>(0xCDCDCDCDu));
}

TEST(AlgorithmsSegmentedReduceGpu, EmptyInputGivesInit) {
  CUTLET_REQUIRE_GPU();
  Stream st;
  Buffer<float> empty;
  Buffer<std::int32_t> zeros(st, std::vector<std::int32_t>(5, 0));
  auto out = poisoned<float>(st, 5);
  alg::segmented_reduce(st, empty, out, zeros, zeros, alg::plus{}, 2.5f);
  EXPECT_EQ(out.to_host(st), std::vector<float>(5, 2.5f));
}

TEST(AlgorithmsSegmentedReduceGpu, ArgumentChecks) {
  CUTLET_REQUIRE_GPU();
  Stream st;
  Buffer<float> in(st, algorithm_input<float>(100, 1));
  Buffer<std::int32_t> begin(st, std::vector<std::int32_t>{0, 10, 20}), end(st, std::vector<std::int32_t>{10, 20});
  auto out = poisoned<float>(st, 3);
  EXPECT_NE(message_of([&] { alg::segmented_reduce(st, in, out, begin, end, alg::plus{}, 0.0f); })
                .find("end offsets buffer holds 2 elements but 3"),
            std::string::npos);
  auto short_out = poisoned<float>(st, 2);
  EXPECT_NE(message_of([&] { alg::segmented_reduce(st, in, short_out, begin, begin, alg::plus{}, 0.0f); })
                .find("output buffer holds 2 elements but 3"),
            std::string::npos);
  auto shifted = Buffer<float>::wrap(in.data() + 4, 90, st.device());
  EXPECT_NE(message_of([&] { alg::segmented_reduce(st, shifted, out, begin, begin, alg::plus{}, 0.0f); })
                .find("not 16-byte aligned"),
            std::string::npos);
}

}  // namespace
