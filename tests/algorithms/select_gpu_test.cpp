// select_if and select_flagged against std::copy_if: every element type, sizes around the
// tile boundaries and past several 32-tile look-back windows, predicates keeping about half,
// a few, all and none of the items (user lambdas), flags of every width, outputs and counts
// poisoned first (the output past the kept items stays so), in place, the host-returning
// forms, a caller's workspace, and the argument checks.
#include <gtest/gtest.h>

#include <algorithm>
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

/// A value of T that about `fraction` of algorithm_input's values exceed.
template <class T>
T threshold(double fraction) {
  if constexpr (std::is_floating_point_v<T>) return static_cast<T>(1 - 2 * fraction);
  else if constexpr (std::is_signed_v<T>) return static_cast<T>(1000 - 2000 * fraction);
  else return static_cast<T>(1000 - 1000 * fraction);
}

/// std::copy_if of `h` by `keep`.
template <class T, class Keep>
std::vector<T> host_select(const std::vector<T>& h, Keep keep) {
  std::vector<T> r;
  std::copy_if(h.begin(), h.end(), std::back_inserter(r), keep);
  return r;
}

/// select_if(pred) on every boundary size against host_pred.
template <class T, class Pred, class HostPred>
void check_select_if(Pred pred, HostPred host_pred) {
  Stream st;
  for (std::size_t n : boundary_sizes(alg::kSelectTile<T>, kLargeTiles)) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const std::vector<T> h = algorithm_input<T>(n, 300 + n);
    Buffer<T> in(st, h);
    auto out = poisoned<T>(st, n + 5);
    auto count = poisoned<std::int32_t>(st, 1);
    alg::select_if(st, in, out, count, pred);
    expect_selected(st, host_select(h, host_pred), out, count);
  }
}

template <class T>
void check_type() {
  SCOPED_TRACE(element_label<T>());
  {
    SCOPED_TRACE("about half");
    const T mid = threshold<T>(0.5);
    // A lambda that captures nothing: the threshold is computed inside, from constants.
    check_select_if<T>([](Value<T> x) { return x > threshold<T>(0.5); }, [mid](T x) { return x > mid; });
  }
  {
    SCOPED_TRACE("a few");
    const T high = threshold<T>(0.02);
    check_select_if<T>([](Value<T> x) { return x > threshold<T>(0.02); }, [high](T x) { return x > high; });
  }
  {
    SCOPED_TRACE("all");
    check_select_if<T>([](Value<T> x) { return x == x; }, [](T) { return true; });
  }
  {
    SCOPED_TRACE("none");
    check_select_if<T>([](Value<T> x) { return x != x; }, [](T) { return false; });
  }
}

TEST(AlgorithmsSelectGpu, Float) {
  CUTLET_REQUIRE_GPU();
  check_type<float>();
}
TEST(AlgorithmsSelectGpu, Double) {
  CUTLET_REQUIRE_GPU();
  check_type<double>();
}
TEST(AlgorithmsSelectGpu, Int32) {
  CUTLET_REQUIRE_GPU();
  check_type<std::int32_t>();
}
TEST(AlgorithmsSelectGpu, UInt32) {
  CUTLET_REQUIRE_GPU();
  check_type<std::uint32_t>();
}
TEST(AlgorithmsSelectGpu, Int64) {
  CUTLET_REQUIRE_GPU();
  check_type<std::int64_t>();
}
TEST(AlgorithmsSelectGpu, UInt64) {
  CUTLET_REQUIRE_GPU();
  check_type<std::uint64_t>();
}

TEST(AlgorithmsSelectGpu, ParityOfIntegers) {
  CUTLET_REQUIRE_GPU();
  // Kept and dropped items alternate irregularly: odd values of random 64-bit words.
  Stream st;
  const std::size_t n = 37 * alg::kSelectTile<std::uint64_t> + 999;
  const auto h = random_words(n, 4);
  Buffer<std::uint64_t> in(st, h);
  auto out = poisoned<std::uint64_t>(st, n);
  auto count = poisoned<std::int32_t>(st, 1);
  alg::select_if(st, in, out, count, [](u64 x) { return (x & 1u) == 1u; });
  expect_selected(st, host_select(h, [](std::uint64_t x) { return (x & 1u) == 1u; }), out, count);
}

/// select_flagged with random flags of F (`density` of them nonzero) on every boundary size.
template <class T, class F>
void check_flagged(double density) {
  Stream st;
  SCOPED_TRACE(element_label<T>() + " items, " + alg::element_name<F>() + " flags");
  for (std::size_t n : boundary_sizes(alg::kSelectTile<T>, kLargeTiles / 4)) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const std::vector<T> h = algorithm_input<T>(n, 500 + n);
    std::mt19937_64 rng(n);
    std::bernoulli_distribution on(density);
    std::vector<F> flags(n);
    for (auto& f : flags) f = on(rng) ? F(1 + rng() % 3) : F(0);
    Buffer<T> in(st, h);
    Buffer<F> fl(st, flags);
    auto out = poisoned<T>(st, n + 2);
    auto count = poisoned<std::int32_t>(st, 1);
    alg::select_flagged(st, in, fl, out, count);
    std::vector<T> kept;
    for (std::size_t i = 0; i < n; ++i)
      if (flags[i] != F(0)) kept.push_back(h[i]);
    expect_selected(st, kept, out, count);
  }
}

TEST(AlgorithmsSelectGpu, FlaggedEveryItemTypeByteFlags) {
  CUTLET_REQUIRE_GPU();
  check_flagged<float, std::uint8_t>(0.5);
  check_flagged<double, std::uint8_t>(0.5);
  check_flagged<std::int32_t, std::uint8_t>(0.3);
  check_flagged<std::uint32_t, std::uint8_t>(0.7);
  check_flagged<std::int64_t, std::uint8_t>(0.5);
  check_flagged<std::uint64_t, std::uint8_t>(0.05);
}

TEST(AlgorithmsSelectGpu, FlaggedWideFlags) {
  CUTLET_REQUIRE_GPU();
  check_flagged<float, std::int32_t>(0.5);
  check_flagged<float, double>(0.5);
  check_flagged<double, std::uint32_t>(0.5);
  check_flagged<std::int32_t, std::uint64_t>(0.5);
  check_flagged<std::uint64_t, float>(0.5);
}

TEST(AlgorithmsSelectGpu, FloatFlagsAreNonzero) {
  CUTLET_REQUIRE_GPU();
  // -0.0 is zero (not kept); NaN and denormals are nonzero (kept).
  Stream st;
  const std::vector<float> flags{0.0f, -0.0f, std::numeric_limits<float>::quiet_NaN(),
                                 std::numeric_limits<float>::denorm_min(), -1.0f, 0.0f, 2.0f};
  const std::vector<std::int32_t> items{10, 11, 12, 13, 14, 15, 16};
  Buffer<std::int32_t> in(st, items);
  Buffer<float> fl(st, flags);
  auto out = poisoned<std::int32_t>(st, items.size());
  EXPECT_EQ(alg::select_flagged(st, in, fl, out), 4u);
  const auto got = out.to_host(st);
  EXPECT_EQ(std::vector<std::int32_t>(got.begin(), got.begin() + 4), (std::vector<std::int32_t>{12, 13, 14, 16}));
}

TEST(AlgorithmsSelectGpu, InPlaceAndHostCount) {
  CUTLET_REQUIRE_GPU();
  Stream st;
  for (std::size_t n : {std::size_t{1000}, 50 * std::size_t{alg::kSelectTile<std::int32_t>} + 17}) {
    const auto h = algorithm_input<std::int32_t>(n, 9);
    Buffer<std::int32_t> data(st, h);
    auto negative = [](i32 x) { return x < 0; };
    const std::size_t m = alg::select_if(st, data, data, negative);
    const auto want = host_select(h, [](std::int32_t x) { return x < 0; });
    ASSERT_EQ(m, want.size());
    const auto got = data.to_host(st);
    EXPECT_EQ(std::vector<std::int32_t>(got.begin(), got.begin() + static_cast<long>(m)), want);
    // In place, the items past m are the input's own.
    EXPECT_EQ(std::vector<std::int32_t>(got.begin() + static_cast<long>(m), got.end()),
              std::vector<std::int32_t>(h.begin() + static_cast<long>(m), h.end()));
  }
}

TEST(AlgorithmsSelectGpu, EmptyInput) {
  CUTLET_REQUIRE_GPU();
  Stream st;
  Buffer<float> empty;
  Buffer<std::uint8_t> no_flags;
  auto out = poisoned<float>(st, 1);
  auto count = poisoned<std::int32_t>(st, 1);
  alg::select_if(st, empty, out, count, [](f32 x) { return x > 0.0f; });
  EXPECT_EQ(count.to_host(st)[0], 0);
  auto again = poisoned<std::int32_t>(st, 1);
  alg::select_flagged(st, empty, no_flags, out, again);
  EXPECT_EQ(again.to_host(st)[0], 0);
  EXPECT_EQ(out.to_host(st)[0], poisoned<float>(st, 1).to_host(st)[0]);
}

TEST(AlgorithmsSelectGpu, BorrowedWorkspaceReused) {
  CUTLET_REQUIRE_GPU();
  Stream st;
  const std::size_t n = 40 * alg::kSelectTile<double> + 3;
  const auto h = algorithm_input<double>(n, 21);
  Buffer<double> in(st, h);
  DeviceMemory scratch(alg::select_workspace_bytes<double>(n), st.device());
  scratch.fill_bytes(st, 0xAB);  // select clears what it needs itself
  for (int run = 0; run < 2; ++run) {
    auto out = poisoned<double>(st, n);
    auto count = poisoned<std::int32_t>(st, 1);
    alg::select_if(st, in, out, count, [](f64 x) { return x < 0.25; }, alg::Workspace::borrow(scratch));
    expect_selected(st, host_select(h, [](double x) { return x < 0.25; }), out, count);
  }
}

TEST(AlgorithmsSelectGpu, ArgumentChecks) {
  CUTLET_REQUIRE_GPU();
  Stream st;
  Buffer<float> in(st, algorithm_input<float>(100, 1));
  auto count = poisoned<std::int32_t>(st, 1);
  auto keep = [](f32 x) { return x > 0.0f; };
  auto short_out = poisoned<float>(st, 99);
  EXPECT_NE(message_of([&] { alg::select_if(st, in, short_out, count, keep); }).find("output buffer holds 99 elements but 100"),
            std::string::npos);
  auto out = poisoned<float>(st, 100);
  Buffer<std::int32_t> no_count;
  EXPECT_NE(message_of([&] { alg::select_if(st, in, out, no_count, keep); }).find("count buffer holds 0 elements but 1"),
            std::string::npos);
  auto shifted = Buffer<float>::wrap(in.data() + 4, 90, st.device());
  EXPECT_NE(message_of([&] { alg::select_if(st, shifted, out, count, keep); }).find("not 16-byte aligned"),
            std::string::npos);
  Buffer<std::uint8_t> few_flags(st, std::vector<std::uint8_t>(50, 1));
  EXPECT_NE(message_of([&] { alg::select_flagged(st, in, few_flags, out, count); }).find("flags buffer holds 50"),
            std::string::npos);
  DeviceMemory small(16, st.device());
  EXPECT_NE(message_of([&] { alg::select_if(st, in, out, count, keep, alg::Workspace::borrow(small)); })
                .find("workspace holds 16 bytes"),
            std::string::npos);
}

}  // namespace
