// The iterators traced into the algorithms, against the same sequences made on the host:
// reduce over counting, constant, transform (of a buffer and of a zip), permutation,
// reverse and cache-modified iterators, and compositions of them; sizes around reduce's
// tiles and past 2^31 elements (a counting iterator, on the GPU); transform from iterators
// into a buffer, a scatter (a permutation as output), a reversed output and a discard;
// histogram_even of a transform iterator. Outputs are poisoned first.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <numeric>
#include <vector>

#include "algorithms/algorithm_test_support.h"
#include "gpu_test_support.h"
#include "kernel_test_support.h"

using namespace cutlet;
using namespace cutlet::test;
namespace alg = cutlet::algorithms;

namespace {

/// Sizes around the iterator reduce's tile (kReduceBlock * kReduceIteratorItems elements).
std::vector<std::size_t> iterator_sizes() {
  return boundary_sizes(alg::kReduceBlock * alg::kReduceIteratorItems, 40);
}

/// Random integers in [0, 1000), as i32.
std::vector<std::int32_t> small_ints(std::size_t n, unsigned seed) {
  std::vector<std::int32_t> v = algorithm_input<std::int32_t>(n, seed);
  for (auto& x : v) x = (x + 1000) % 1000;
  return v;
}

TEST(AlgorithmsIteratorsGpu, ReduceOverCountingAndConstantIterators) {
  CUTLET_REQUIRE_GPU();
  Stream st;
  for (std::size_t n : iterator_sizes()) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const auto m = static_cast<std::int64_t>(n);
    // 7 + 8 + ... + (7 + n - 1), plus the init.
    EXPECT_EQ(alg::reduce_value(st, alg::counting_iterator<std::int64_t>(7), n, alg::plus{}, std::int64_t{3}),
              3 + 7 * m + m * (m - 1) / 2);
    EXPECT_EQ(alg::reduce_value(st, alg::constant_iterator<std::uint32_t>(5u), n, alg::plus{}, 1u),
              static_cast<std::uint32_t>(1 + 5 * n));
    // The largest of a counter is its last element.
    if (n > 0) {
      EXPECT_EQ(alg::reduce_value(st, alg::counting_iterator<std::int32_t>(-100), n, alg::maximum{},
                                  std::numeric_limits<std::int32_t>::min()),
                static_cast<std::int32_t>(-100 + m - 1));
    }
  }
}

TEST(AlgorithmsIteratorsGpu, ReduceOverTransformsOfBuffersAndZips) {
  CUTLET_REQUIRE_GPU();
  Stream st;
  for (std::size_t n : iterator_sizes()) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const auto ha = small_ints(n, 11 + n);
    const auto hb = small_ints(n, 12 + n);
    Buffer<std::int32_t> a(st, ha), b(st, hb);
    std::int64_t squares = 0, dot = 0, reversed_dot = 0;
    for (std::size_t i = 0; i < n; ++i) {
      squares += std::int64_t{ha[i]} * ha[i];
      dot += std::int64_t{ha[i]} * hb[i];
      reversed_dot += std::int64_t{ha[i]} * hb[n - 1 - i];
    }
    // The element type deduced from the lambda (i64), and named (transform_iterator<i64>).
    auto square = alg::transform_iterator(a, [](i32 x) { return cast<std::int64_t>(x) * cast<std::int64_t>(x); });
    EXPECT_EQ(alg::reduce_value(st, square, n, alg::plus{}, std::int64_t{0}), squares);
    auto product = [](i32 x, i32 y) { return cast<std::int64_t>(x * y); };
    EXPECT_EQ(alg::reduce_value(st, alg::transform_iterator<std::int64_t>(alg::zip_iterator(a, b), product), n,
                                alg::plus{}, std::int64_t{0}),
              dot);
    EXPECT_EQ(alg::reduce_value(st,
                                alg::transform_iterator(alg::zip_iterator(a, alg::reverse_iterator(b, n)), product),
                                n, alg::plus{}, std::int64_t{0}),
              reversed_dot);
  }
}

TEST(AlgorithmsIteratorsGpu, ReduceOverPermutationAndCacheModifiedIterators) {
  CUTLET_REQUIRE_GPU();
  Stream st;
  const std::vector<float> hx = algorithm_input<float>(5000, 5);
  Buffer<float> x(st, hx);
  for (std::size_t n : iterator_sizes()) {
    SCOPED_TRACE("n = " + std::to_string(n));
    // Indices into x, with repeats: a gather of n of its 5000 elements.
    std::vector<std::int64_t> hidx(n);
    for (std::size_t i = 0; i < n; ++i) hidx[i] = static_cast<std::int64_t>((i * 7919) % hx.size());
    Buffer<std::int64_t> idx(st, hidx);
    float want_max = -INFINITY;
    for (std::int64_t i : hidx) want_max = std::max(want_max, hx[static_cast<std::size_t>(i)]);
    EXPECT_EQ(alg::reduce_value(st, alg::permutation_iterator(x, idx), n, alg::maximum{}, -INFINITY), want_max);
    // A permutation whose indices are themselves computed: x[(3 * i) % 5000].
    auto spread = alg::transform_iterator(alg::counting_iterator<std::int32_t>(0),
                                          [](i32 i) { return (i * 3) % 5000; });
    float want_min = INFINITY;
    for (std::size_t i = 0; i < n; ++i) want_min = std::min(want_min, hx[(3 * i) % 5000]);
    EXPECT_EQ(alg::reduce_value(st, alg::permutation_iterator(x, spread), n, alg::minimum{}, INFINITY), want_min);
  }
  // Cache-modified reads give the buffer's own values.
  double want = 0;
  for (float v : hx) want += v;
  for (auto got : {alg::reduce_value(st, alg::cache_modified_iterator<CacheHint::Streaming>(x), hx.size(), alg::plus{},
                                     0.0f),
                   alg::reduce_value(st, alg::cache_modified_iterator<CacheHint::ReadOnly>(x), hx.size(), alg::plus{},
                                     0.0f)})
    EXPECT_NEAR(got, want, 1e-3);
}

TEST(AlgorithmsIteratorsGpu, ReduceOfACounterPastTwoToThe31Elements) {
  CUTLET_REQUIRE_GPU();
  Stream st;
  const std::uint64_t n = (std::uint64_t{1} << 31) + 77;
  // No memory for the elements: they are computed where they are read. 0 + 1 + ... + (n-1).
  EXPECT_EQ(alg::reduce_value(st, alg::counting_iterator<std::uint64_t>(0), n, alg::plus{}, std::uint64_t{0}),
            n * (n - 1) / 2);
}

TEST(AlgorithmsIteratorsGpu, TransformFromIteratorsIntoBuffersScattersReversalsAndDiscards) {
  CUTLET_REQUIRE_GPU();
  Stream st;
  for (std::size_t n : iterator_sizes()) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const auto ha = small_ints(n, 21 + n);
    Buffer<std::int32_t> a(st, ha);
    // out[i] = 2 * a[i] + i, from a zip of the buffer and a counter.
    auto out = poisoned<std::int32_t>(st, n + 2);
    alg::transform(st, alg::zip_iterator(a, alg::counting_iterator<std::int32_t>(0)), n, out,
                   [](i32 x, i32 i) { return 2 * x + i; });
    const auto got = out.to_host(st);
    const std::int32_t poison = poisoned<std::int32_t>(st, 1).to_host(st)[0];
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(got[i], 2 * ha[i] + static_cast<std::int32_t>(i)) << i;
    EXPECT_EQ(got[n], poison);
    EXPECT_EQ(got[n + 1], poison);
    // A scatter: reversed[n - 1 - i] = a[i], through a permutation as the output.
    auto reversed = poisoned<std::int32_t>(st, n);
    alg::transform(st, a, n, alg::reverse_iterator(reversed, n), [](i32 x) { return x; });
    const auto r = reversed.to_host(st);
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(r[n - 1 - i], ha[i]) << i;
    std::vector<std::int64_t> hperm(n);
    std::iota(hperm.begin(), hperm.end(), std::int64_t{0});
    std::mt19937_64 rng(n);
    std::shuffle(hperm.begin(), hperm.end(), rng);
    Buffer<std::int64_t> perm(st, hperm);
    auto scattered = poisoned<float>(st, n);
    alg::transform(st, a, n, alg::permutation_iterator(scattered, perm), [](i32 x) { return cast<float>(x) * 0.5f; });
    const auto sc = scattered.to_host(st);
    for (std::size_t i = 0; i < n; ++i)
      ASSERT_EQ(sc[static_cast<std::size_t>(hperm[i])], static_cast<float>(ha[i]) * 0.5f) << i;
    // A gather with the ready-made identity: gathered[i] = a[perm[i]].
    auto gathered = poisoned<std::int32_t>(st, n);
    alg::transform(st, alg::permutation_iterator(a, perm), n, gathered, alg::identity{});
    const auto g = gathered.to_host(st);
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(g[i], ha[static_cast<std::size_t>(hperm[i])]) << i;
    // Written to nowhere: nothing to check but that it runs.
    alg::transform(st, a, n, alg::discard_iterator<std::int32_t>(), [](i32 x) { return x + 1; });
    st.synchronize();
  }
}

TEST(AlgorithmsIteratorsGpu, HistogramOfATransformIterator) {
  CUTLET_REQUIRE_GPU();
  Stream st;
  for (std::size_t n : iterator_sizes()) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const auto hx = algorithm_input<float>(n, 31 + n);
    Buffer<float> x(st, hx);
    // The histogram of |x| in 16 bins over [0, 1): no buffer of |x| is made.
    auto magnitude = alg::transform_iterator(x, [](f32 v) { return abs(v); });
    auto hist = poisoned<std::uint32_t>(st, 16);
    alg::histogram_even(st, magnitude, n, hist, 17, 0.0f, 1.0f);
    std::vector<std::uint32_t> want(16, 0);
    const float scale = 16.0f / 1.0f;
    for (float v : hx) {
      const float m = std::fabs(v);
      if (m >= 0.0f && m < 1.0f) ++want[std::min(static_cast<std::size_t>((m - 0.0f) * scale), std::size_t{15})];
    }
    EXPECT_EQ(hist.to_host(st), want);
  }
}

}  // namespace
