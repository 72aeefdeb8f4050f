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
#include "gpu_test_support.h"
#include "kernel_test_support.h"

using namespace cutlet;
using namespace cutlet::test;
namespace alg = cutlet::algorithms;

namespace {

/// min, max and sum of floats (12 bytes: three word loads).
struct MinMaxSum {
  float lo, hi, sum;
};
/// The larger score and its index, with a count (16 bytes, an 8-byte field: one 16-byte load).
struct Best {
  float score;
  std::int32_t index;
  std::uint64_t count;
};
/// Fields of 2, 1, 1 and 4 bytes in two words (one 8-byte load).
struct Small {
  std::uint16_t most;
  std::int8_t least;
  bool any;
  float total;
};
/// A double, two floats and two ints (24 bytes, 8-aligned: six word loads).
struct Wide {
  double sum;
  float lo, hi;
  std::int32_t count, odd;
};

static_assert(sizeof(MinMaxSum) == 12 && sizeof(Best) == 16 && sizeof(Small) == 8 && sizeof(Wide) == 24);

struct MinMaxSumOp {
  Struct<MinMaxSum> operator()(const Struct<MinMaxSum>& a, const Struct<MinMaxSum>& b) const {
    return a.with(&MinMaxSum::lo, min(a[&MinMaxSum::lo], b[&MinMaxSum::lo]))
        .with(&MinMaxSum::hi, max(a[&MinMaxSum::hi], b[&MinMaxSum::hi]))
        .with(&MinMaxSum::sum, a[&MinMaxSum::sum] + b[&MinMaxSum::sum]);
  }
};
MinMaxSum host_op(MinMaxSum a, MinMaxSum b) { return {std::min(a.lo, b.lo), std::max(a.hi, b.hi), a.sum + b.sum}; }

/// The larger score, the smaller index among equal scores (a total order: commutative).
struct BestOp {
  Struct<Best> operator()(const Struct<Best>& a, const Struct<Best>& b) const {
    Value<bool> a_wins = (a[&Best::score] > b[&Best::score]) |
                         ((a[&Best::score] == b[&Best::score]) & (a[&Best::index] < b[&Best::index]));
    Struct<Best> r = select(a_wins, a, b);
    r.set(&Best::count, a[&Best::count] + b[&Best::count]);
    return r;
  }
};
Best host_op(Best a, Best b) {
  const bool a_wins = a.score > b.score || (a.score == b.score && a.index < b.index);
  Best r = a_wins ? a : b;
  r.count = a.count + b.count;
  return r;
}

struct SmallOp {
  Struct<Small> operator()(const Struct<Small>& a, const Struct<Small>& b) const {
    Struct<Small> r = a;
    r.set(&Small::most, max(a[&Small::most], b[&Small::most]));
    r.set(&Small::least, min(a[&Small::least], b[&Small::least]));
    r.set(&Small::any, a[&Small::any] | b[&Small::any]);
    r.set(&Small::total, a[&Small::total] + b[&Small::total]);
    return r;
  }
};
Small host_op(Small a, Small b) {
  return {std::max(a.most, b.most), std::min(a.least, b.least), a.any || b.any, a.total + b.total};
}

struct WideOp {
  Struct<Wide> operator()(const Struct<Wide>& a, const Struct<Wide>& b) const {
    return a.with(&Wide::sum, a[&Wide::sum] + b[&Wide::sum])
        .with(&Wide::lo, min(a[&Wide::lo], b[&Wide::lo]))
        .with(&Wide::hi, max(a[&Wide::hi], b[&Wide::hi]))
        .with(&Wide::count, a[&Wide::count] + b[&Wide::count])
        .with(&Wide::odd, a[&Wide::odd] ^ b[&Wide::odd]);
  }
};
Wide host_op(Wide a, Wide b) {
  return {a.sum + b.sum, std::min(a.lo, b.lo), std::max(a.hi, b.hi), a.count + b.count, a.odd ^ b.odd};
}

/// Random structs whose sums are exact in any order (small integers in floats and doubles).
template <class S>
std::vector<S> struct_input(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> d(-1000, 1000);
  std::vector<S> v(n);
  for (std::size_t i = 0; i < n; ++i) {
    S& s = v[i];
    std::memset(&s, 0, sizeof(S));
    if constexpr (std::is_same_v<S, MinMaxSum>) {
      const float x = static_cast<float>(d(rng));
      s = {x, x, x};
    } else if constexpr (std::is_same_v<S, Best>) {
      // Few distinct scores: many ties, decided by the index.
      s = {static_cast<float>(d(rng) % 17), static_cast<std::int32_t>(i), 1u + static_cast<std::uint64_t>(d(rng) + 1000)};
    } else if constexpr (std::is_same_v<S, Small>) {
      s = {static_cast<std::uint16_t>(d(rng) + 1000), static_cast<std::int8_t>(d(rng) % 128), d(rng) > 990,
           static_cast<float>(d(rng) % 8)};
    } else {
      const float x = static_cast<float>(d(rng));
      s = {static_cast<double>(d(rng)) * 4096.0, x, x, d(rng), d(rng)};
    }
  }
  return v;
}

template <class S>
bool same_fields(const S& a, const S& b) {
  if constexpr (std::is_same_v<S, MinMaxSum>) return a.lo == b.lo && a.hi == b.hi && a.sum == b.sum;
  else if constexpr (std::is_same_v<S, Best>) return a.score == b.score && a.index == b.index && a.count == b.count;
  else if constexpr (std::is_same_v<S, Small>)
    return a.most == b.most && a.least == b.least && a.any == b.any && a.total == b.total;
  else return a.sum == b.sum && a.lo == b.lo && a.hi == b.hi && a.count == b.count && a.odd == b.odd;
}

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
