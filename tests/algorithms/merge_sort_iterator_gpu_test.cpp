// merge_sort_keys and merge_sort_pairs over input iterators against std::stable_sort: keys
// from a transform of a buffer, from a transform of a zip of two buffers, from a permutation
// of a buffer (numbers and user structs); values from a counting_iterator (each key's input
// position: stability made visible) or from a buffer; a user comparator (descending by
// absolute value, with many ties); sizes 0, 1, around the tile boundaries and several merge
// passes; outputs poisoned first; the argument checks.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <random>

#include "algorithms/algorithm_test_support.h"
#include "algorithms/compaction_checks.h"
#include "algorithms/struct_test_elements.h"
#include "gpu_test_support.h"
#include "kernel_test_support.h"

using namespace cutlet;
using namespace cutlet::test;
namespace alg = cutlet::algorithms;

namespace {

/// Random keys in [-1000, 1000], the first 777 (never all zero).
std::vector<std::int32_t> random_ints(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::int32_t> d(-1000, 1000);
  std::vector<std::int32_t> v(n);
  for (auto& x : v) x = d(rng);
  if (n > 0) v[0] = 777;  // never all zeros
  return v;
}

/// 3x - 7: a transform that reorders nothing but changes every key.
struct ThreeXMinus7 {
  i32 operator()(i32 x) const { return x * 3 - 7; }
};
/// The float key of an integer: x / 2 (equal absolute values for x and -x: ties).
struct HalfOf {
  f32 operator()(i32 x) const { return cast<float>(x) * 0.5f; }
};
/// Descending by absolute value.
struct AbsGreater {
  Value<bool> operator()(f32 a, f32 b) const { return abs(a) > abs(b); }
};
bool host_abs_greater(float a, float b) { return std::fabs(a) > std::fabs(b); }
/// a * 16 + (b & 15): a key from two buffers read in step.
struct Combine {
  i32 operator()(i32 a, i32 b) const { return a * 16 + (b & 15); }
};

std::vector<std::size_t> int_sizes() { return boundary_sizes(alg::kMergeSortTile<std::int32_t>, 3); }

/// The positions 0..n-1 in the stable order of keys by comp.
template <class K, class Comp>
std::vector<std::int32_t> stable_order(const std::vector<K>& keys, Comp comp) {
  std::vector<std::int32_t> order(keys.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::int32_t a, std::int32_t b) { return comp(keys[a], keys[b]); });
  return order;
}

TEST(AlgorithmsMergeSortIteratorGpu, KeysFromTransform) {
  CUTLET_REQUIRE_GPU();
  Stream st;
  for (std::size_t n : int_sizes()) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const auto h = random_ints(n, 40 + n);
    Buffer<std::int32_t> in(st, h);
    auto out = poisoned<std::int32_t>(st, n + 3);
    alg::merge_sort_keys(st, alg::transform_iterator(in, ThreeXMinus7{}), n, out);
    std::vector<std::int32_t> want(n);
    for (std::size_t i = 0; i < n; ++i) want[i] = h[i] * 3 - 7;
    std::stable_sort(want.begin(), want.end());
    expect_prefix(out.to_host(st), want, "key");
    // The input is left alone.
    EXPECT_EQ(in.to_host(st), h);
  }
}

TEST(AlgorithmsMergeSortIteratorGpu, KeysFromTransformOfZip) {
  CUTLET_REQUIRE_GPU();
  Stream st;
  for (std::size_t n : {std::size_t{1}, std::size_t{alg::kMergeSortTile<std::int32_t>} + 1,
                        5 * std::size_t{alg::kMergeSortTile<std::int32_t>} + 77}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const auto a = random_ints(n, 7 + n);
    const auto b = random_ints(n, 8 + n);
    Buffer<std::int32_t> da(st, a), db(st, b);
    auto out = poisoned<std::int32_t>(st, n);
    alg::merge_sort_keys(st, alg::transform_iterator(alg::zip_iterator(da, db), Combine{}), n, out);
    std::vector<std::int32_t> want(n);
    for (std::size_t i = 0; i < n; ++i) want[i] = a[i] * 16 + (b[i] & 15);
    std::stable_sort(want.begin(), want.end());
    expect_prefix(out.to_host(st), want, "key");
  }
}

/// merge_sort_pairs of HalfOf(ints) by AbsGreater with a counting_iterator as the values: the
/// values are the input positions, which the stable order fixes among the many ties.
TEST(AlgorithmsMergeSortIteratorGpu, PairsStableByAbsoluteValueWithPositions) {
  CUTLET_REQUIRE_GPU();
  Stream st;
  for (std::size_t n : boundary_sizes(alg::kMergeSortTile<float>, 3)) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const auto h = random_ints(n, 90 + n);
    Buffer<std::int32_t> in(st, h);
    auto kout = poisoned<float>(st, n + 1);
    auto vout = poisoned<std::int32_t>(st, n + 1);
    alg::merge_sort_pairs(st, alg::transform_iterator(in, HalfOf{}), n, alg::counting_iterator(std::int32_t{0}), kout,
                          vout, AbsGreater{});
    std::vector<float> keys(n);
    for (std::size_t i = 0; i < n; ++i) keys[i] = static_cast<float>(h[i]) * 0.5f;
    const auto order = stable_order(keys, host_abs_greater);
    std::vector<float> want_keys(n);
    for (std::size_t i = 0; i < n; ++i) want_keys[i] = keys[static_cast<std::size_t>(order[i])];
    expect_prefix(kout.to_host(st), want_keys, "key");
    expect_prefix(vout.to_host(st), order, "value");
  }
}

/// Keys gathered through a permutation_iterator, values from a buffer (the same comparator and
/// types as above: only the block sort is new).
TEST(AlgorithmsMergeSortIteratorGpu, PairsFromPermutationAndBuffer) {
  CUTLET_REQUIRE_GPU();
  Stream st;
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{alg::kMergeSortTile<float>} - 1,
                        4 * std::size_t{alg::kMergeSortTile<float>} + 3}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const auto ints = random_ints(n, 3 + n);
    std::vector<float> source(n);
    for (std::size_t i = 0; i < n; ++i) source[i] = static_cast<float>(ints[i]) * 0.25f;
    std::vector<std::int32_t> idx(n);
    std::iota(idx.begin(), idx.end(), 0);
    std::shuffle(idx.begin(), idx.end(), std::mt19937_64(n));
    const auto values = random_ints(n, 11 + n);
    Buffer<float> dsource(st, source);
    Buffer<std::int32_t> didx(st, idx), dvalues(st, values);
    auto kout = poisoned<float>(st, n + 2);
    auto vout = poisoned<std::int32_t>(st, n + 2);
    alg::merge_sort_pairs(st, alg::permutation_iterator(dsource, didx), n, dvalues, kout, vout, AbsGreater{});
    std::vector<float> keys(n);
    for (std::size_t i = 0; i < n; ++i) keys[i] = source[static_cast<std::size_t>(idx[i])];
    const auto order = stable_order(keys, host_abs_greater);
    std::vector<float> want_keys(n);
    std::vector<std::int32_t> want_values(n);
    for (std::size_t i = 0; i < n; ++i) {
      want_keys[i] = keys[static_cast<std::size_t>(order[i])];
      want_values[i] = values[static_cast<std::size_t>(order[i])];
    }
    expect_prefix(kout.to_host(st), want_keys, "key");
    expect_prefix(vout.to_host(st), want_values, "value");
  }
}

/// Struct keys gathered through a permutation_iterator of a buffer of structs, positions as
/// the values.
TEST(AlgorithmsMergeSortIteratorGpu, StructKeysFromPermutation) {
  CUTLET_REQUIRE_GPU();
  Stream st;
  constexpr std::size_t kTile = alg::kMergeSortTile<Entry>;
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, kTile - 1, kTile + 1, 5 * kTile + 33}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    std::mt19937_64 rng(n + 5);
    std::vector<Entry> source(n);
    for (std::size_t i = 0; i < n; ++i)
      source[i] = Entry{static_cast<std::int32_t>(rng() % 7) - 3, static_cast<float>(rng() % 5) * 0.5f,
                        static_cast<std::uint32_t>(i + 1)};
    std::vector<std::int32_t> idx(n);
    for (std::size_t i = 0; i < n; ++i) idx[i] = static_cast<std::int32_t>(n - 1 - i);
    Buffer<Entry> dsource(st, source);
    Buffer<std::int32_t> didx(st, idx);
    auto kout = poisoned<Entry>(st, n + 1);
    auto vout = poisoned<std::uint32_t>(st, n + 1);
    alg::merge_sort_pairs(st, alg::permutation_iterator(dsource, didx), n, alg::counting_iterator(std::uint32_t{0}),
                          kout, vout, EntryOrder{});
    std::vector<Entry> keys(n);
    for (std::size_t i = 0; i < n; ++i) keys[i] = source[static_cast<std::size_t>(idx[i])];
    const auto order = stable_order(keys, host_entry_order);
    std::vector<Entry> want_keys(n);
    std::vector<std::uint32_t> want_values(n);
    for (std::size_t i = 0; i < n; ++i) {
      want_keys[i] = keys[static_cast<std::size_t>(order[i])];
      want_values[i] = static_cast<std::uint32_t>(order[i]);
    }
    expect_prefix(kout.to_host(st), want_keys, "key");
    expect_prefix(vout.to_host(st), want_values, "value");
  }
}

TEST(AlgorithmsMergeSortIteratorGpu, ArgumentChecks) {
  CUTLET_REQUIRE_GPU();
  Stream st;
  const std::size_t n = 3 * alg::kMergeSortTile<float>;
  Buffer<std::int32_t> in(st, random_ints(n, 1));
  const auto keys = alg::transform_iterator(in, HalfOf{});
  const auto positions = alg::counting_iterator(std::int32_t{0});
  auto short_keys = poisoned<float>(st, n - 1);
  auto kout = poisoned<float>(st, n);
  auto vout = poisoned<std::int32_t>(st, n);
  auto short_values = poisoned<std::int32_t>(st, n - 1);
  EXPECT_NE(message_of([&] { alg::merge_sort_keys(st, keys, n, short_keys, AbsGreater{}); })
                .find("key output buffer holds " + std::to_string(n - 1) + " elements but " + std::to_string(n)),
            std::string::npos);
  EXPECT_NE(message_of([&] { alg::merge_sort_pairs(st, keys, n, positions, short_keys, vout, AbsGreater{}); })
                .find("key output buffer holds " + std::to_string(n - 1)),
            std::string::npos);
  EXPECT_NE(message_of([&] { alg::merge_sort_pairs(st, keys, n, positions, kout, short_values, AbsGreater{}); })
                .find("value output buffer holds " + std::to_string(n - 1)),
            std::string::npos);
  Buffer<std::int32_t> few_values(st, std::vector<std::int32_t>(10, 1));
  EXPECT_NE(message_of([&] { alg::merge_sort_pairs(st, keys, n, few_values, kout, vout, AbsGreater{}); })
                .find("value input buffer holds 10 elements"),
            std::string::npos);
  const std::string too_many =
      message_of([&] { alg::merge_sort_keys(st, keys, std::size_t(alg::kMergeSortMaxCount) + 1, kout, AbsGreater{}); });
  EXPECT_NE(too_many.find("merge_sort_keys"), std::string::npos) << too_many;
  DeviceMemory small(16, st.device());
  EXPECT_NE(message_of([&] {
              alg::merge_sort_keys(st, keys, n, kout, AbsGreater{}, alg::Workspace::borrow(small));
            }).find("workspace holds 16 bytes"),
            std::string::npos);
  // n = 0 writes nothing and needs no output.
  Buffer<float> empty;
  alg::merge_sort_keys(st, keys, 0, empty, AbsGreater{});
}

}  // namespace
