// histogram_even and histogram_range against the CPU: every sample type, bin counts from 1 to
// past what shared memory holds (the global-atomics kernels), samples below, inside and above
// the levels, on them, NaNs, uneven levels, sizes around the vector and grid boundaries, and
// counters past the bins left alone.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <set>

#include "algorithms/algorithm_test_support.h"
#include "gpu_test_support.h"
#include "kernel_test_support.h"

using namespace cutlet;
using namespace cutlet::test;
namespace alg = cutlet::algorithms;

namespace {

/// The bin of `s` as histogram_even documents it, or -1 when it is not counted.
template <class T>
long host_bin(T s, T lower, T upper, int bins) {
  if (!(s >= lower && s < upper)) return -1;
  if constexpr (std::is_floating_point_v<T>) {
    const T scale = static_cast<T>(bins) / (upper - lower);
    const T d = s - lower;
    const T scaled = d * scale;
    return std::min<long>(static_cast<std::int32_t>(scaled), bins - 1);
  } else {
    using W = std::conditional_t<std::is_signed_v<T>, std::int64_t, std::uint64_t>;
    const std::uint64_t d = static_cast<std::uint64_t>(static_cast<W>(s)) - static_cast<std::uint64_t>(static_cast<W>(lower));
    const std::uint64_t range =
        static_cast<std::uint64_t>(static_cast<W>(upper)) - static_cast<std::uint64_t>(static_cast<W>(lower));
    return static_cast<long>(d * static_cast<std::uint64_t>(bins) / range);
  }
}

template <class T>
void check_histogram(const Stream& st, const std::vector<T>& h, int bins, T lower, T upper) {
  Buffer<T> samples(st, h);
  auto hist = poisoned<std::uint32_t>(st, static_cast<std::size_t>(bins) + 2);
  alg::histogram_even(st, samples, hist, bins + 1, lower, upper);
  auto got = hist.to_host(st);
  std::vector<std::uint32_t> want(static_cast<std::size_t>(bins), 0);
  for (T s : h)
    if (long b = host_bin(s, lower, upper, bins); b >= 0) ++want[static_cast<std::size_t>(b)];
  for (int b = 0; b < bins; ++b) ASSERT_EQ(got[b], want[b]) << "bin " << b << " of " << bins;
  EXPECT_EQ(got[bins], 0xCDCDCDCDu);  // past the bins: untouched
  EXPECT_EQ(got[bins + 1], 0xCDCDCDCDu);
}

template <class T>
void check_type(T lower, T upper) {
  Stream st;
  SCOPED_TRACE(element_label<T>());
  const std::size_t pass = static_cast<std::size_t>(st.device().sm_count()) * 4 * alg::kHistogramBlock * 2;
  for (int bins : {1, 7, 256, 1000, alg::kHistogramSharedBins, alg::kHistogramSharedBins + 1, 40000}) {
    SCOPED_TRACE("bins = " + std::to_string(bins));
    for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{3}, std::size_t{1023}, pass - 1, pass + 1,
                          3 * pass + 5}) {
      SCOPED_TRACE("n = " + std::to_string(n));
      // Samples spread over [lower - span/4, upper + span/4): some below, some above.
      std::mt19937_64 rng(n * 31 + static_cast<std::size_t>(bins));
      std::vector<T> h(n);
      const double lo = static_cast<double>(lower), hi = static_cast<double>(upper), span = hi - lo;
      std::uniform_real_distribution<double> d(lo - span / 4, hi + span / 4);
      for (auto& s : h) {
        double x = d(rng);
        // Within T's range (the conversion of a double out of it is undefined).
        x = std::clamp(x, static_cast<double>(std::numeric_limits<T>::lowest()),
                       static_cast<double>(std::numeric_limits<T>::max() / 2));
        s = static_cast<T>(x);
      }
      if (n > 2) h[1] = upper;  // the upper level is not counted
      if (n > 2) h[2] = lower;  // the lower one is
      check_histogram(st, h, bins, lower, upper);
    }
  }
}

TEST(AlgorithmsHistogramGpu, Float) {
  CUTLET_REQUIRE_GPU();
  check_type<float>(-2.5f, 7.0f);
}
TEST(AlgorithmsHistogramGpu, Double) {
  CUTLET_REQUIRE_GPU();
  check_type<double>(0.0, 1.0);
}
TEST(AlgorithmsHistogramGpu, Int32) {
  CUTLET_REQUIRE_GPU();
  check_type<std::int32_t>(-100000, 2000000);
}
TEST(AlgorithmsHistogramGpu, UInt32) {
  CUTLET_REQUIRE_GPU();
  check_type<std::uint32_t>(1000u, 2000000000u);
}
TEST(AlgorithmsHistogramGpu, Int64) {
  CUTLET_REQUIRE_GPU();
  check_type<std::int64_t>(-(std::int64_t{1} << 40), std::int64_t{1} << 41);
}
TEST(AlgorithmsHistogramGpu, UInt64) {
  CUTLET_REQUIRE_GPU();
  check_type<std::uint64_t>(std::uint64_t{5}, std::uint64_t{1} << 44);
}

TEST(AlgorithmsHistogramGpu, NaNsAreNotCounted) {
  CUTLET_REQUIRE_GPU();
  Stream st;
  std::vector<float> h(1001, std::numeric_limits<float>::quiet_NaN());
  for (std::size_t i = 0; i < h.size(); i += 3) h[i] = static_cast<float>(i % 10);
  check_histogram(st, h, 10, 0.0f, 10.0f);
}

/// histogram_range of `h` over `levels` against std::upper_bound on the host.
template <class T>
void check_range_histogram(const Stream& st, const std::vector<T>& h, const std::vector<T>& levels) {
  Buffer<T> samples(st, h);
  Buffer<T> lv(st, levels);
  const std::size_t bins = levels.size() - 1;
  auto hist = poisoned<std::uint32_t>(st, bins + 2);
  alg::histogram_range(st, samples, hist, lv);
  const auto got = hist.to_host(st);
  std::vector<std::uint32_t> want(bins, 0);
  for (T s : h)
    if (s >= levels.front() && s < levels.back())
      ++want[static_cast<std::size_t>(std::upper_bound(levels.begin(), levels.end(), s) - levels.begin() - 1)];
  for (std::size_t b = 0; b < bins; ++b) ASSERT_EQ(got[b], want[b]) << "bin " << b << " of " << bins;
  EXPECT_EQ(got[bins], 0xCDCDCDCDu);  // past the bins: untouched
  EXPECT_EQ(got[bins + 1], 0xCDCDCDCDu);
}

/// histogram_range with `bins` uneven bins (random distinct levels in [lower, upper]) over
/// samples spread past both ends, some of them exactly on levels.
template <class T>
void check_range_type(T lower, T upper) {
  Stream st;
  SCOPED_TRACE(element_label<T>());
  const std::size_t pass = static_cast<std::size_t>(st.device().sm_count()) * 4 * alg::kHistogramBlock * 2;
  for (int bins : {1, 5, 300, alg::kHistogramSharedLevels - 1, alg::kHistogramSharedLevels, 5000}) {
    SCOPED_TRACE("bins = " + std::to_string(bins));
    std::mt19937_64 rng(static_cast<std::size_t>(bins) * 7);
    const double lo = static_cast<double>(lower), hi = static_cast<double>(upper), span = hi - lo;
    std::uniform_real_distribution<double> in_range(lo, hi);
    std::set<T> distinct{lower, upper};
    while (distinct.size() < static_cast<std::size_t>(bins) + 1) distinct.insert(static_cast<T>(in_range(rng)));
    const std::vector<T> levels(distinct.begin(), distinct.end());
    for (std::size_t n : {std::size_t{0}, std::size_t{3}, std::size_t{1023}, pass + 1, 3 * pass + 5}) {
      SCOPED_TRACE("n = " + std::to_string(n));
      std::uniform_real_distribution<double> d(lo - span / 4, hi + span / 4);
      std::vector<T> h(n);
      for (std::size_t i = 0; i < n; ++i)
        h[i] = i % 5 == 0 ? levels[rng() % levels.size()] : static_cast<T>(std::max(d(rng), static_cast<double>(std::numeric_limits<T>::lowest())));
      check_range_histogram(st, h, levels);
    }
  }
}

TEST(AlgorithmsHistogramGpu, RangeEverySampleType) {
  CUTLET_REQUIRE_GPU();
  check_range_type<float>(-2.5f, 7.0f);
  check_range_type<double>(0.0, 1.0);
  check_range_type<std::int32_t>(-100000, 2000000);
  check_range_type<std::uint32_t>(1000u, 2000000000u);
  check_range_type<std::int64_t>(-(std::int64_t{1} << 40), std::int64_t{1} << 41);
  check_range_type<std::uint64_t>(std::uint64_t{5}, std::uint64_t{1} << 44);
}

TEST(AlgorithmsHistogramGpu, RangeNaNsAndOutOfOrderLevels) {
  CUTLET_REQUIRE_GPU();
  Stream st;
  std::vector<float> h(1001, std::numeric_limits<float>::quiet_NaN());
  for (std::size_t i = 0; i < h.size(); i += 3) h[i] = static_cast<float>(i % 10);
  check_range_histogram<float>(st, h, {0.0f, 0.5f, 3.0f, 9.0f, 9.5f});
  // Levels out of order count wrongly, but never past the bins.
  Buffer<float> samples(st, h);
  Buffer<float> shuffled(st, std::vector<float>{0.0f, 8.0f, 2.0f, 1.0f, 10.0f});
  auto hist = poisoned<std::uint32_t>(st, 6);
  alg::histogram_range(st, samples, hist, shuffled);
  const auto got = hist.to_host(st);
  EXPECT_EQ(got[4], 0xCDCDCDCDu);
  EXPECT_EQ(got[5], 0xCDCDCDCDu);
}

TEST(AlgorithmsHistogramGpu, ArgumentChecks) {
  CUTLET_REQUIRE_GPU();
  Stream st;
  Buffer<float> samples(st, algorithm_input<float>(10, 1));
  auto hist = poisoned<std::uint32_t>(st, 4);
  EXPECT_NE(message_of([&] { alg::histogram_even(st, samples, hist, 1, 0.0f, 1.0f); }).find("at least 2"),
            std::string::npos);
  EXPECT_NE(message_of([&] { alg::histogram_even(st, samples, hist, 3, 1.0f, 1.0f); }).find("not below"),
            std::string::npos);
  EXPECT_NE(message_of([&] { alg::histogram_even(st, samples, hist, 6, 0.0f, 1.0f); }).find("holds 4 elements but 5"),
            std::string::npos);
  Buffer<std::uint64_t> wide(st, std::vector<std::uint64_t>(4, 1));
  EXPECT_NE(message_of([&] { alg::histogram_even(st, wide, hist, 3, std::uint64_t{0}, ~std::uint64_t{0}); })
                .find("does not fit in 64 bits"),
            std::string::npos);
  Buffer<float> one_level(st, std::vector<float>{0.0f});
  EXPECT_NE(message_of([&] { alg::histogram_range(st, samples, hist, one_level); })
                .find("histogram_range: num_levels is 1; it must be at least 2"),
            std::string::npos);
  Buffer<float> six_levels(st, std::vector<float>{0, 1, 2, 3, 4, 5});
  EXPECT_NE(message_of([&] { alg::histogram_range(st, samples, hist, six_levels); }).find("holds 4 elements but 5"),
            std::string::npos);
}

}  // namespace
