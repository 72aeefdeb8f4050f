// Buffers of user structs as iterators, against a CPU reference: transform from structs to a
// key and from structs to structs (fields changed with set), a gather of structs through a
// permutation_iterator, and a scatter into one; structs of 12, 16 and 24 bytes, sizes around
// the transform's tiles.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
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

struct Point3 {  // 12 bytes
  float x, y, z;
};
struct Record {  // 16 bytes, an 8-byte field
  std::uint64_t key;
  std::int32_t weight;
  std::uint16_t tag;
  std::uint8_t level;
  bool flag;
};
struct Sample {  // 24 bytes
  double value;
  std::int64_t when;
  float scale;
  std::int32_t channel;
};

std::vector<std::size_t> sizes() {
  return boundary_sizes(std::size_t{alg::kTransformBlock} * alg::kTransformIteratorItems, 3);
}

template <class S>
std::vector<S> random_structs(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> d(-1000, 1000);
  std::vector<S> v(n);
  for (auto& s : v) {
    std::memset(&s, 0, sizeof(S));
    if constexpr (std::is_same_v<S, Point3>) {
      s = {static_cast<float>(d(rng)) / 8, static_cast<float>(d(rng)) / 8, static_cast<float>(d(rng)) / 8};
    } else if constexpr (std::is_same_v<S, Record>) {
      s = {rng(), d(rng), static_cast<std::uint16_t>(rng()), static_cast<std::uint8_t>(rng()), (rng() & 1) != 0};
    } else {
      s = {static_cast<double>(d(rng)) / 3, static_cast<std::int64_t>(rng() >> 3), static_cast<float>(d(rng)), d(rng)};
    }
  }
  return v;
}

TEST(AlgorithmsStructIteratorsGpu, TransformStructsToKeys) {
  CUTLET_REQUIRE_GPU();
  Stream st;
  for (std::size_t n : sizes()) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const auto h = random_structs<Point3>(n, n);
    Buffer<Point3> in(st, h);
    auto out = poisoned<float>(st, n + 1);
    alg::transform(st, in, n, out,
                   [](Struct<Point3> p) { return p[&Point3::x] * p[&Point3::x] + p[&Point3::y] - p[&Point3::z]; });
    const auto got = out.to_host(st);
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(got[i], h[i].x * h[i].x + h[i].y - h[i].z) << "at " << i;
    std::uint32_t tail;
    std::memcpy(&tail, &got[n], 4);
    ASSERT_EQ(tail, 0xCDCDCDCDu);  // nothing written past n
  }
}

TEST(AlgorithmsStructIteratorsGpu, TransformStructsToStructs) {
  CUTLET_REQUIRE_GPU();
  Stream st;
  for (std::size_t n : sizes()) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const auto h = random_structs<Record>(n, 3 * n);
    Buffer<Record> in(st, h);
    Buffer<Record> out = poisoned<Record>(st, n);
    // Every field's bytes moved: the 8-byte key, the sub-word tag, level and flag.
    alg::transform(st, in, n, out, [](Struct<Record> r) {
      Struct<Record> s = r;
      s.set(&Record::key, r[&Record::key] ^ (r[&Record::key] >> 7));
      s.set(&Record::weight, r[&Record::weight] * 3);
      s.set(&Record::tag, r[&Record::tag] + cast<std::uint16_t>(1));
      s.set(&Record::level, r[&Record::level] >> cast<std::uint8_t>(1));
      s.set(&Record::flag, !r[&Record::flag]);
      return s;
    });
    const auto got = out.to_host(st);
    for (std::size_t i = 0; i < n; ++i) {
      const Record& a = h[i];
      ASSERT_EQ(got[i].key, a.key ^ (a.key >> 7)) << "at " << i;
      ASSERT_EQ(got[i].weight, a.weight * 3) << "at " << i;
      ASSERT_EQ(got[i].tag, static_cast<std::uint16_t>(a.tag + 1)) << "at " << i;
      ASSERT_EQ(got[i].level, a.level >> 1) << "at " << i;
      ASSERT_EQ(got[i].flag, !a.flag) << "at " << i;
    }
  }
}

TEST(AlgorithmsStructIteratorsGpu, GatherAndScatterStructs) {
  CUTLET_REQUIRE_GPU();
  Stream st;
  for (std::size_t n : sizes()) {
    if (n == 0) continue;
    SCOPED_TRACE("n = " + std::to_string(n));
    const auto h = random_structs<Sample>(n, 5 * n);
    std::vector<std::int32_t> perm(n);
    std::iota(perm.begin(), perm.end(), 0);
    std::shuffle(perm.begin(), perm.end(), std::mt19937(static_cast<unsigned>(n)));
    Buffer<Sample> in(st, h);
    Buffer<std::int32_t> d_perm(st, perm);
    Buffer<Sample> gathered = poisoned<Sample>(st, n), scattered = poisoned<Sample>(st, n);
    auto same = [](Struct<Sample> s) { return s; };
    alg::transform(st, alg::permutation_iterator(in, d_perm), n, gathered, same);
    alg::transform(st, in, n, alg::permutation_iterator(scattered, d_perm), same);
    const auto g = gathered.to_host(st), s = scattered.to_host(st);
    for (std::size_t i = 0; i < n; ++i) {
      const auto p = static_cast<std::size_t>(perm[i]);
      ASSERT_EQ(std::memcmp(&g[i], &h[p], sizeof(Sample)), 0) << "gather at " << i;
      ASSERT_EQ(std::memcmp(&s[p], &h[i], sizeof(Sample)), 0) << "scatter at " << i;
    }
  }
}

}  // namespace
