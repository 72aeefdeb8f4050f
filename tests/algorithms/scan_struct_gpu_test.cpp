// inclusive_scan and exclusive_scan over buffers of user structs, against a sequential CPU
// scan: affine maps composed in order (associative and not commutative, exact in modular
// integers), structs of 8 and 24 bytes, sizes around the tiles, in place, and the same bits on
// every run.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>

#include "algorithms/algorithm_test_support.h"
#include "gpu_test_support.h"
#include "kernel_test_support.h"

using namespace cutlet;
using namespace cutlet::test;
namespace alg = cutlet::algorithms;

namespace {

/// x -> a * x + b modulo 2^32; "f then g" is x -> g.a * (f.a * x + f.b) + g.b.
struct Affine32 {
  std::uint32_t a, b;
};
struct ThenAffine32 {
  Struct<Affine32> operator()(const Struct<Affine32>& f, const Struct<Affine32>& g) const {
    return f.with(&Affine32::a, f[&Affine32::a] * g[&Affine32::a])
        .with(&Affine32::b, f[&Affine32::b] * g[&Affine32::a] + g[&Affine32::b]);
  }
};
Affine32 host_then(Affine32 f, Affine32 g) { return {f.a * g.a, f.b * g.a + g.b}; }

/// The same modulo 2^64, with a count of the maps composed (24 bytes, word loads).
struct Affine64 {
  std::uint64_t a, b;
  std::uint32_t count, pad;
};
struct ThenAffine64 {
  Struct<Affine64> operator()(const Struct<Affine64>& f, const Struct<Affine64>& g) const {
    Struct<Affine64> r = g;
    r.set(&Affine64::a, f[&Affine64::a] * g[&Affine64::a]);
    r.set(&Affine64::b, f[&Affine64::b] * g[&Affine64::a] + g[&Affine64::b]);
    r.set(&Affine64::count, f[&Affine64::count] + g[&Affine64::count]);
    return r;
  }
};
Affine64 host_then(Affine64 f, Affine64 g) { return {f.a * g.a, f.b * g.a + g.b, f.count + g.count, g.pad}; }

template <class S>
std::vector<S> random_maps(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<S> v(n);
  for (auto& s : v) {
    // Odd multipliers: the products never collapse to 0.
    if constexpr (std::is_same_v<S, Affine32>) s = {static_cast<std::uint32_t>(rng()) | 1u, static_cast<std::uint32_t>(rng())};
    else s = {rng() | 1u, rng(), 1u, static_cast<std::uint32_t>(rng())};
  }
  return v;
}

template <class S, class Op>
void check_struct_scans(const S& init) {
  Stream st;
  std::vector<std::size_t> sizes = boundary_sizes(alg::kScanTile<S>, 40);
  for (std::size_t n : sizes) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const std::vector<S> h = random_maps<S>(n, 7 * n + 1);
    Buffer<S> in(st, h);
    Buffer<S> inclusive = poisoned<S>(st, n), exclusive = poisoned<S>(st, n);
    alg::inclusive_scan(st, in, inclusive, Op{});
    alg::exclusive_scan(st, in, exclusive, Op{}, init);
    const auto got = inclusive.to_host(st);
    const auto got_ex = exclusive.to_host(st);
    S run = init;
    for (std::size_t i = 0; i < n; ++i) {
      ASSERT_EQ(std::memcmp(&got_ex[i], &run, sizeof(S)), 0) << "exclusive at " << i;
      run = host_then(run, h[i]);
      const S want = i == 0 ? h[0] : host_then(got[i - 1], h[i]);
      ASSERT_EQ(std::memcmp(&got[i], &want, sizeof(S)), 0) << "inclusive at " << i;
    }
    // In place, and the same bits as before.
    alg::inclusive_scan(st, in, in, Op{});
    const auto again = in.to_host(st);
    ASSERT_EQ(n == 0 ? 0 : std::memcmp(again.data(), got.data(), n * sizeof(S)), 0);
  }
}

TEST(AlgorithmsScanStructGpu, AffineMapsOfEightBytes) {
  CUTLET_REQUIRE_GPU();
  check_struct_scans<Affine32, ThenAffine32>(Affine32{3u, 5u});
}

TEST(AlgorithmsScanStructGpu, AffineMapsOfTwentyFourBytes) {
  CUTLET_REQUIRE_GPU();
  check_struct_scans<Affine64, ThenAffine64>(Affine64{1u, 0u, 0u, 9u});
}

}  // namespace
