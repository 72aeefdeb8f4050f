// lower_bound and upper_bound against std::lower_bound and std::upper_bound: every element
// type, sorted buffers with runs of equal elements, needles below, between, on and above
// them, ascending and descending order and a user comparator, outputs poisoned first.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <random>
#include <vector>

#include "algorithms/algorithm_test_support.h"
#include "gpu_test_support.h"
#include "kernel_test_support.h"

using namespace cutlet;
using namespace cutlet::test;
namespace alg = cutlet::algorithms;

namespace {

/// n elements of T from few distinct values (runs of equal elements), sorted by `comp`.
template <class T, class HostComp>
std::vector<T> sorted_input(std::size_t n, std::uint64_t seed, HostComp comp) {
  std::vector<T> v = algorithm_input<T>(n, seed);
  for (auto& x : v) x = static_cast<T>(static_cast<long long>(x * (std::is_floating_point_v<T> ? 50 : 1)) / 8);
  std::sort(v.begin(), v.end(), comp);
  return v;
}

/// Needles: every element of `sorted`, and random values below, between and above them.
template <class T>
std::vector<T> needles_for(const std::vector<T>& sorted, std::size_t extra, std::uint64_t seed) {
  std::vector<T> v(sorted.begin(), sorted.end());
  std::vector<T> more = algorithm_input<T>(extra, seed);
  for (std::size_t i = 0; i < more.size(); ++i) {
    T x = more[i];
    if (i % 3 == 0) x = static_cast<T>(x * 2);  // past the ends too
    v.push_back(x);
  }
  std::shuffle(v.begin(), v.end(), std::mt19937_64(seed));
  return v;
}

template <class T, class Comp, class HostComp>
void check_bounds(Comp comp, HostComp host_comp) {
  Stream st;
  SCOPED_TRACE(element_label<T>());
  for (std::size_t n : {0, 1, 2, 7, 255, 256, 257, 4097, 100003}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const std::vector<T> h = sorted_input<T>(n, 900 + n, host_comp);
    const std::vector<T> hn = needles_for(h, 301, 1900 + n);
    Buffer<T> sorted(n, st.device());
    if (n > 0) sorted.copy_from_host(st, h);
    Buffer<T> needles(st, hn);
    auto lower = poisoned<std::int32_t>(st, hn.size());
    auto upper = poisoned<std::int32_t>(st, hn.size());
    alg::lower_bound(st, sorted, needles, lower, comp);
    alg::upper_bound(st, sorted, needles, upper, comp);
    const std::vector<std::int32_t> got_lower = lower.to_host(st), got_upper = upper.to_host(st);
    for (std::size_t i = 0; i < hn.size(); ++i) {
      const auto want_lower = std::lower_bound(h.begin(), h.end(), hn[i], host_comp) - h.begin();
      const auto want_upper = std::upper_bound(h.begin(), h.end(), hn[i], host_comp) - h.begin();
      ASSERT_EQ(got_lower[i], want_lower) << "lower bound of needle " << i << " = " << +hn[i];
      ASSERT_EQ(got_upper[i], want_upper) << "upper bound of needle " << i << " = " << +hn[i];
    }
  }
}

template <class T>
void check_type() {
  check_bounds<T>(alg::less{}, std::less<T>{});
  check_bounds<T>(alg::greater{}, std::greater<T>{});
}

TEST(AlgorithmsBoundsGpu, EveryTypeAscendingAndDescending) {
  CUTLET_REQUIRE_GPU();
  test::for_each_element_type([]<class T> { check_type<T>(); });
}

TEST(AlgorithmsBoundsGpu, AUserComparatorAndSignedZeros) {
  CUTLET_REQUIRE_GPU();
  // Sorted by magnitude; -x and x are equivalent, and so are -0.0 and 0.0.
  auto by_magnitude = [](Value<float> a, Value<float> b) { return abs(a) < abs(b); };
  auto host = [](float a, float b) { return std::fabs(a) < std::fabs(b); };
  check_bounds<float>(by_magnitude, host);
  Stream st;
  std::vector<float> h{-1.0f, -0.0f, 0.0f, 0.0f, 2.0f};
  Buffer<float> sorted(st, h), needles(st, std::vector<float>{0.0f, -0.0f, -1.0f, 3.0f});
  auto out = poisoned<std::int32_t>(st, 4);
  alg::lower_bound(st, sorted, needles, out);
  EXPECT_EQ(out.to_host(st), (std::vector<std::int32_t>{1, 1, 0, 5}));
  alg::upper_bound(st, sorted, needles, out);
  EXPECT_EQ(out.to_host(st), (std::vector<std::int32_t>{4, 4, 1, 5}));
}

TEST(AlgorithmsBoundsGpu, AShortOutputIsRefused) {
  CUTLET_REQUIRE_GPU();
  Stream st;
  Buffer<std::int32_t> sorted(st, std::vector<std::int32_t>{1, 2, 3}), needles(st, std::vector<std::int32_t>{1, 2});
  Buffer<std::int32_t> out(1, st.device());
  const std::string msg = message_of([&] { alg::lower_bound(st, sorted, needles, out); });
  EXPECT_NE(msg.find("lower_bound"), std::string::npos) << msg;
  EXPECT_NE(msg.find("output"), std::string::npos) << msg;
}

}  // namespace
