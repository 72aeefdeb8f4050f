// reduce against a CPU reference: every element type, sizes around the tile and grid
// boundaries, several operators and inits, results run to run bit-identical, and the
// argument checks.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "algorithms/algorithm_test_support.h"
#include "gpu_test_support.h"
#include "kernel_test_support.h"

using namespace cutlet;
using namespace cutlet::test;
namespace alg = cutlet::algorithms;

namespace {

/// Elements of a tile of reduce's first pass.
template <class T>
constexpr std::size_t reduce_tile() {
  return std::size_t{alg::kReduceBlock} * alg::kReduceUnroll * (16 / sizeof(T));
}

/// Checks reduce(op, init) on every boundary size against `host_op` folded on the CPU, exactly
/// when `tolerance` is 0; otherwise `op` is a float sum, compared with the sum in double.
template <class T, class Op, class HostOp>
void check_reduce(Op op, HostOp host_op, T init, double tolerance) {
  Stream st;
  SCOPED_TRACE(element_label<T>());
  // Enough tiles that every block of the grid takes several (the grid-stride loop).
  // Enough tiles that every block of the grid takes several (the grid-stride loop), and the
  // sizes around one tile per block of the full grid.
  const std::size_t grid = static_cast<std::size_t>(st.device().sm_count()) * alg::kReduceBlocksPerSm;
  std::vector<std::size_t> sizes = boundary_sizes(reduce_tile<T>(), 3 * grid);
  for (std::size_t d : {grid * reduce_tile<T>() - 1, grid * reduce_tile<T>(), grid * reduce_tile<T>() + 1})
    sizes.push_back(d);
  for (std::size_t n : sizes) {
    SCOPED_TRACE("n = " + std::to_string(n));
    auto h = algorithm_input<T>(n, 1000 + n);
    Buffer<T> in(st, h);
    auto out = poisoned<T>(st, 1);
    alg::reduce(st, in, out, op, init);
    const T got = out.to_host(st)[0];
    if (tolerance == 0) {
      T want = init;
      for (T x : h) want = host_op(want, x);
      ASSERT_EQ(got, want);
    } else {
      // A float sum: against the sum in double, within `tolerance` of the sum of |x|.
      double want = static_cast<double>(init), magnitude = std::fabs(want);
      for (T x : h) {
        want += static_cast<double>(x);
        magnitude += std::fabs(static_cast<double>(x));
      }
      ASSERT_NEAR(static_cast<double>(got), want, tolerance * (magnitude + 1));
    }
    // Deterministic: a second run gives the same bits.
    auto again = poisoned<T>(st, 1);
    alg::reduce(st, in, again, op, init);
    const T got2 = again.to_host(st)[0];
    ASSERT_EQ(std::memcmp(&got, &got2, sizeof(T)), 0);
  }
}

template <class T>
void check_type() {
  const double sum_tolerance = std::is_same_v<T, float> ? 1e-5 : std::is_same_v<T, double> ? 1e-12 : 0.0;
  check_reduce<T>(alg::plus{}, [](T a, T b) { return T(a + b); }, T(7), sum_tolerance);
  check_reduce<T>(alg::maximum{}, [](T a, T b) { return std::max(a, b); }, std::numeric_limits<T>::lowest(), 0.0);
  check_reduce<T>(alg::minimum{}, [](T a, T b) { return std::min(a, b); }, std::numeric_limits<T>::max(), 0.0);
  // A user lambda: the larger magnitude, the larger value among equal ones (a total order,
  // so commutative and associative).
  check_reduce<T>([](Value<T> a, Value<T> b) { return select((a * a > b * b) | ((a * a == b * b) & (a > b)), a, b); },
                  [](T a, T b) { return (a * a > b * b) || (a * a == b * b && a > b) ? a : b; }, T(0), 0.0);
}

TEST(AlgorithmsReduceGpu, Float) {
  CUTLET_REQUIRE_GPU();
  check_type<float>();
}
TEST(AlgorithmsReduceGpu, Double) {
  CUTLET_REQUIRE_GPU();
  check_type<double>();
}
TEST(AlgorithmsReduceGpu, Int32) {
  CUTLET_REQUIRE_GPU();
  check_type<std::int32_t>();
}
TEST(AlgorithmsReduceGpu, UInt32) {
  CUTLET_REQUIRE_GPU();
  check_type<std::uint32_t>();
}
TEST(AlgorithmsReduceGpu, Int64) {
  CUTLET_REQUIRE_GPU();
  check_type<std::int64_t>();
}
TEST(AlgorithmsReduceGpu, UInt64AndBitwiseOperators) {
  CUTLET_REQUIRE_GPU();
  check_type<std::uint64_t>();
  check_reduce<std::uint64_t>(alg::bit_xor{}, [](std::uint64_t a, std::uint64_t b) { return a ^ b; },
                              std::uint64_t{0x5555}, 0.0);
  check_reduce<std::uint64_t>(alg::bit_or{}, [](std::uint64_t a, std::uint64_t b) { return a | b; }, std::uint64_t{0},
                              0.0);
}

TEST(AlgorithmsReduceGpu, HostValueAndWorkspaces) {
  CUTLET_REQUIRE_GPU();
  Stream st;
  const std::size_t n = 123457;
  auto h = algorithm_input<std::int64_t>(n, 5);
  std::int64_t want = -3;
  for (auto x : h) want += x;
  Buffer<std::int64_t> in(st, h);
  EXPECT_EQ(alg::reduce_value(st, in, alg::plus{}, std::int64_t{-3}), want);
  // Caller-provided memory of exactly the bytes reduce asks for.
  DeviceMemory scratch(alg::reduce_workspace_bytes<std::int64_t>(st.device(), n), st.device());
  EXPECT_EQ(alg::reduce_value(st, in, alg::plus{}, std::int64_t{-3}, alg::Workspace::borrow(scratch)), want);
  // A plain device memory resource.
  EXPECT_EQ(alg::reduce_value(st, in, alg::plus{}, std::int64_t{-3},
                              alg::Workspace::from(DeviceMemoryResource::shared(st.device()))),
            want);
  // Too small a workspace is refused.
  DeviceMemory small(8, st.device());
  auto out = poisoned<std::int64_t>(st, 1);
  EXPECT_NE(message_of([&] { alg::reduce(st, in, out, alg::plus{}, std::int64_t{0}, alg::Workspace::borrow(small)); })
                .find("workspace holds 8 bytes"),
            std::string::npos);
}

TEST(AlgorithmsReduceGpu, ArgumentChecks) {
  CUTLET_REQUIRE_GPU();
  Stream st;
  Buffer<float> in(st, algorithm_input<float>(100, 1));
  Buffer<float> empty;
  EXPECT_NE(message_of([&] { alg::reduce(st, in, empty, alg::plus{}, 0.0f); }).find("output buffer holds 0"),
            std::string::npos);
  auto shifted = Buffer<float>::wrap(in.data() + 4, 90, st.device());
  auto out = poisoned<float>(st, 1);
  EXPECT_NE(message_of([&] { alg::reduce(st, shifted, out, alg::plus{}, 0.0f); }).find("not 16-byte aligned"),
            std::string::npos);
}

TEST(AlgorithmsReduceGpu, MoreThanTwoToThe31Elements) {
  CUTLET_REQUIRE_GPU();
  Stream st;
  const std::size_t n = (std::size_t{1} << 31) + 4099;  // three chunks, the last partial
  if (st.device().total_memory() < (std::size_t{16} << 30))
    GTEST_SKIP() << "needs 16 GiB of device memory for 2^31 + 4099 u32 elements (" << st.device().name() << " has "
                 << (st.device().total_memory() >> 30) << " GiB)";
  Buffer<std::uint32_t> in(n, st);
  in.fill_bytes(st, 0x01);  // every element 0x01010101
  // Values of their own at the chunks' edges and at the very end.
  const std::size_t marked[] = {0, (std::size_t{1} << 30) - 1, std::size_t{1} << 30, std::size_t{1} << 31, n - 1};
  const std::uint32_t value[] = {5, 1u << 30, 77, 3, 0xfffffff0u};
  std::uint32_t want_sum = static_cast<std::uint32_t>(n) * 0x01010101u;
  for (int i = 0; i < 5; ++i) {
    Buffer<std::uint32_t>::wrap(in.data() + marked[i] * 4, 1, st.device()).copy_from_host(st, std::span(&value[i], 1));
    want_sum += value[i] - 0x01010101u;
  }
  EXPECT_EQ(alg::reduce_value(st, in, alg::plus{}, std::uint32_t{9}), want_sum + 9);
  EXPECT_EQ(alg::reduce_value(st, in, alg::maximum{}, std::uint32_t{0}), 0xfffffff0u);  // the last element's
  EXPECT_EQ(alg::reduce_value(st, in, alg::minimum{}, std::uint32_t{~0u}), 3u);
}

}  // namespace
