// reduce over buffers of user structs against a CPU reference: structs of 8, 12, 16 and 24
// bytes (one 8-byte load, three word loads, one 16-byte load, six word loads) with 1-, 2-, 4-
// and 8-byte fields, sizes around the tile and grid boundaries, empty input, results bit
// identical run to run.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>

#include "algorithms/algorithm_test_support.h"
#include "algorithms/struct_test_elements.h"
#include "gpu_test_support.h"
#include "kernel_test_support.h"

using namespace cutlet;
using namespace cutlet::test;
namespace alg = cutlet::algorithms;

namespace {

template <class S, class Op>
void check_struct_reduce(const S& init) {
  Stream st;
  const std::size_t tile = std::size_t{alg::kReduceBlock} * alg::kReduceIteratorItems;
  const std::size_t grid = static_cast<std::size_t>(st.device().sm_count()) * alg::kReduceBlocksPerSm;
  std::vector<std::size_t> sizes = boundary_sizes(tile, 2 * grid);
  for (std::size_t d : {grid * tile - 1, grid * tile + 1}) sizes.push_back(d);
  for (std::size_t n : sizes) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const std::vector<S> h = struct_input<S>(n, 77 + n);
    Buffer<S> in(st, h);
    Buffer<S> out = poisoned<S>(st, 1);
    alg::reduce(st, in, out, Op{}, init);
    const S got = out.to_host(st)[0];
    S want = init;
    for (const S& x : h) want = host_op(want, x);
    ASSERT_TRUE(same_fields(got, want));
    // The same bits on a second run.
    const S again = alg::reduce_value(st, in, Op{}, init);
    ASSERT_EQ(std::memcmp(&got, &again, sizeof(S)), 0);
  }
}

TEST(AlgorithmsReduceStructGpu, MinMaxSumOfTwelveBytes) {
  CUTLET_REQUIRE_GPU();
  const float inf = std::numeric_limits<float>::infinity();
  check_struct_reduce<MinMaxSum, MinMaxSumOp>(MinMaxSum{inf, -inf, 0.5f});
}

TEST(AlgorithmsReduceStructGpu, ArgmaxWithCountOfSixteenBytes) {
  CUTLET_REQUIRE_GPU();
  check_struct_reduce<Best, BestOp>(Best{-std::numeric_limits<float>::infinity(), -1, 5});
}

TEST(AlgorithmsReduceStructGpu, ByteAndHalfWordFields) {
  CUTLET_REQUIRE_GPU();
  check_struct_reduce<Small, SmallOp>(Small{0, 127, false, 0.0f});
}

TEST(AlgorithmsReduceStructGpu, DoubleFieldOfTwentyFourBytes) {
  CUTLET_REQUIRE_GPU();
  const float inf = std::numeric_limits<float>::infinity();
  check_struct_reduce<Wide, WideOp>(Wide{1.0, inf, -inf, 0, 0x5a5a});
}

TEST(AlgorithmsReduceStructGpu, GenericLambdaOperator) {
  CUTLET_REQUIRE_GPU();
  // A lambda over Struct values, its result built from the init by set.
  auto op = [](Struct<MinMaxSum> a, Struct<MinMaxSum> b) {
    Struct<MinMaxSum> r = a;
    r.set(&MinMaxSum::lo, min(a[&MinMaxSum::lo], b[&MinMaxSum::lo]));
    r.set(&MinMaxSum::hi, max(a[&MinMaxSum::hi], b[&MinMaxSum::hi]));
    r.set(&MinMaxSum::sum, a[&MinMaxSum::sum] + b[&MinMaxSum::sum]);
    return r;
  };
  Stream st;
  const std::vector<MinMaxSum> h = struct_input<MinMaxSum>(100003, 5);
  Buffer<MinMaxSum> in(st, h);
  const MinMaxSum got = alg::reduce_value(st, in, op, MinMaxSum{0.0f, 0.0f, 0.0f});
  MinMaxSum want{0.0f, 0.0f, 0.0f};
  for (const MinMaxSum& x : h) want = host_op(want, x);
  EXPECT_TRUE(same_fields(got, want));
}

}  // namespace
