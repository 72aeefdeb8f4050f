// top_k against a host selection by CUB's key order: every key type, both index types, largest and
// smallest, sorted and in input order, sizes around the tile boundaries and past many tiles and
// past one step of the offsets pass, k of 1, a few, half, all and 1024, keys drawn from few values
// (ties at the k-th key, taken by lowest index), keys of random bits (every float pattern), NaNs
// and both zeros in float keys, a caller's workspace, and the argument checks. Outputs are poisoned
// first; what lies past k must stay so.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <random>
#include <type_traits>

#include "algorithms/algorithm_test_support.h"
#include "gpu_test_support.h"
#include "kernel_test_support.h"

using namespace cutlet;
using namespace cutlet::test;
namespace alg = cutlet::algorithms;

namespace {

/// The positions top_k takes from `h`, in the order it writes them: sorted (best first, ties
/// by index) or in input order (the keys better than the k-th first, then those tied with
/// it).
template <class K>
std::vector<std::size_t> host_top_k(const std::vector<K>& h, std::size_t k, const alg::TopKOptions& options) {
  auto rank_key = [&](std::size_t i) {
    const KeyBits<K> b = host_ordered_bits(h[i]);
    return options.largest ? static_cast<KeyBits<K>>(~b) : b;  // smaller is better
  };
  std::vector<std::size_t> order(h.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return rank_key(a) < rank_key(b); });
  order.resize(k);
  if (options.sorted || k == 0) return order;
  const KeyBits<K> kth = rank_key(order.back());
  std::vector<std::size_t> better, tied;
  for (std::size_t i : order) (rank_key(i) < kth ? better : tied).push_back(i);
  std::sort(better.begin(), better.end());
  std::sort(tied.begin(), tied.end());
  better.insert(better.end(), tied.begin(), tied.end());
  return better;
}

/// top_k of `h` with `options` against host_top_k: the keys bit for bit, the indices, and the
/// outputs past k still poisoned.
template <class K, class I>
void check_top_k(const Stream& st, const std::vector<K>& h, std::size_t k, const alg::TopKOptions& options) {
  SCOPED_TRACE("n = " + std::to_string(h.size()) + ", k = " + std::to_string(k) +
               (options.largest ? ", largest" : ", smallest") + (options.sorted ? ", sorted" : ", in input order"));
  const auto want = host_top_k(h, k, options);
  Buffer<K> in(st, h);
  auto keys = poisoned<K>(st, k + 3);
  auto indices = poisoned<I>(st, k + 3);
  alg::top_k(st, in, k, keys, indices, options);
  const auto got_keys = keys.to_host(st);
  const auto got_indices = indices.to_host(st);
  for (std::size_t i = 0; i < k; ++i) {
    ASSERT_EQ(got_indices[i], static_cast<I>(want[i])) << "result " << i;
    ASSERT_EQ(std::memcmp(&got_keys[i], &h[want[i]], sizeof(K)), 0) << "result " << i;
  }
  const K key_poison = poisoned<K>(st, 1).to_host(st)[0];
  const I index_poison = poisoned<I>(st, 1).to_host(st)[0];
  for (std::size_t i = k; i < k + 3; ++i) {
    ASSERT_EQ(std::memcmp(&got_keys[i], &key_poison, sizeof(K)), 0) << "key output " << i << " past k";
    ASSERT_EQ(got_indices[i], index_poison) << "index output " << i << " past k";
  }
}

/// The values of k checked for n keys: 1, a few, about half, all, and 1024 where it fits.
std::vector<std::size_t> ks_for(std::size_t n) {
  std::vector<std::size_t> ks{1, 7, n / 2 + 1, n};
  if (n > 1024) ks.push_back(1024);
  std::vector<std::size_t> fit;
  for (std::size_t k : ks)
    if (k <= n && std::find(fit.begin(), fit.end(), k) == fit.end()) fit.push_back(k);
  return fit;
}

template <class K, class I>
void check_type() {
  SCOPED_TRACE(element_label<K>());
  Stream st;
  const std::size_t tile = alg::kSelectTile<K>;
  for (std::size_t n : {std::size_t{1}, std::size_t{33}, tile - 1, tile + 1, 3 * tile, 40 * tile + 17}) {
    for (std::size_t distinct : {std::size_t{0}, std::size_t{5}}) {
      SCOPED_TRACE(distinct ? "keys of 5 values" : "keys of random bits");
      const auto h = random_keys<K>(n, distinct, 31 * n + distinct);
      for (std::size_t k : ks_for(n)) {
        check_top_k<K, I>(st, h, k, {.largest = true, .sorted = true});
        check_top_k<K, I>(st, h, k, {.largest = false, .sorted = false});
      }
      check_top_k<K, I>(st, h, std::min<std::size_t>(n, 9), {.largest = true, .sorted = false});
      check_top_k<K, I>(st, h, std::min<std::size_t>(n, 9), {.largest = false, .sorted = true});
    }
  }
}

TEST(AlgorithmsTopKGpu, Float) {
  CUTLET_REQUIRE_GPU();
  check_type<float, std::int64_t>();
}
TEST(AlgorithmsTopKGpu, Double) {
  CUTLET_REQUIRE_GPU();
  check_type<double, std::int32_t>();
}
TEST(AlgorithmsTopKGpu, Int32) {
  CUTLET_REQUIRE_GPU();
  check_type<std::int32_t, std::int32_t>();
}
TEST(AlgorithmsTopKGpu, UInt32) {
  CUTLET_REQUIRE_GPU();
  check_type<std::uint32_t, std::int64_t>();
}
TEST(AlgorithmsTopKGpu, Int64) {
  CUTLET_REQUIRE_GPU();
  check_type<std::int64_t, std::int64_t>();
}
TEST(AlgorithmsTopKGpu, UInt64) {
  CUTLET_REQUIRE_GPU();
  check_type<std::uint64_t, std::int32_t>();
}

TEST(AlgorithmsTopKGpu, NaNsAreTheLargestAndZerosAreEqual) {
  CUTLET_REQUIRE_GPU();
  Stream st;
  const float qnan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> h = algorithm_input<float>(5000, 3);
  h[100] = qnan;
  h[4000] = inf;
  h[17] = -qnan;
  h[2500] = -inf;
  for (std::size_t i = 200; i < 4200; i += 400) h[i] = (i / 400) % 2 ? 0.0f : -0.0f;
  for (std::size_t k : {1, 2, 3, 2000, 5000}) {
    check_top_k<float, std::int32_t>(st, h, k, {.largest = true, .sorted = true});
    check_top_k<float, std::int32_t>(st, h, k, {.largest = false, .sorted = true});
    check_top_k<float, std::int32_t>(st, h, k, {.largest = true, .sorted = false});
  }
  // The largest is the NaN, then +inf; the smallest the NaN with its sign bit set, then -inf.
  Buffer<float> in(st, h);
  Buffer<float> keys(2, st);
  Buffer<std::int32_t> indices(2, st);
  alg::top_k(st, in, 2, keys, indices);
  EXPECT_EQ(indices.to_host(st), (std::vector<std::int32_t>{100, 4000}));
  alg::top_k(st, in, 2, keys, indices, {.largest = false});
  EXPECT_EQ(indices.to_host(st), (std::vector<std::int32_t>{17, 2500}));
}

TEST(AlgorithmsTopKGpu, ABorrowedWorkspace) {
  CUTLET_REQUIRE_GPU();
  Stream st;
  const std::size_t n = 25 * alg::kSelectTile<std::uint32_t> + 5;
  const auto h = random_keys<std::uint32_t>(n, 1000, 12);
  for (bool sorted : {true, false}) {
    const alg::TopKOptions options{.largest = true, .sorted = sorted};
    const std::size_t k = 1024;
    DeviceMemory scratch(alg::top_k_workspace_bytes<std::uint32_t, std::int32_t>(n, k, options), Device(0));
    Buffer<std::uint32_t> in(st, h);
    auto keys = poisoned<std::uint32_t>(st, k);
    auto indices = poisoned<std::int32_t>(st, k);
    alg::top_k(st, in, k, keys, indices, options, alg::Workspace::borrow(scratch));
    const auto want = host_top_k(h, k, options);
    const auto got = indices.to_host(st);
    for (std::size_t i = 0; i < k; ++i) ASSERT_EQ(got[i], static_cast<std::int32_t>(want[i])) << i;
  }
}

TEST(AlgorithmsTopKGpu, MoreTilesThanTheOffsetsPassSumsInOneStep) {
  CUTLET_REQUIRE_GPU();
  if (Device(0).is_cpu()) GTEST_SKIP() << "16 million keys on the CPU device take too long for a test";
  Stream st;
  // Past one step of the offsets pass (kTopKScanBlock * kTopKScanItems tiles): 4100 tiles.
  const std::size_t n = 4100 * alg::kSelectTile<std::uint32_t> + 3;
  const auto h = random_keys<std::uint32_t>(n, 0, 77);
  for (std::size_t k : {std::size_t{1024}, std::size_t{100000}}) {
    check_top_k<std::uint32_t, std::int32_t>(st, h, k, {.largest = true, .sorted = false});
    check_top_k<std::uint32_t, std::int32_t>(st, h, k, {.largest = false, .sorted = true});
  }
}

TEST(AlgorithmsTopKGpu, ArgumentChecks) {
  CUTLET_REQUIRE_GPU();
  Stream st;
  Buffer<float> in(st, algorithm_input<float>(100, 1));
  Buffer<float> keys(10, Device(0));
  Buffer<std::int32_t> indices(10, Device(0));
  auto message = [&](auto&& f) { return message_of(f); };
  EXPECT_NE(message([&] { alg::top_k(st, in, 101, keys, indices); }).find("k = 101 is more than the 100 keys"),
            std::string::npos);
  EXPECT_NE(message([&] { alg::top_k(st, in, 11, keys, indices); }).find("keys output"), std::string::npos);
  Buffer<std::int32_t> few(5, Device(0));
  EXPECT_NE(message([&] { alg::top_k(st, in, 8, keys, few); }).find("indices output"), std::string::npos);
  auto inside = Buffer<float>::wrap(in.data() + 64, 10, Device(0));
  EXPECT_NE(message([&] { alg::top_k(st, in, 4, inside, indices); }).find("the keys output and the input overlap"),
            std::string::npos);
  DeviceMemory tiny(16, Device(0));
  EXPECT_NE(message([&] { alg::top_k(st, in, 4, keys, indices, {}, alg::Workspace::borrow(tiny)); }).find("top_k"),
            std::string::npos);
  // k = 0 and an empty input: nothing happens.
  alg::top_k(st, in, 0, keys, indices);
  Buffer<float> none;
  alg::top_k(st, none, 0, keys, indices);
}

}  // namespace
