// The algorithms over elements of 1 and 2 bytes (half, bfloat16, the 8- and 16-bit integers)
// against CPU references: reduce, the scans, transform, merge sort, select, unique,
// run_length_encode, three_way_partition, histograms of bytes (every byte value in its own
// bin) and of halves, scan by key over byte keys, segmented reduce and radix sort, top_k of
// half scores and lower_bound. Sizes around the vector and tile boundaries; integer sums wrap
// as they do in C++; outputs are poisoned first. (The radix sorts of every narrow type are in
// radix_sort_gpu_test.cpp.)
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <random>
#include <vector>

#include "algorithms/algorithm_test_support.h"
#include "gpu_test_support.h"
#include "kernel_test_support.h"

using namespace cutlet;
using namespace cutlet::test;
namespace alg = cutlet::algorithms;

namespace {

/// Sizes of the narrow tests: empty, one, odd small ones, and several tiles of every kernel
/// with odd tails (n % 8 and n % 16 nonzero).
const std::vector<std::size_t> kSizes = {0, 1, 7, 33, 1000, 4099, 70001};

/// n random bytes-wide integers of T, all of T's range.
template <class T>
std::vector<T> random_ints(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<T> v(n);
  for (auto& x : v) x = static_cast<T>(rng());
  return v;
}

/// n random halves (or bfloat16s) in [-100, 100], multiples of 1/8: sums of a few stay exact.
template <class H>
std::vector<H> random_halves(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<H> v(n);
  for (auto& x : v) x = H(static_cast<float>(static_cast<int>(rng() % 1601) - 800) / 8.0f);
  return v;
}

template <class T>
bool same_bits(const T& a, const T& b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

TEST(AlgorithmsNarrowElementsGpu, ReduceWrapsLikeCppAndTakesExtremes) {
  CUTLET_REQUIRE_GPU();
  Stream st;
  for (std::size_t n : kSizes) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const auto bytes = random_ints<std::uint8_t>(n, n + 1);
    std::uint8_t sum = 3;
    for (auto x : bytes) sum = static_cast<std::uint8_t>(sum + x);
    EXPECT_EQ(alg::reduce_value(st, Buffer<std::uint8_t>(st, bytes), alg::plus{}, std::uint8_t{3}), sum);

    const auto shorts = random_ints<std::int16_t>(n, n + 2);
    std::int16_t most = -32768;
    for (auto x : shorts) most = std::max(most, x);
    EXPECT_EQ(alg::reduce_value(st, Buffer<std::int16_t>(st, shorts), alg::maximum{}, std::int16_t{-32768}), most);

    const auto halves = random_halves<half>(n, n + 3);
    float least = 1000.0f;
    for (auto x : halves) least = std::min(least, float(x));
    auto user_min = [](const Value<half>& a, const Value<half>& b) { return select(b < a, b, a); };
    EXPECT_EQ(float(alg::reduce_value(st, Buffer<half>(st, halves), user_min, half(1000.0f))), least);

    const auto brains = random_halves<bfloat16>(n, n + 4);
    float largest = -1000.0f;
    for (auto x : brains) largest = std::max(largest, float(x));
    EXPECT_EQ(float(alg::reduce_value(st, Buffer<bfloat16>(st, brains), alg::maximum{}, bfloat16(-1000.0f))),
              largest);
  }
}

TEST(AlgorithmsNarrowElementsGpu, ScansInclusiveAndExclusive) {
  CUTLET_REQUIRE_GPU();
  Stream st;
  for (std::size_t n : kSizes) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const auto h = random_ints<std::uint16_t>(n, n + 5);
    auto out = poisoned<std::uint16_t>(st, n + 1);
    alg::inclusive_scan(st, Buffer<std::uint16_t>(st, h), out, alg::plus{});
    const auto got = out.to_host(st);
    std::uint16_t run = 0;
    for (std::size_t i = 0; i < n; ++i) {
      run = static_cast<std::uint16_t>(run + h[i]);
      ASSERT_EQ(got[i], run) << "inclusive sum " << i;
    }
    ASSERT_EQ(got[n], 0xCDCD) << "written past n";

    const auto c = random_ints<std::int8_t>(n, n + 6);
    auto ex = poisoned<std::int8_t>(st, n);
    alg::exclusive_scan(st, Buffer<std::int8_t>(st, c), ex, alg::maximum{}, std::int8_t{-128});
    const auto got_ex = ex.to_host(st);
    std::int8_t most = -128;
    for (std::size_t i = 0; i < n; ++i) {
      ASSERT_EQ(got_ex[i], most) << "exclusive max " << i;
      most = std::max(most, c[i]);
    }

    const auto hv = random_halves<half>(n, n + 7);
    auto hs = poisoned<half>(st, n);
    alg::inclusive_scan(st, Buffer<half>(st, hv), hs, alg::minimum{});
    const auto got_h = hs.to_host(st);
    float least = 1000.0f;
    for (std::size_t i = 0; i < n; ++i) {
      least = std::min(least, float(hv[i]));
      ASSERT_EQ(float(got_h[i]), least) << "inclusive min of halves " << i;
    }
  }
}

TEST(AlgorithmsNarrowElementsGpu, TransformsToAndFromHalf) {
  CUTLET_REQUIRE_GPU();
  Stream st;
  for (std::size_t n : kSizes) {
    const auto h = random_halves<half>(n, n + 8);
    auto out = poisoned<float>(st, n);
    alg::transform(st, Buffer<half>(st, h), out, [](const Value<half>& x) { return cast<float>(x) * 2.0f; });
    const auto got = out.to_host(st);
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(got[i], float(h[i]) * 2.0f) << i;
    const auto b = random_ints<std::uint8_t>(n, n + 9);
    auto back = poisoned<bfloat16>(st, n);
    alg::transform(st, Buffer<std::uint8_t>(st, b), back, [](const Value<std::uint8_t>& x) { return cast<bfloat16>(x); });
    const auto got_b = back.to_host(st);
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(float(got_b[i]), float(bfloat16(float(b[i])))) << i;
  }
}

TEST(AlgorithmsNarrowElementsGpu, MergeSortOfBFloat16sIsStable) {
  CUTLET_REQUIRE_GPU();
  Stream st;
  for (std::size_t n : kSizes) {
    SCOPED_TRACE("n = " + std::to_string(n));
    auto keys = random_halves<bfloat16>(n, n + 10);
    for (auto& k : keys) k = bfloat16(std::round(float(k) / 10.0f));  // many ties
    std::vector<std::int32_t> index(n);
    std::iota(index.begin(), index.end(), 0);
    auto ko = poisoned<bfloat16>(st, n);
    auto vo = poisoned<std::int32_t>(st, n);
    alg::merge_sort_pairs(st, Buffer<bfloat16>(st, keys), ko, Buffer<std::int32_t>(st, index), vo,
                          [](const Value<bfloat16>& a, const Value<bfloat16>& b) { return a > b; });
    std::vector<std::int32_t> want = index;
    std::stable_sort(want.begin(), want.end(), [&](int a, int b) { return float(keys[a]) > float(keys[b]); });
    const auto got = vo.to_host(st);
    const auto got_k = ko.to_host(st);
    for (std::size_t i = 0; i < n; ++i) {
      ASSERT_EQ(got[i], want[i]) << i;
      ASSERT_TRUE(same_bits(got_k[i], keys[want[i]])) << i;
    }
  }
}

TEST(AlgorithmsNarrowElementsGpu, SelectUniqueRunsAndPartition) {
  CUTLET_REQUIRE_GPU();
  Stream st;
  for (std::size_t n : kSizes) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const auto c = random_ints<std::int8_t>(n, n + 11);
    auto sel = poisoned<std::int8_t>(st, n);
    const std::size_t kept = alg::select_if(st, Buffer<std::int8_t>(st, c), sel,
                                            [](const Value<std::int8_t>& x) { return x > std::int8_t{20}; });
    std::vector<std::int8_t> want;
    for (auto x : c)
      if (x > 20) want.push_back(x);
    ASSERT_EQ(kept, want.size());
    const auto got = sel.to_host(st);
    for (std::size_t i = 0; i < kept; ++i) ASSERT_EQ(got[i], want[i]) << "select_if " << i;

    const auto hv = random_halves<half>(n, n + 12);
    const auto flags = random_ints<std::uint8_t>(n, n + 13);
    auto fl = poisoned<half>(st, n);
    const std::size_t flagged = alg::select_flagged(st, Buffer<half>(st, hv), Buffer<std::uint8_t>(st, flags), fl);
    std::vector<half> want_h;
    for (std::size_t i = 0; i < n; ++i)
      if (flags[i] != 0) want_h.push_back(hv[i]);
    ASSERT_EQ(flagged, want_h.size());
    const auto got_h = fl.to_host(st);
    for (std::size_t i = 0; i < flagged; ++i) ASSERT_TRUE(same_bits(got_h[i], want_h[i])) << "select_flagged " << i;

    std::vector<std::uint8_t> runs(n);
    std::mt19937_64 rng(n);
    std::uint8_t v = 0;
    for (auto& x : runs) x = (rng() % 5 == 0) ? ++v : v;  // runs of about 5
    auto uo = poisoned<std::uint8_t>(st, n);
    const std::size_t uniques = alg::unique(st, Buffer<std::uint8_t>(st, runs), uo);
    std::vector<std::uint8_t> want_u(runs);
    want_u.erase(std::unique(want_u.begin(), want_u.end()), want_u.end());
    ASSERT_EQ(uniques, want_u.size());
    const auto got_u = uo.to_host(st);
    for (std::size_t i = 0; i < uniques; ++i) ASSERT_EQ(got_u[i], want_u[i]) << "unique " << i;

    std::vector<std::int16_t> shorts(runs.begin(), runs.end());
    auto ro = poisoned<std::int16_t>(st, n);
    auto lengths = poisoned<std::int32_t>(st, n);
    const std::size_t count = alg::run_length_encode(st, Buffer<std::int16_t>(st, shorts), ro, lengths);
    ASSERT_EQ(count, want_u.size());
    const auto got_r = ro.to_host(st);
    const auto got_l = lengths.to_host(st);
    std::size_t at = 0;
    for (std::size_t r = 0; r < count; ++r) {
      ASSERT_EQ(got_r[r], shorts[at]) << "run " << r;
      std::size_t len = 0;
      while (at + len < n && shorts[at + len] == shorts[at]) ++len;
      ASSERT_EQ(got_l[r], static_cast<std::int32_t>(len)) << "run " << r;
      at += len;
    }

    auto first = poisoned<half>(st, n), second = poisoned<half>(st, n), rest = poisoned<half>(st, n);
    const alg::PartitionCounts counts = alg::three_way_partition(
        st, Buffer<half>(st, hv), first, second, rest, [](const Value<half>& x) { return x < -50.0f; },
        [](const Value<half>& x) { return x > 50.0f; });
    std::vector<half> w1, w2, w3;
    for (auto x : hv) (float(x) < -50.0f ? w1 : float(x) > 50.0f ? w2 : w3).push_back(x);
    ASSERT_EQ(counts.first, w1.size());
    ASSERT_EQ(counts.second, w2.size());
    ASSERT_EQ(counts.unselected, w3.size());
    const auto g1 = first.to_host(st), g2 = second.to_host(st), g3 = rest.to_host(st);
    for (std::size_t i = 0; i < w1.size(); ++i) ASSERT_TRUE(same_bits(g1[i], w1[i])) << "first " << i;
    for (std::size_t i = 0; i < w2.size(); ++i) ASSERT_TRUE(same_bits(g2[i], w2[i])) << "second " << i;
    for (std::size_t i = 0; i < w3.size(); ++i) ASSERT_TRUE(same_bits(g3[i], w3[i])) << "unselected " << i;
  }
}

TEST(AlgorithmsNarrowElementsGpu, HistogramsOfBytesAndHalves) {
  CUTLET_REQUIRE_GPU();
  Stream st;
  for (std::size_t n : kSizes) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const auto bytes = random_ints<std::uint8_t>(n, n + 14);
    Buffer<std::uint8_t> samples(st, bytes);
    auto hist = poisoned<std::uint32_t>(st, 256);
    alg::histogram_even(st, samples, hist, 257, 0, 256);  // every byte value in its own bin
    std::vector<std::uint32_t> want(256, 0);
    for (auto b : bytes) ++want[b];
    EXPECT_EQ(hist.to_host(st), want);

    std::vector<std::int32_t> levels = {0, 10, 100, 200, 255, 256};
    auto ranged = poisoned<std::uint32_t>(st, 5);
    alg::histogram_range(st, samples, ranged, Buffer<std::int32_t>(st, levels));
    std::vector<std::uint32_t> want_r(5, 0);
    for (auto b : bytes)
      ++want_r[static_cast<std::size_t>(std::upper_bound(levels.begin(), levels.end(), int(b)) - levels.begin() - 1)];
    EXPECT_EQ(ranged.to_host(st), want_r);

    const auto hv = random_halves<half>(n, n + 15);
    auto hh = poisoned<std::uint32_t>(st, 16);
    alg::histogram_even(st, Buffer<half>(st, hv), hh, 17, -80.0f, 80.0f);
    std::vector<std::uint32_t> want_h(16, 0);
    for (auto x : hv) {
      const float f = float(x);
      if (f >= -80.0f && f < 80.0f) ++want_h[std::min(static_cast<int>((f + 80.0f) * (16.0f / 160.0f)), 15)];
    }
    EXPECT_EQ(hh.to_host(st), want_h);
  }
}

TEST(AlgorithmsNarrowElementsGpu, ScansByKeyAndSegmentedReduceOfShorts) {
  CUTLET_REQUIRE_GPU();
  Stream st;
  for (std::size_t n : kSizes) {
    SCOPED_TRACE("n = " + std::to_string(n));
    std::vector<std::uint8_t> keys(n);
    std::mt19937_64 rng(n + 16);
    std::uint8_t k = 0;
    for (auto& x : keys) x = (rng() % 9 == 0) ? ++k : k;
    std::vector<float> values(n);
    for (auto& x : values) x = static_cast<float>(rng() % 17);
    auto out = poisoned<float>(st, n);
    alg::inclusive_scan_by_key(st, Buffer<std::uint8_t>(st, keys), Buffer<float>(st, values), out, alg::plus{});
    const auto got = out.to_host(st);
    float run = 0;
    for (std::size_t i = 0; i < n; ++i) {
      run = (i > 0 && keys[i] == keys[i - 1]) ? run + values[i] : values[i];
      ASSERT_EQ(got[i], run) << i;
    }

    // Narrow values too: 16-bit sums (wrapping) by 8-byte keys, exclusive; half maxima by
    // 16-bit keys.
    std::vector<std::int64_t> long_keys(keys.begin(), keys.end());
    const auto words = random_ints<std::uint16_t>(n, n + 21);
    auto ex = poisoned<std::uint16_t>(st, n);
    alg::exclusive_scan_by_key(st, Buffer<std::int64_t>(st, long_keys), Buffer<std::uint16_t>(st, words), ex,
                               alg::plus{}, std::uint16_t{5});
    const auto got_ex = ex.to_host(st);
    std::uint16_t before = 5;
    for (std::size_t i = 0; i < n; ++i) {
      if (i == 0 || keys[i] != keys[i - 1]) before = 5;
      ASSERT_EQ(got_ex[i], before) << "exclusive sum by key " << i;
      before = static_cast<std::uint16_t>(before + words[i]);
    }
    std::vector<std::int16_t> short_keys(keys.begin(), keys.end());
    const auto hv = random_halves<half>(n, n + 22);
    auto hm = poisoned<half>(st, n);
    alg::inclusive_scan_by_key(st, Buffer<std::int16_t>(st, short_keys), Buffer<half>(st, hv), hm, alg::maximum{});
    const auto got_hm = hm.to_host(st);
    float most = 0;
    for (std::size_t i = 0; i < n; ++i) {
      most = (i > 0 && keys[i] == keys[i - 1]) ? std::max(most, float(hv[i])) : float(hv[i]);
      ASSERT_EQ(float(got_hm[i]), most) << "inclusive max of halves by key " << i;
    }

    const auto shorts = random_ints<std::int16_t>(n, n + 17);
    std::vector<std::int32_t> offsets = {0};
    const auto end = static_cast<std::int32_t>(n);
    while (offsets.back() < end)
      offsets.push_back(std::min<std::int32_t>(end, offsets.back() + static_cast<std::int32_t>(rng() % 3000)));
    auto sums = poisoned<std::int16_t>(st, offsets.size() - 1);
    alg::segmented_reduce(st, Buffer<std::int16_t>(st, shorts), sums, Buffer<std::int32_t>(st, offsets), alg::plus{},
                          std::int16_t{1});
    const auto got_s = sums.to_host(st);
    for (std::size_t s = 0; s + 1 < offsets.size(); ++s) {
      std::int16_t want = 1;
      for (auto i = offsets[s]; i < offsets[s + 1]; ++i) want = static_cast<std::int16_t>(want + shorts[i]);
      ASSERT_EQ(got_s[s], want) << "segment " << s;
    }
  }
}

TEST(AlgorithmsNarrowElementsGpu, TopKOfHalfScoresAndSegmentedSortAndBounds) {
  CUTLET_REQUIRE_GPU();
  Stream st;
  for (std::size_t n : {std::size_t{1}, std::size_t{1000}, std::size_t{70001}}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const auto scores = random_halves<half>(n, n + 18);
    const std::size_t k = std::min<std::size_t>(n, 100);
    auto best = poisoned<half>(st, k);
    auto where = poisoned<std::int32_t>(st, k);
    alg::top_k(st, Buffer<half>(st, scores), k, best, where);
    std::vector<std::int32_t> order(n);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return float(scores[a]) > float(scores[b]); });
    const auto got_w = where.to_host(st);
    const auto got_b = best.to_host(st);
    for (std::size_t i = 0; i < k; ++i) {
      ASSERT_EQ(got_w[i], order[i]) << "top " << i;
      ASSERT_TRUE(same_bits(got_b[i], scores[order[i]])) << "top " << i;
    }

    const auto shorts = random_ints<std::uint16_t>(n, n + 19);
    const std::vector<std::int32_t> offsets = {0, static_cast<std::int32_t>(n / 3), static_cast<std::int32_t>(n)};
    auto sorted = poisoned<std::uint16_t>(st, n);
    alg::segmented_radix_sort_keys(st, Buffer<std::uint16_t>(st, shorts), sorted, Buffer<std::int32_t>(st, offsets),
                                   {.descending = true});
    auto want = shorts;
    std::sort(want.begin(), want.begin() + offsets[1], std::greater<>());
    std::sort(want.begin() + offsets[1], want.end(), std::greater<>());
    ASSERT_EQ(sorted.to_host(st), want);

    std::sort(want.begin(), want.end());
    const auto needles = random_ints<std::uint16_t>(257, n + 20);
    auto at = poisoned<std::int32_t>(st, needles.size());
    alg::lower_bound(st, Buffer<std::uint16_t>(st, want), Buffer<std::uint16_t>(st, needles), at);
    const auto got_at = at.to_host(st);
    for (std::size_t i = 0; i < needles.size(); ++i)
      ASSERT_EQ(got_at[i], std::lower_bound(want.begin(), want.end(), needles[i]) - want.begin()) << i;
  }
}

}  // namespace
