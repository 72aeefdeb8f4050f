// Vec elements (VecElement<T, N>, CUDA's float4 and kin) in the algorithms that take structs,
// against a CPU reference: reduce with a lambda over f32x4 and with the ready-made minimum and
// maximum over half2 and i8x4, the scans over i32x2 and f64x2, select_if over f32x2, unique with
// the lane-wise default equality over u16x2, a stable merge sort of f32x4 keys by two lanes, and
// transform and transform_iterator from f32x4.
// Sizes around the tiles, outputs poisoned first.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "algorithms/algorithm_test_support.h"
#include "algorithms/compaction_checks.h"
#include "gpu_test_support.h"
#include "kernel_test_support.h"

using namespace cutlet;
using namespace cutlet::test;
namespace alg = cutlet::algorithms;

namespace {

using F32x4 = alg::VecElement<float, 4>;
using F32x2 = alg::VecElement<float, 2>;
using F64x2 = alg::VecElement<double, 2>;
using I32x2 = alg::VecElement<std::int32_t, 2>;
using I8x4 = alg::VecElement<std::int8_t, 4>;
using U16x2 = alg::VecElement<std::uint16_t, 2>;
using H2 = alg::VecElement<half, 2>;

static_assert(sizeof(F32x4) == 16 && alignof(F32x4) == 16 && sizeof(F64x2) == 16 && sizeof(I32x2) == 8 &&
              alignof(I32x2) == 8 && sizeof(I8x4) == 4 && sizeof(H2) == 4);
static_assert(alg::StructElement<F32x4> && alg::StructElement<H2> && alg::StructElement<I8x4>);
static_assert(alg::BinaryOperator<alg::plus, F32x4> && alg::BinaryOperator<alg::maximum, H2>);
static_assert(alg::BinaryPredicate<alg::equal_to, U16x2>);

/// n vectors of small integers in every lane (sums exact in any order), lane k of item i
/// drawn from [-range, range] (or [0, range] for unsigned lanes).
template <class V>
std::vector<V> vec_input(std::size_t n, int range, std::uint64_t seed) {
  using T = typename V::lane_type;
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> d(std::is_unsigned_v<T> ? 0 : -range, range);
  std::vector<V> v(n);
  for (auto& x : v)
    for (auto& lane : x.lanes) lane = static_cast<T>(static_cast<float>(d(rng)));
  return v;
}

template <class V>
bool same_bits(const V& a, const V& b) {
  return std::memcmp(&a, &b, sizeof(V)) == 0;
}

template <class V>
std::string text_of(const V& v) {
  std::string s = "(";
  for (int k = 0; k < V::lane_count; ++k)
    s += (k ? ", " : "") + std::to_string(static_cast<double>(static_cast<float>(v.lanes[k])));
  return s + ")";
}

/// Sizes around `tile` and a few tiles past it.
std::vector<std::size_t> sizes_around(std::size_t tile) {
  return {0, 1, 5, tile - 1, tile, tile + 1, 3 * tile + 17, 40 * tile + 3};
}

TEST(AlgorithmsVecElementGpu, ReduceSumsFloat4WithALambda) {
  CUTLET_REQUIRE_GPU();
  Stream st;
  const std::size_t tile = std::size_t{alg::kReduceBlock} * alg::kReduceIteratorItems;
  for (std::size_t n : sizes_around(tile)) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const auto h = vec_input<F32x4>(n, 1000, 3 + n);
    const F32x4 init{{0.5f, -1.0f, 2.0f, 0.0f}};
    F32x4 want = init;
    for (const F32x4& x : h)
      for (int k = 0; k < 4; ++k) want.lanes[k] += x.lanes[k];
    Buffer<F32x4> in(st, h);
    auto out = poisoned<F32x4>(st, 1);
    alg::reduce(st, in, out, [](f32x4 a, f32x4 b) { return a + b; }, init);
    const F32x4 got = out.to_host(st)[0];
    ASSERT_TRUE(same_bits(got, want)) << text_of(got) << " != " << text_of(want);
    // The ready-made plus gives the same bits.
    const F32x4 again = alg::reduce_value(st, in, alg::plus{}, init);
    ASSERT_TRUE(same_bits(again, want)) << text_of(again);
  }
}

TEST(AlgorithmsVecElementGpu, ReduceMaximumOfHalf2AndMinimumOfInt8x4) {
  CUTLET_REQUIRE_GPU();
  Stream st;
  for (std::size_t n : {std::size_t{1}, std::size_t{777}, std::size_t{100003}}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const auto halves = vec_input<H2>(n, 2000, 5 + n);
    H2 want_max{{half(-60000.0f), half(-60000.0f)}};
    for (const H2& x : halves)
      for (int k = 0; k < 2; ++k) want_max.lanes[k] = std::max(float(want_max.lanes[k]), float(x.lanes[k]));
    const H2 got_max = alg::reduce_value(st, Buffer<H2>(st, halves), alg::maximum{}, H2{{half(-60000.0f), half(-60000.0f)}});
    ASSERT_TRUE(same_bits(got_max, want_max)) << text_of(got_max) << " != " << text_of(want_max);

    const auto bytes = vec_input<I8x4>(n, 120, 7 + n);
    I8x4 want_min{{100, 127, -3, 0}};
    for (const I8x4& x : bytes)
      for (int k = 0; k < 4; ++k) want_min.lanes[k] = std::min(want_min.lanes[k], x.lanes[k]);
    const I8x4 got_min = alg::reduce_value(st, Buffer<I8x4>(st, bytes), alg::minimum{}, I8x4{{100, 127, -3, 0}});
    ASSERT_TRUE(same_bits(got_min, want_min)) << text_of(got_min) << " != " << text_of(want_min);
  }
}

TEST(AlgorithmsVecElementGpu, InclusiveScanOfInt2AndExclusiveScanOfDouble2) {
  CUTLET_REQUIRE_GPU();
  Stream st;
  for (std::size_t n : sizes_around(alg::kScanTile<I32x2>)) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const auto h = vec_input<I32x2>(n, 1000, 11 + n);
    Buffer<I32x2> in(st, h);
    auto out = poisoned<I32x2>(st, n + 1);
    alg::inclusive_scan(st, in, out, [](i32x2 a, i32x2 b) { return a + b; });
    const auto got = out.to_host(st);
    I32x2 run{{0, 0}};
    for (std::size_t i = 0; i < n; ++i) {
      for (int k = 0; k < 2; ++k) run.lanes[k] += h[i].lanes[k];
      ASSERT_TRUE(same_bits(got[i], run)) << "item " << i << ": " << text_of(got[i]) << " != " << text_of(run);
    }
    ASSERT_EQ(got[n].lanes[0], static_cast<std::int32_t>(0xCDCDCDCDu)) << "past the end";
  }
  for (std::size_t n : sizes_around(alg::kScanTile<F64x2>)) {
    SCOPED_TRACE("double2, n = " + std::to_string(n));
    const auto h = vec_input<F64x2>(n, 1000, 13 + n);
    Buffer<F64x2> in(st, h);
    auto out = poisoned<F64x2>(st, n);
    const F64x2 init{{0.25, -8.0}};
    alg::exclusive_scan(st, in, out, alg::plus{}, init);
    const auto got = out.to_host(st);
    F64x2 run = init;
    for (std::size_t i = 0; i < n; ++i) {
      ASSERT_TRUE(same_bits(got[i], run)) << "item " << i << ": " << text_of(got[i]) << " != " << text_of(run);
      for (int k = 0; k < 2; ++k) run.lanes[k] += h[i].lanes[k];
    }
  }
}

TEST(AlgorithmsVecElementGpu, SelectIfOverFloat2) {
  CUTLET_REQUIRE_GPU();
  Stream st;
  for (std::size_t n : sizes_around(alg::kSelectTile<F32x2>)) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const auto h = vec_input<F32x2>(n, 50, 17 + n);
    std::vector<F32x2> want;
    std::copy_if(h.begin(), h.end(), std::back_inserter(want), [](const F32x2& v) { return v.lanes[0] > v.lanes[1]; });
    Buffer<F32x2> in(st, h);
    auto out = poisoned<F32x2>(st, n + 1);
    auto count = poisoned<std::int32_t>(st, 1);
    alg::select_if(st, in, out, count, [](f32x2 v) { return v[0] > v[1]; });
    expect_selected(st, want, out, count);
  }
}

TEST(AlgorithmsVecElementGpu, UniqueWithTheLaneWiseDefaultEquality) {
  CUTLET_REQUIRE_GPU();
  Stream st;
  for (std::size_t n : sizes_around(alg::kSelectTile<U16x2>)) {
    SCOPED_TRACE("n = " + std::to_string(n));
    // Runs of one vector; the values differ in one lane or the other from run to run.
    const auto h = runs_of(vec_input<U16x2>(n, 3, 19 + n), 1, 9, 19 + n);
    std::vector<U16x2> want;
    for (std::size_t i = 0; i < n; ++i)
      if (i == 0 || !same_bits(h[i], h[i - 1])) want.push_back(h[i]);
    Buffer<U16x2> in(st, h);
    auto out = poisoned<U16x2>(st, n + 1);
    auto count = poisoned<std::int32_t>(st, 1);
    alg::unique(st, in, out, count);
    expect_selected(st, want, out, count);
  }
}

TEST(AlgorithmsVecElementGpu, StableMergeSortOfFloat4KeysByTwoLanes) {
  CUTLET_REQUIRE_GPU();
  Stream st;
  for (std::size_t n : sizes_around(alg::kMergeSortTile<F32x4>)) {
    SCOPED_TRACE("n = " + std::to_string(n));
    auto h = vec_input<F32x4>(n, 6, 23 + n);  // few distinct (lane 0, lane 1) pairs: many ties
    for (std::size_t i = 0; i < n; ++i) h[i].lanes[3] = static_cast<float>(i);  // tells ties apart
    std::vector<F32x4> want = h;
    std::stable_sort(want.begin(), want.end(), [](const F32x4& a, const F32x4& b) {
      return a.lanes[0] < b.lanes[0] || (a.lanes[0] == b.lanes[0] && a.lanes[1] > b.lanes[1]);
    });
    Buffer<F32x4> keys(st, h);
    auto sorted = poisoned<F32x4>(st, n);
    alg::merge_sort_keys(st, keys, sorted,
                         [](f32x4 a, f32x4 b) { return (a[0] < b[0]) | ((a[0] == b[0]) & (a[1] > b[1])); });
    const auto got = sorted.to_host(st);
    for (std::size_t i = 0; i < n; ++i)
      ASSERT_TRUE(same_bits(got[i], want[i])) << "item " << i << ": " << text_of(got[i]) << " != " << text_of(want[i]);
  }
}

TEST(AlgorithmsVecElementGpu, TransformAndTransformIteratorOverFloat4) {
  CUTLET_REQUIRE_GPU();
  Stream st;
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{1000}, std::size_t{70001}}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const auto h = vec_input<F32x4>(n, 10, 29 + n);  // |lane products| <= 100: sums below 2^24
    Buffer<F32x4> in(st, h);
    // Vec to Vec: every lane doubled, one added.
    auto out = poisoned<F32x4>(st, n + 1);
    alg::transform(st, in, n, out, [](f32x4 v) { return v * 2.0f + 1.0f; });
    const auto got = out.to_host(st);
    for (std::size_t i = 0; i < n; ++i) {
      F32x4 want = h[i];
      for (float& lane : want.lanes) lane = lane * 2.0f + 1.0f;
      ASSERT_TRUE(same_bits(got[i], want)) << "item " << i << ": " << text_of(got[i]);
    }
    // Vec to a number, read through a transform_iterator by reduce: the sum of lane products.
    double want_sum = 0;
    for (const F32x4& x : h) want_sum += x.lanes[0] * x.lanes[1];
    const float sum =
        alg::reduce_value(st, alg::transform_iterator(in, [](f32x4 v) { return v[0] * v[1]; }), n, alg::plus{}, 0.0f);
    ASSERT_EQ(sum, static_cast<float>(want_sum));  // integers below 2^24: exact in any order
  }
}

}  // namespace
