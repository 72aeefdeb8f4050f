// inclusive_scan_by_key and exclusive_scan_by_key against sequential CPU scans that start
// again at every run of equal keys: every key type with each value type, runs of one item to
// runs across many tiles, float keys with -0.0 (equal to 0.0) and NaNs (equal to nothing), a
// user equality, a non-commutative operator, in place, chunks past 2^30 values, and the
// argument checks.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "algorithms/algorithm_test_support.h"
#include "gpu_test_support.h"
#include "kernel_test_support.h"

using namespace cutlet;
using namespace cutlet::test;
namespace alg = cutlet::algorithms;

namespace {

/// Tiles of the largest size: more than one look-back window of 32 tiles.
constexpr std::size_t kLargeTiles = 40;

/// The CPU's scan by key of `values` over the runs of `keys` equal under `host_eq`.
template <class K, class T, class HostOp, class HostEq>
std::vector<T> host_scan_by_key(const std::vector<K>& keys, const std::vector<T>& values, HostOp host_op,
                                HostEq host_eq, bool exclusive, T init) {
  std::vector<T> r(values.size());
  T acc{};
  for (std::size_t i = 0; i < values.size(); ++i) {
    const bool head = i == 0 || !host_eq(keys[i - 1], keys[i]);
    if (exclusive) {
      r[i] = head ? init : host_op(init, acc);
      acc = head ? values[i] : host_op(acc, values[i]);
    } else {
      acc = head ? values[i] : host_op(acc, values[i]);
      r[i] = acc;
    }
  }
  return r;
}

/// n keys in runs: a new run starts where a draw of 1 in `mean_run` says so, with a key
/// drawn from `pool` (which may equal the run's before: then the run goes on).
template <class K>
std::vector<K> run_keys(std::size_t n, std::size_t mean_run, const std::vector<K>& pool, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<K> keys(n);
  K current = pool[0];
  for (auto& k : keys) {
    if (rng() % mean_run == 0) current = pool[rng() % pool.size()];
    k = current;
  }
  return keys;
}

/// Runs both scans by key and compares every value with the CPU: exactly, or (floats) within
/// `tolerance` of the run's sum of |x|.
template <class K, class T, class Op, class Eq, class HostOp, class HostEq>
void check_one(const Stream& st, const std::vector<K>& hk, const std::vector<T>& hv, Op op, Eq eq, HostOp host_op,
               HostEq host_eq, T init, double tolerance) {
  Buffer<K> keys(st, hk);
  Buffer<T> values(st, hv);
  for (bool exclusive : {false, true}) {
    SCOPED_TRACE(exclusive ? "exclusive" : "inclusive");
    auto out = poisoned<T>(st, hv.size());
    if (exclusive) alg::exclusive_scan_by_key(st, keys, values, out, op, init, eq);
    else alg::inclusive_scan_by_key(st, keys, values, out, op, eq);
    const std::vector<T> got = out.to_host(st);
    const std::vector<T> want = host_scan_by_key(hk, hv, host_op, host_eq, exclusive, init);
    double magnitude = 0;
    for (std::size_t i = 0; i < hv.size(); ++i) {
      if (i == 0 || !host_eq(hk[i - 1], hk[i])) magnitude = std::fabs(static_cast<double>(init));
      magnitude += std::fabs(static_cast<double>(hv[i]));
      if (tolerance == 0) ASSERT_EQ(got[i], want[i]) << "element " << i << " of " << hv.size();
      else
        ASSERT_NEAR(static_cast<double>(got[i]), static_cast<double>(want[i]), tolerance * (magnitude + 1))
            << "element " << i << " of " << hv.size();
    }
  }
}

/// Sums by key of values T over keys K, on every boundary size, with short runs and with
/// runs longer than a tile.
template <class K, class T>
void check_types() {
  Stream st;
  SCOPED_TRACE(element_label<K>() + " keys, " + element_label<T>() + " values");
  const double tolerance = std::is_same_v<T, float> ? 1e-5 : 0.0;
  const std::vector<K> pool = random_keys<K>(3, 3, 5);
  for (std::size_t mean_run : {std::size_t{3}, std::size_t{3000}}) {
    for (std::size_t n : boundary_sizes(alg::kScanTile<T>, kLargeTiles)) {
      SCOPED_TRACE("n = " + std::to_string(n) + ", runs of about " + std::to_string(mean_run));
      check_one<K, T>(st, run_keys<K>(n, mean_run, pool, n + mean_run), algorithm_input<T>(n, 61 + n), alg::plus{},
                      alg::equal_to{}, [](T a, T b) { return T(a + b); }, [](K a, K b) { return a == b; }, T(7),
                      tolerance);
    }
  }
}

TEST(AlgorithmsScanByKeyGpu, EveryKeyTypeWithEachValueType) {
  CUTLET_REQUIRE_GPU();
  for_each_element_type([]<class K> {
    check_types<K, float>();
    check_types<K, std::int32_t>();
  });
  check_types<std::int64_t, std::uint32_t>();
}

TEST(AlgorithmsScanByKeyGpu, FloatKeysSignedZerosAndNaNs) {
  CUTLET_REQUIRE_GPU();
  Stream st;
  // -0.0 == 0.0 continues a run; NaN equals nothing, so every NaN starts one.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> pool{0.0f, -0.0f, nan, 1.5f};
  const std::size_t n = 5 * alg::kScanTile<std::int32_t> + 33;
  check_one<float, std::int32_t>(
      st, run_keys<float>(n, 4, pool, 9), algorithm_input<std::int32_t>(n, 10), alg::plus{}, alg::equal_to{},
      [](std::int32_t a, std::int32_t b) { return a + b; }, [](float a, float b) { return a == b; }, std::int32_t{-2},
      0.0);
}

TEST(AlgorithmsScanByKeyGpu, UserEqualityAndNonCommutativeOperator) {
  CUTLET_REQUIRE_GPU();
  Stream st;
  // Keys equal when they agree but for the low 4 bits; affine maps composed in order.
  const std::size_t n = 40 * alg::kScanTile<std::uint32_t> + 1001;
  std::vector<std::uint64_t> hk(n);
  std::mt19937_64 rng(3);
  std::uint64_t run = 0;
  for (auto& k : hk) {
    if (rng() % 500 == 0) run += 16;
    k = run | (rng() & 15u);
  }
  auto words = random_words(n, 23);
  std::vector<std::uint32_t> hv(words.begin(), words.end());
  check_one<std::uint64_t, std::uint32_t>(
      st, hk, hv, affine_then{}, [](u64 a, u64 b) { return (a >> 4u) == (b >> 4u); }, affine_then_host,
      [](std::uint64_t a, std::uint64_t b) { return (a >> 4) == (b >> 4); }, std::uint32_t{0x00030005u}, 0.0);
}

TEST(AlgorithmsScanByKeyGpu, InPlaceAndBorrowedWorkspace) {
  CUTLET_REQUIRE_GPU();
  Stream st;
  const std::size_t n = 30 * alg::kScanTile<std::int32_t> + 77;
  const auto hk = run_keys<std::int32_t>(n, 100, {1, 2, 3}, 4);
  const auto hv = algorithm_input<std::int32_t>(n, 5);
  auto plus = [](std::int32_t a, std::int32_t b) { return a + b; };
  auto eq = [](std::int32_t a, std::int32_t b) { return a == b; };
  Buffer<std::int32_t> keys(st, hk);
  Buffer<std::int32_t> data(st, hv);
  DeviceMemory scratch(alg::scan_by_key_workspace_bytes<std::int32_t>(n), st.device());
  scratch.fill_bytes(st, 0xAB);  // the scan clears what it needs itself
  alg::exclusive_scan_by_key(st, keys, data, data, alg::plus{}, std::int32_t{4}, alg::equal_to{},
                             alg::Workspace::borrow(scratch));
  EXPECT_EQ(data.to_host(st), host_scan_by_key(hk, hv, plus, eq, true, std::int32_t{4}));
  Buffer<std::int32_t> again(st, hv);
  alg::inclusive_scan_by_key(st, keys, again, again, alg::plus{}, alg::equal_to{}, alg::Workspace::borrow(scratch));
  EXPECT_EQ(again.to_host(st), host_scan_by_key(hk, hv, plus, eq, false, std::int32_t{0}));
}

TEST(AlgorithmsScanByKeyGpu, MoreThanTwoToThe30ValuesInChunks) {
  CUTLET_REQUIRE_GPU();
  Stream st;
  if (st.device().is_cpu()) GTEST_SKIP() << "2^30 values on the CPU device take too long for a test";
  const std::size_t n = (std::size_t{1} << 30) + 4099;  // two chunks, a run across their boundary
  if (st.device().total_memory() < (std::size_t{16} << 30))
    GTEST_SKIP() << "needs 16 GiB of device memory (" << st.device().name() << " has "
                 << (st.device().total_memory() >> 30) << " GiB)";
  // keys[i] = i / 3000, values[i] = a hash of i in [0, 8), both made on the device.
  Buffer<std::uint32_t> keys(n, st), data(n, st);
  alg::transform(st, alg::counting_iterator<std::uint64_t>(0), n, keys,
                 [](u64 i) { return cast<std::uint32_t>(i / 3000u); });
  auto x = [](std::uint64_t i) { return static_cast<std::uint32_t>((i * 2654435761u) >> 29) & 7u; };
  for (bool exclusive : {false, true}) {
    SCOPED_TRACE(exclusive ? "exclusive, init 11" : "inclusive");
    alg::transform(st, alg::counting_iterator<std::uint64_t>(0), n, data,
                   [](u64 i) { return cast<std::uint32_t>((i * 2654435761u) >> 29u) & 7u; });
    if (exclusive) alg::exclusive_scan_by_key(st, keys, data, data, alg::plus{}, 11u);
    else alg::inclusive_scan_by_key(st, keys, data, data, alg::plus{});
    const std::vector<std::uint32_t> got = data.to_host(st);
    std::uint32_t sum = 0;
    for (std::size_t i = 0; i < n; ++i) {
      if (i % 3000 == 0) sum = 0;
      const std::uint32_t want = exclusive ? (i % 3000 == 0 ? 11u : 11u + sum) : sum + x(i);
      ASSERT_EQ(got[i], want) << "element " << i;
      sum += x(i);
    }
  }
}

TEST(AlgorithmsScanByKeyGpu, ArgumentChecks) {
  CUTLET_REQUIRE_GPU();
  Stream st;
  Buffer<float> values(st, algorithm_input<float>(100, 1));
  Buffer<std::int32_t> keys(st, algorithm_input<std::int32_t>(100, 2));
  Buffer<std::int32_t> short_keys(st, algorithm_input<std::int32_t>(99, 2));
  auto out = poisoned<float>(st, 100);
  EXPECT_NE(message_of([&] { alg::inclusive_scan_by_key(st, short_keys, values, out, alg::plus{}); })
                .find("holds 99 elements but 100"),
            std::string::npos);
  auto short_out = poisoned<float>(st, 99);
  EXPECT_NE(message_of([&] { alg::inclusive_scan_by_key(st, keys, values, short_out, alg::plus{}); })
                .find("holds 99 elements but 100"),
            std::string::npos);
  Buffer<float> float_keys(st, algorithm_input<float>(100, 3));
  EXPECT_NE(message_of([&] { alg::inclusive_scan_by_key(st, float_keys, values, float_keys, alg::plus{}); })
                .find("overlap"),
            std::string::npos);
}

}  // namespace
