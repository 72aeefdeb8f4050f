// merge_sort_keys and merge_sort_pairs against std::stable_sort: every key type, sizes around
// the tile boundaries and up to several merge passes, ascending, descending and user
// comparators (by a part of the key, by absolute value: stability made visible), keys with
// many duplicates and their indices as values of every width, sorts in place, outputs
// poisoned first, a caller's workspace, and the argument checks.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <random>

#include "algorithms/algorithm_test_support.h"
#include "gpu_test_support.h"
#include "kernel_test_support.h"

using namespace cutlet;
using namespace cutlet::test;
namespace alg = cutlet::algorithms;

namespace {

/// Tiles of the largest size: five merge passes.
constexpr std::size_t kLargeTiles = 23;

/// `got` equals `want` bit for bit.
template <class T>
void expect_bits(const std::vector<T>& want, const std::vector<T>& got, const char* what) {
  ASSERT_GE(got.size(), want.size()) << what;
  for (std::size_t i = 0; i < want.size(); ++i)
    ASSERT_EQ(std::memcmp(&got[i], &want[i], sizeof(T)), 0) << what << " " << i << " of " << want.size();
}

/// merge_sort_keys(comp) on every boundary size against std::stable_sort(host_comp).
template <class K, class Comp, class HostComp>
void check_keys(Comp comp, HostComp host_comp, std::size_t large_tiles = kLargeTiles) {
  Stream st;
  for (std::size_t n : boundary_sizes(alg::kMergeSortTile<K>, large_tiles)) {
    SCOPED_TRACE("n = " + std::to_string(n));
    std::vector<K> h = algorithm_input<K>(n, 900 + n);
    Buffer<K> in(st, h);
    auto out = poisoned<K>(st, n + 2);
    alg::merge_sort_keys(st, in, out, comp);
    std::stable_sort(h.begin(), h.end(), host_comp);
    const std::vector<K> got = out.to_host(st);
    expect_bits(h, got, "key");
    const K poison = poisoned<K>(st, 1).to_host(st)[0];
    ASSERT_EQ(std::memcmp(&got[n], &poison, sizeof(K)), 0) << "the output past n";
  }
}

template <class K>
void check_type() {
  SCOPED_TRACE(element_label<K>());
  {
    SCOPED_TRACE("ascending");
    check_keys<K>(alg::less{}, std::less<K>{});
  }
  {
    SCOPED_TRACE("descending");
    check_keys<K>(alg::greater{}, std::greater<K>{}, 3);
  }
}

TEST(AlgorithmsMergeSortGpu, Float) {
  CUTLET_REQUIRE_GPU();
  check_type<float>();
}
TEST(AlgorithmsMergeSortGpu, Double) {
  CUTLET_REQUIRE_GPU();
  check_type<double>();
}
TEST(AlgorithmsMergeSortGpu, Int32) {
  CUTLET_REQUIRE_GPU();
  check_type<std::int32_t>();
}
TEST(AlgorithmsMergeSortGpu, UInt32) {
  CUTLET_REQUIRE_GPU();
  check_type<std::uint32_t>();
}
TEST(AlgorithmsMergeSortGpu, Int64) {
  CUTLET_REQUIRE_GPU();
  check_type<std::int64_t>();
}
TEST(AlgorithmsMergeSortGpu, UInt64) {
  CUTLET_REQUIRE_GPU();
  check_type<std::uint64_t>();
}

TEST(AlgorithmsMergeSortGpu, StableByHighHalfOfWords) {
  CUTLET_REQUIRE_GPU();
  // Ordered by the high 32 bits alone, of which there are 50 values: the low bits show
  // whether equivalent keys kept their input order.
  Stream st;
  for (std::size_t n : {std::size_t{1000}, 5 * std::size_t{alg::kMergeSortTile<std::uint64_t>} + 77,
                        17 * std::size_t{alg::kMergeSortTile<std::uint64_t>} + 1}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    std::vector<std::uint64_t> h = random_words(n, n);
    for (auto& x : h) x = ((x >> 32) % 50) << 32 | (x & 0xffffffffu);
    Buffer<std::uint64_t> in(st, h);
    auto out = poisoned<std::uint64_t>(st, n);
    alg::merge_sort_keys(st, in, out, [](u64 a, u64 b) { return (a >> 32u) < (b >> 32u); });
    std::stable_sort(h.begin(), h.end(), [](std::uint64_t a, std::uint64_t b) { return (a >> 32) < (b >> 32); });
    expect_bits(h, out.to_host(st), "key");
  }
}

TEST(AlgorithmsMergeSortGpu, StableByAbsoluteValueOfFloats) {
  CUTLET_REQUIRE_GPU();
  // |x| orders x and -x (and 0.0 and -0.0) as equivalent: their input order must stay.
  Stream st;
  const std::size_t n = 9 * alg::kMergeSortTile<float> + 5;
  std::mt19937 rng(3);
  std::vector<float> h(n);
  for (auto& x : h) x = static_cast<float>(static_cast<int>(rng() % 200) - 100) / 8.0f;
  h[7] = 0.0f;
  h[8] = -0.0f;
  Buffer<float> in(st, h);
  auto out = poisoned<float>(st, n);
  alg::merge_sort_keys(st, in, out, [](f32 a, f32 b) { return abs(a) < abs(b); });
  std::stable_sort(h.begin(), h.end(), [](float a, float b) { return std::fabs(a) < std::fabs(b); });
  expect_bits(h, out.to_host(st), "key");
}

/// merge_sort_pairs of keys with many duplicates (16 distinct) and their indices as values of
/// V, against std::stable_sort of the pairs by key.
template <class K, class V>
void check_pairs(std::size_t n) {
  SCOPED_TRACE(element_label<K>() + " keys, " + element_label<V>() + " values, n = " + std::to_string(n));
  Stream st;
  std::mt19937_64 rng(n);
  std::vector<K> keys(n);
  for (auto& k : keys) k = static_cast<K>(rng() % 16);
  std::vector<V> values(n);
  for (std::size_t i = 0; i < n; ++i) values[i] = static_cast<V>(i);
  Buffer<K> kin(st, keys);
  Buffer<V> vin(st, values);
  auto kout = poisoned<K>(st, n);
  auto vout = poisoned<V>(st, n);
  alg::merge_sort_pairs(st, kin, kout, vin, vout, alg::greater{});
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return keys[a] > keys[b]; });
  std::vector<K> want_keys(n);
  std::vector<V> want_values(n);
  for (std::size_t i = 0; i < n; ++i) {
    want_keys[i] = keys[order[i]];
    want_values[i] = values[order[i]];
  }
  expect_bits(want_keys, kout.to_host(st), "key");
  expect_bits(want_values, vout.to_host(st), "value");
}

TEST(AlgorithmsMergeSortGpu, PairsWithDuplicateKeys) {
  CUTLET_REQUIRE_GPU();
  for (std::size_t n : {std::size_t{1}, std::size_t{300}, std::size_t{alg::kMergeSortTile<std::int32_t>} + 1,
                        6 * std::size_t{alg::kMergeSortTile<std::int32_t>} - 1}) {
    check_pairs<std::int32_t, std::uint32_t>(n);
    check_pairs<float, std::int64_t>(n);
  }
  const std::size_t n = 11 * std::size_t{alg::kMergeSortTile<double>} + 3;
  check_pairs<double, float>(n);
  check_pairs<std::uint64_t, double>(n);
  check_pairs<std::int64_t, std::int32_t>(n);
  check_pairs<std::uint32_t, std::uint64_t>(n);
}

TEST(AlgorithmsMergeSortGpu, InPlace) {
  CUTLET_REQUIRE_GPU();
  Stream st;
  for (std::size_t n : {std::size_t{2000}, 12 * std::size_t{alg::kMergeSortTile<std::int32_t>} + 9}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const auto h = algorithm_input<std::int32_t>(n, 5);
    std::vector<std::uint32_t> idx(n);
    std::iota(idx.begin(), idx.end(), 0u);
    Buffer<std::int32_t> keys(st, h);
    Buffer<std::uint32_t> values(st, idx);
    alg::merge_sort_pairs(st, keys, keys, values, values);
    std::vector<std::uint32_t> order = idx;
    std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) { return h[a] < h[b]; });
    std::vector<std::int32_t> want(n);
    for (std::size_t i = 0; i < n; ++i) want[i] = h[order[i]];
    EXPECT_EQ(keys.to_host(st), want);
    EXPECT_EQ(values.to_host(st), order);
  }
}

TEST(AlgorithmsMergeSortGpu, EmptyAndSingle) {
  CUTLET_REQUIRE_GPU();
  Stream st;
  Buffer<float> empty;
  auto out = poisoned<float>(st, 1);
  alg::merge_sort_keys(st, empty, out);
  EXPECT_EQ(out.to_host(st)[0], poisoned<float>(st, 1).to_host(st)[0]);
  Buffer<float> one(st, std::vector<float>{2.5f});
  alg::merge_sort_keys(st, one, out);
  EXPECT_EQ(out.to_host(st)[0], 2.5f);
}

TEST(AlgorithmsMergeSortGpu, BorrowedWorkspaceReused) {
  CUTLET_REQUIRE_GPU();
  Stream st;
  const std::size_t n = 13 * alg::kMergeSortTile<double> + 3;
  const auto h = algorithm_input<double>(n, 23);
  std::vector<double> want = h;
  std::stable_sort(want.begin(), want.end());
  Buffer<double> in(st, h);
  DeviceMemory scratch(alg::merge_sort_workspace_bytes<double>(n), st.device());
  EXPECT_EQ(alg::merge_sort_workspace_bytes<double>(alg::kMergeSortTile<double>), 0u) << "one tile needs none";
  for (int run = 0; run < 2; ++run) {
    auto out = poisoned<double>(st, n);
    alg::merge_sort_keys(st, in, out, alg::less{}, alg::Workspace::borrow(scratch));
    expect_bits(want, out.to_host(st), "key");
  }
}

TEST(AlgorithmsMergeSortGpu, ArgumentChecks) {
  CUTLET_REQUIRE_GPU();
  Stream st;
  const std::size_t n = 3 * alg::kMergeSortTile<float>;
  Buffer<float> in(st, algorithm_input<float>(n, 1));
  auto short_out = poisoned<float>(st, n - 1);
  EXPECT_NE(message_of([&] { alg::merge_sort_keys(st, in, short_out); })
                .find("key output buffer holds " + std::to_string(n - 1) + " elements but " + std::to_string(n)),
            std::string::npos);
  auto out = poisoned<float>(st, n);
  Buffer<std::int32_t> few_values(st, std::vector<std::int32_t>(10, 1));
  auto values_out = poisoned<std::int32_t>(st, n);
  EXPECT_NE(message_of([&] { alg::merge_sort_pairs(st, in, out, few_values, values_out); })
                .find("value input buffer holds 10 elements"),
            std::string::npos);
  DeviceMemory small(16, st.device());
  EXPECT_NE(message_of([&] { alg::merge_sort_keys(st, in, out, alg::less{}, alg::Workspace::borrow(small)); })
                .find("workspace holds 16 bytes"),
            std::string::npos);
}

}  // namespace
