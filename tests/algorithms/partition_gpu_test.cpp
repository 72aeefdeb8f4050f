// three_way_partition against a sequential split on the host: every element type, sizes around
// the tile boundaries and past several 32-tile look-back windows, predicates that split the
// items about evenly, that overlap (the first wins), that send everything to one part, outputs
// and counts poisoned first (the outputs past their parts stay so), the host-returning form, a
// caller's workspace, and the argument checks.
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "algorithms/algorithm_test_support.h"
#include "gpu_test_support.h"
#include "kernel_test_support.h"

using namespace cutlet;
using namespace cutlet::test;
namespace alg = cutlet::algorithms;

namespace {

/// Tiles of the largest size: several look-back windows of 32 tiles.
constexpr std::size_t kLargeTiles = 70;

/// The three parts of `h` split sequentially by `first` and `second`.
template <class T>
struct HostParts {
  std::vector<T> first, second, unselected;
};
template <class T, class First, class Second>
HostParts<T> host_partition(const std::vector<T>& h, First first, Second second) {
  HostParts<T> p;
  for (const T& x : h) {
    if (first(x)) p.first.push_back(x);
    else if (second(x)) p.second.push_back(x);
    else p.unselected.push_back(x);
  }
  return p;
}

/// out[0, want.size()) equals `want` bit for bit, and the rest of `out` is still poisoned.
template <class T>
void expect_part(const Stream& st, const std::vector<T>& want, const Buffer<T>& out, const char* part) {
  SCOPED_TRACE(part);
  const std::vector<T> got = out.to_host(st);
  ASSERT_GE(got.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i)
    ASSERT_EQ(std::memcmp(&got[i], &want[i], sizeof(T)), 0) << "item " << i << " of " << want.size();
  const T poison = poisoned<T>(st, 1).to_host(st)[0];
  for (std::size_t i = want.size(); i < got.size(); ++i)
    ASSERT_EQ(std::memcmp(&got[i], &poison, sizeof(T)), 0) << "output " << i << " past the part's items";
}

/// The counts a partition gave and its three outputs against the host split `want`.
template <class T>
void expect_parts(const Stream& st, const HostParts<T>& want, const alg::PartitionCounts& got, const Buffer<T>& a,
                  const Buffer<T>& b, const Buffer<T>& c) {
  ASSERT_EQ(got.first, want.first.size()) << "first count";
  ASSERT_EQ(got.second, want.second.size()) << "second count";
  ASSERT_EQ(got.unselected, want.unselected.size()) << "unselected count";
  expect_part(st, want.first, a, "first part");
  expect_part(st, want.second, b, "second part");
  expect_part(st, want.unselected, c, "unselected part");
}

/// three_way_partition(first, second) of algorithm_input on every boundary size against the
/// host split.
template <class T, class First, class Second, class HostFirst, class HostSecond>
void check_partition(First first, Second second, HostFirst host_first, HostSecond host_second,
                     std::size_t large_tiles = kLargeTiles) {
  Stream st;
  for (std::size_t n : boundary_sizes(alg::kSelectTile<T>, large_tiles)) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const std::vector<T> h = algorithm_input<T>(n, 700 + n);
    Buffer<T> in(st, h);
    auto a = poisoned<T>(st, n + 3);
    auto b = poisoned<T>(st, n + 3);
    auto c = poisoned<T>(st, n + 3);
    auto counts = poisoned<std::int32_t>(st, 2);
    alg::three_way_partition(st, in, a, b, c, counts, first, second);
    const auto got = counts.to_host(st);
    ASSERT_GE(got[0], 0);
    ASSERT_GE(got[1], 0);
    ASSERT_LE(got[0] + got[1], static_cast<std::int32_t>(n));
    const auto first_count = static_cast<std::size_t>(got[0]), second_count = static_cast<std::size_t>(got[1]);
    expect_parts(st, host_partition(h, host_first, host_second),
                 alg::PartitionCounts{first_count, second_count, n - first_count - second_count}, a, b, c);
  }
}

/// A value of T near the middle-low and middle-high of algorithm_input's range.
template <class T>
constexpr T low_cut() {
  if constexpr (std::is_floating_point_v<T>) return T(-0.3);
  else if constexpr (std::is_signed_v<T>) return T(-300);
  else return T(350);
}
template <class T>
constexpr T high_cut() {
  if constexpr (std::is_floating_point_v<T>) return T(0.3);
  else if constexpr (std::is_signed_v<T>) return T(300);
  else return T(650);
}

template <class T>
void check_type() {
  SCOPED_TRACE(element_label<T>());
  {
    SCOPED_TRACE("about a third each");
    check_partition<T>([](Value<T> x) { return x > high_cut<T>(); }, [](Value<T> x) { return x < low_cut<T>(); },
                       [](T x) { return x > high_cut<T>(); }, [](T x) { return x < low_cut<T>(); });
  }
  {
    // Both predicates hold above high_cut: those items go to the first part only.
    SCOPED_TRACE("overlapping predicates");
    check_partition<T>([](Value<T> x) { return x > high_cut<T>(); }, [](Value<T> x) { return x > low_cut<T>(); },
                       [](T x) { return x > high_cut<T>(); }, [](T x) { return x > low_cut<T>(); }, 10);
  }
}

TEST(AlgorithmsPartitionGpu, Float) {
  CUTLET_REQUIRE_GPU();
  check_type<float>();
}
TEST(AlgorithmsPartitionGpu, Double) {
  CUTLET_REQUIRE_GPU();
  check_type<double>();
}
TEST(AlgorithmsPartitionGpu, Int32) {
  CUTLET_REQUIRE_GPU();
  check_type<std::int32_t>();
}
TEST(AlgorithmsPartitionGpu, UInt32) {
  CUTLET_REQUIRE_GPU();
  check_type<std::uint32_t>();
}
TEST(AlgorithmsPartitionGpu, Int64) {
  CUTLET_REQUIRE_GPU();
  check_type<std::int64_t>();
}
TEST(AlgorithmsPartitionGpu, UInt64) {
  CUTLET_REQUIRE_GPU();
  check_type<std::uint64_t>();
}

TEST(AlgorithmsPartitionGpu, EverythingInOnePart) {
  CUTLET_REQUIRE_GPU();
  {
    SCOPED_TRACE("all first");
    check_partition<float>([](f32 x) { return x == x; }, [](f32) { return Value<bool>(true); },
                           [](float) { return true; }, [](float) { return true; }, 5);
  }
  {
    SCOPED_TRACE("all second");
    check_partition<std::int32_t>([](i32 x) { return x != x; }, [](i32 x) { return x == x; },
                                  [](std::int32_t) { return false; }, [](std::int32_t) { return true; }, 5);
  }
  {
    SCOPED_TRACE("all unselected");
    check_partition<double>([](f64 x) { return x > 2.0; }, [](f64 x) { return x < -2.0; },
                            [](double x) { return x > 2.0; }, [](double x) { return x < -2.0; }, 5);
  }
}

TEST(AlgorithmsPartitionGpu, ParityAndBitsOfWords) {
  CUTLET_REQUIRE_GPU();
  // Parts alternate irregularly: odd words first, then words with bit 1 set, then the rest.
  Stream st;
  const std::size_t n = 37 * alg::kSelectTile<std::uint64_t> + 999;
  const auto h = random_words(n, 8);
  Buffer<std::uint64_t> in(st, h);
  auto a = poisoned<std::uint64_t>(st, n);
  auto b = poisoned<std::uint64_t>(st, n);
  auto c = poisoned<std::uint64_t>(st, n);
  const alg::PartitionCounts got = alg::three_way_partition(
      st, in, a, b, c, [](u64 x) { return (x & 1u) == 1u; }, [](u64 x) { return (x & 2u) == 2u; });
  const auto want = host_partition(h, [](std::uint64_t x) { return (x & 1u) == 1u; },
                                   [](std::uint64_t x) { return (x & 2u) == 2u; });
  expect_parts(st, want, got, a, b, c);
}

TEST(AlgorithmsPartitionGpu, EmptyInput) {
  CUTLET_REQUIRE_GPU();
  Stream st;
  Buffer<float> empty;
  auto a = poisoned<float>(st, 1);
  auto counts = poisoned<std::int32_t>(st, 2);
  alg::three_way_partition(st, empty, a, a, a, counts, [](f32 x) { return x > 0.0f; },
                           [](f32 x) { return x < 0.0f; });
  EXPECT_EQ(counts.to_host(st), (std::vector<std::int32_t>{0, 0}));
  const alg::PartitionCounts none = alg::three_way_partition(
      st, empty, a, a, a, [](f32 x) { return x > 0.0f; }, [](f32 x) { return x < 0.0f; });
  EXPECT_EQ(none.first + none.second + none.unselected, 0u);
}

TEST(AlgorithmsPartitionGpu, BorrowedWorkspaceReused) {
  CUTLET_REQUIRE_GPU();
  Stream st;
  const std::size_t n = 40 * alg::kSelectTile<std::int64_t> + 3;
  const auto h = algorithm_input<std::int64_t>(n, 22);
  Buffer<std::int64_t> in(st, h);
  DeviceMemory scratch(alg::three_way_partition_workspace_bytes<std::int64_t>(n), st.device());
  scratch.fill_bytes(st, 0xAB);  // the partition clears what it needs itself
  auto first = [](i64 x) { return x < std::int64_t{-500}; };
  auto second = [](i64 x) { return (x & std::int64_t{1}) == std::int64_t{0}; };
  const auto want = host_partition(h, [](std::int64_t x) { return x < -500; }, [](std::int64_t x) { return x % 2 == 0; });
  for (int run = 0; run < 2; ++run) {
    auto a = poisoned<std::int64_t>(st, n);
    auto b = poisoned<std::int64_t>(st, n);
    auto c = poisoned<std::int64_t>(st, n);
    const alg::PartitionCounts got =
        alg::three_way_partition(st, in, a, b, c, first, second, alg::Workspace::borrow(scratch));
    expect_parts(st, want, got, a, b, c);
  }
}

TEST(AlgorithmsPartitionGpu, ArgumentChecks) {
  CUTLET_REQUIRE_GPU();
  Stream st;
  Buffer<float> in(st, algorithm_input<float>(100, 1));
  auto counts = poisoned<std::int32_t>(st, 2);
  auto pos = [](f32 x) { return x > 0.5f; };
  auto neg = [](f32 x) { return x < -0.5f; };
  auto a = poisoned<float>(st, 100);
  auto b = poisoned<float>(st, 100);
  auto c = poisoned<float>(st, 100);
  auto short_out = poisoned<float>(st, 99);
  EXPECT_NE(message_of([&] { alg::three_way_partition(st, in, a, short_out, c, counts, pos, neg); })
                .find("second-part output buffer holds 99 elements but 100"),
            std::string::npos);
  auto one_count = poisoned<std::int32_t>(st, 1);
  EXPECT_NE(message_of([&] { alg::three_way_partition(st, in, a, b, c, one_count, pos, neg); })
                .find("count buffer holds 1 elements but 2"),
            std::string::npos);
  EXPECT_NE(message_of([&] { alg::three_way_partition(st, in, a, a, c, counts, pos, neg); })
                .find("the first-part output and the second-part output overlap"),
            std::string::npos);
  EXPECT_NE(message_of([&] { alg::three_way_partition(st, in, in, b, c, counts, pos, neg); })
                .find("the first-part output and the input overlap"),
            std::string::npos);
  auto shifted = Buffer<float>::wrap(in.data() + 4, 90, st.device());
  EXPECT_NE(message_of([&] { alg::three_way_partition(st, shifted, a, b, c, counts, pos, neg); })
                .find("not 16-byte aligned"),
            std::string::npos);
  DeviceMemory small(16, st.device());
  EXPECT_NE(message_of([&] { alg::three_way_partition(st, in, a, b, c, counts, pos, neg, alg::Workspace::borrow(small)); })
                .find("workspace holds 16 bytes"),
            std::string::npos);
}

}  // namespace
