// unique, unique_by_key and run_length_encode against a CPU walk of neighbours: every element type
// (by key, values of another width: their positions), sizes around the tile boundaries and past
// several 32-tile look-back windows, runs of length one, short, long (across tiles), one run of
// everything, and runs that end exactly at tile boundaries; user equalities that are not
// equivalences (only neighbours are compared), NaNs and signed zeros, outputs and counts poisoned
// first (entries past the runs stay so), unique in place, the host-returning forms, a caller's
// workspace, and the argument checks.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "algorithms/algorithm_test_support.h"
#include "algorithms/compaction_checks.h"
#include "gpu_test_support.h"
#include "kernel_test_support.h"

using namespace cutlet;
using namespace cutlet::test;
namespace alg = cutlet::algorithms;

namespace {

/// Tiles of the largest size: several look-back windows of 32 tiles.
constexpr std::size_t kLargeTiles = 100;

/// n items of algorithm_input in runs of lengths drawn from [min_run, max_run] (runs_of).
template <class T>
std::vector<T> runs_input(std::size_t n, std::size_t min_run, std::size_t max_run, std::uint64_t seed) {
  return runs_of(algorithm_input<T>(n, seed), min_run, max_run, seed);
}

/// The runs of `h` by `eq` of neighbours: their first items and lengths.
template <class T, class HostEq>
void host_runs(const std::vector<T>& h, HostEq eq, std::vector<T>& firsts, std::vector<std::int32_t>& lengths) {
  firsts.clear();
  lengths.clear();
  for (std::size_t i = 0; i < h.size(); ++i) {
    if (i == 0 || !eq(h[i - 1], h[i])) {
      firsts.push_back(h[i]);
      lengths.push_back(0);
    }
    ++lengths.back();
  }
}

/// unique and run_length_encode of `h` with `eq` against host_runs with `host_eq`.
template <class T, class Eq, class HostEq>
void check_one(const Stream& st, const std::vector<T>& h, Eq eq, HostEq host_eq) {
  std::vector<T> firsts;
  std::vector<std::int32_t> lengths;
  host_runs(h, host_eq, firsts, lengths);
  Buffer<T> in(st, h);
  {
    auto out = poisoned<T>(st, h.size() + 3);
    auto count = poisoned<std::int32_t>(st, 1);
    alg::unique(st, in, out, count, eq);
    ASSERT_EQ(count.to_host(st)[0], static_cast<std::int32_t>(firsts.size())) << "unique's count";
    expect_prefix(out.to_host(st), firsts, "unique item");
  }
  {
    // By key: each item carries its position, as a value of another width than the key's.
    using V = std::conditional_t<sizeof(T) == 4, double, std::int32_t>;
    std::vector<V> positions(h.size());
    for (std::size_t i = 0; i < h.size(); ++i) positions[i] = static_cast<V>(i);
    std::vector<V> head_positions;
    std::int32_t at = 0;
    for (std::int32_t length : lengths) {
      head_positions.push_back(static_cast<V>(at));
      at += length;
    }
    Buffer<V> values(st, positions);
    auto keys_out = poisoned<T>(st, h.size() + 3);
    auto values_out = poisoned<V>(st, h.size() + 3);
    auto count = poisoned<std::int32_t>(st, 1);
    alg::unique_by_key(st, in, values, keys_out, values_out, count, eq);
    ASSERT_EQ(count.to_host(st)[0], static_cast<std::int32_t>(firsts.size())) << "unique_by_key's count";
    expect_prefix(keys_out.to_host(st), firsts, "unique_by_key key");
    expect_prefix(values_out.to_host(st), head_positions, "unique_by_key value");
  }
  {
    auto out = poisoned<T>(st, h.size() + 1);
    auto got_lengths = poisoned<std::int32_t>(st, h.size() + 2);
    auto runs = poisoned<std::int32_t>(st, 1);
    alg::run_length_encode(st, in, out, got_lengths, runs, eq);
    ASSERT_EQ(runs.to_host(st)[0], static_cast<std::int32_t>(firsts.size())) << "run_length_encode's run count";
    expect_prefix(out.to_host(st), firsts, "run_length_encode item");
    expect_prefix(got_lengths.to_host(st), lengths, "run length");
  }
}

/// Every run shape on every boundary size (the shapes that need long inputs on fewer).
template <class T, class Eq, class HostEq>
void check_shapes(Eq eq, HostEq host_eq) {
  Stream st;
  const std::size_t tile = alg::kSelectTile<T>;
  for (std::size_t n : boundary_sizes(tile, kLargeTiles)) {
    SCOPED_TRACE("n = " + std::to_string(n));
    {
      SCOPED_TRACE("runs of 1 to 8");
      check_one<T>(st, runs_input<T>(n, 1, 8, 40 + n), eq, host_eq);
    }
    {
      SCOPED_TRACE("random items");
      check_one<T>(st, algorithm_input<T>(n, 50 + n), eq, host_eq);
    }
  }
  for (std::size_t n : {std::size_t{1}, 2 * tile + 1, 9 * tile + 17, 41 * tile}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    {
      SCOPED_TRACE("runs of 1 to 3 tiles");
      check_one<T>(st, runs_input<T>(n, 1, 3 * tile, 60 + n), eq, host_eq);
    }
    {
      SCOPED_TRACE("one run");
      check_one<T>(st, std::vector<T>(n, algorithm_input<T>(1, n)[0]), eq, host_eq);
    }
    for (std::size_t d : {tile - 1, tile, tile + 1}) {
      SCOPED_TRACE("runs of " + std::to_string(d));
      check_one<T>(st, runs_input<T>(n, d, d, 70 + n + d), eq, host_eq);
    }
  }
}

template <class T>
void check_type() {
  SCOPED_TRACE(element_label<T>());
  check_shapes<T>(alg::equal_to{}, [](T a, T b) { return a == b; });
  // Not an equivalence: neighbours within 100 (integers) or 0.1 (floats) are equal.
  if constexpr (std::is_floating_point_v<T>) {
    check_shapes<T>([](Value<T> a, Value<T> b) { return abs(a - b) < T(0.1); },
                    [](T a, T b) { return std::fabs(a - b) < T(0.1); });
  } else if constexpr (std::is_signed_v<T>) {
    check_shapes<T>([](Value<T> a, Value<T> b) { return abs(a - b) < 100; },
                    [](T a, T b) { return std::abs(static_cast<long long>(a) - static_cast<long long>(b)) < 100; });
  } else {
    check_shapes<T>([](Value<T> a, Value<T> b) { return select(a > b, a - b, b - a) < 100u; },
                    [](T a, T b) { return (a > b ? a - b : b - a) < 100u; });
  }
}

TEST(AlgorithmsUniqueGpu, Float) {
  CUTLET_REQUIRE_GPU();
  check_type<float>();
}
TEST(AlgorithmsUniqueGpu, Double) {
  CUTLET_REQUIRE_GPU();
  check_type<double>();
}
TEST(AlgorithmsUniqueGpu, Int32) {
  CUTLET_REQUIRE_GPU();
  check_type<std::int32_t>();
}
TEST(AlgorithmsUniqueGpu, UInt32) {
  CUTLET_REQUIRE_GPU();
  check_type<std::uint32_t>();
}
TEST(AlgorithmsUniqueGpu, Int64) {
  CUTLET_REQUIRE_GPU();
  check_type<std::int64_t>();
}
TEST(AlgorithmsUniqueGpu, UInt64) {
  CUTLET_REQUIRE_GPU();
  check_type<std::uint64_t>();
}

TEST(AlgorithmsUniqueGpu, NaNsAndSignedZeros) {
  CUTLET_REQUIRE_GPU();
  // == : each NaN is a run of its own; -0.0 and 0.0 are one run.
  Stream st;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> h;
  for (int rep = 0; rep < 3000; ++rep)
    for (float x : {1.0f, 1.0f, nan, nan, 0.0f, -0.0f, 0.0f, 2.0f, nan, 3.0f, 3.0f}) h.push_back(x);
  check_one<float>(st, h, alg::equal_to{}, [](float a, float b) { return a == b; });
}

TEST(AlgorithmsUniqueGpu, InPlaceAndHostCounts) {
  CUTLET_REQUIRE_GPU();
  Stream st;
  const std::size_t n = 60 * alg::kSelectTile<std::int64_t> + 5;
  const auto h = runs_input<std::int64_t>(n, 1, 5, 3);
  std::vector<std::int64_t> firsts;
  std::vector<std::int32_t> lengths;
  host_runs(h, [](std::int64_t a, std::int64_t b) { return a == b; }, firsts, lengths);
  {
    Buffer<std::int64_t> data(st, h);
    ASSERT_EQ(alg::unique(st, data, data), firsts.size());
    const auto got = data.to_host(st);
    EXPECT_EQ(std::vector<std::int64_t>(got.begin(), got.begin() + static_cast<long>(firsts.size())), firsts);
    // In place, the items past m are the input's own.
    EXPECT_EQ(std::vector<std::int64_t>(got.begin() + static_cast<long>(firsts.size()), got.end()),
              std::vector<std::int64_t>(h.begin() + static_cast<long>(firsts.size()), h.end()));
  }
  {
    Buffer<std::int64_t> in(st, h);
    auto out = poisoned<std::int64_t>(st, n);
    auto got_lengths = poisoned<std::int32_t>(st, n);
    ASSERT_EQ(alg::run_length_encode(st, in, out, got_lengths), firsts.size());
    const auto got = got_lengths.to_host(st);
    EXPECT_EQ(std::vector<std::int32_t>(got.begin(), got.begin() + static_cast<long>(lengths.size())), lengths);
  }
}

TEST(AlgorithmsUniqueGpu, EmptyInput) {
  CUTLET_REQUIRE_GPU();
  Stream st;
  Buffer<double> empty;
  auto out = poisoned<double>(st, 1);
  auto lengths = poisoned<std::int32_t>(st, 1);
  auto count = poisoned<std::int32_t>(st, 1);
  alg::unique(st, empty, out, count);
  EXPECT_EQ(count.to_host(st)[0], 0);
  auto runs = poisoned<std::int32_t>(st, 1);
  alg::run_length_encode(st, empty, out, lengths, runs);
  EXPECT_EQ(runs.to_host(st)[0], 0);
  EXPECT_EQ(lengths.to_host(st)[0], static_cast<std::int32_t>(0xCDCDCDCDu));
}

TEST(AlgorithmsUniqueGpu, BorrowedWorkspacesReused) {
  CUTLET_REQUIRE_GPU();
  Stream st;
  const std::size_t n = 45 * alg::kSelectTile<std::uint32_t> + 7;
  const auto h = runs_input<std::uint32_t>(n, 1, 30, 8);
  std::vector<std::uint32_t> firsts;
  std::vector<std::int32_t> lengths;
  host_runs(h, [](std::uint32_t a, std::uint32_t b) { return a == b; }, firsts, lengths);
  Buffer<std::uint32_t> in(st, h);
  DeviceMemory unique_scratch(alg::select_workspace_bytes<std::uint32_t>(n), st.device());
  DeviceMemory rle_scratch(alg::run_length_encode_workspace_bytes<std::uint32_t>(n), st.device());
  unique_scratch.fill_bytes(st, 0xAB);  // the algorithms clear what they need themselves
  rle_scratch.fill_bytes(st, 0xAB);
  for (int run = 0; run < 2; ++run) {
    auto out = poisoned<std::uint32_t>(st, n);
    auto count = poisoned<std::int32_t>(st, 1);
    alg::unique(st, in, out, count, alg::equal_to{}, alg::Workspace::borrow(unique_scratch));
    ASSERT_EQ(count.to_host(st)[0], static_cast<std::int32_t>(firsts.size()));
    expect_prefix(out.to_host(st), firsts, "unique item");
    auto rle_out = poisoned<std::uint32_t>(st, n);
    auto got_lengths = poisoned<std::int32_t>(st, n);
    auto runs = poisoned<std::int32_t>(st, 1);
    alg::run_length_encode(st, in, rle_out, got_lengths, runs, alg::equal_to{}, alg::Workspace::borrow(rle_scratch));
    ASSERT_EQ(runs.to_host(st)[0], static_cast<std::int32_t>(firsts.size()));
    expect_prefix(got_lengths.to_host(st), lengths, "run length");
  }
}

TEST(AlgorithmsUniqueGpu, ArgumentChecks) {
  CUTLET_REQUIRE_GPU();
  Stream st;
  Buffer<float> in(st, algorithm_input<float>(100, 1));
  auto out = poisoned<float>(st, 100);
  auto count = poisoned<std::int32_t>(st, 1);
  auto short_out = poisoned<float>(st, 10);
  EXPECT_NE(message_of([&] { alg::unique(st, in, short_out, count); }).find("output buffer holds 10 elements but 100"),
            std::string::npos);
  auto short_lengths = poisoned<std::int32_t>(st, 99);
  EXPECT_NE(message_of([&] { alg::run_length_encode(st, in, out, short_lengths, count); })
                .find("lengths buffer holds 99 elements but 100"),
            std::string::npos);
  Buffer<std::int32_t> no_count;
  auto lengths = poisoned<std::int32_t>(st, 100);
  EXPECT_NE(message_of([&] { alg::run_length_encode(st, in, out, lengths, no_count); })
                .find("run count buffer holds 0 elements but 1"),
            std::string::npos);
  DeviceMemory small(16, st.device());
  EXPECT_NE(message_of([&] {
              alg::run_length_encode(st, in, out, lengths, count, alg::equal_to{}, alg::Workspace::borrow(small));
            }).find("workspace holds 16 bytes"),
            std::string::npos);
}

}  // namespace
