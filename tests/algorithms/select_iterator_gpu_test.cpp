// select_if and select_flagged over iterators against a CPU reference: a counter (no buffer at
// all), a transform of a buffer, a transform of a zip of two buffers, flags from a buffer and
// from a transform_iterator; sizes around the tiles of a buffer of the same elements (the
// tiles the iterator kernels use) and past a 32-tile look-back window, outputs and counts
// poisoned first (entries past the kept items stay so), the host-returning forms, a borrowed
// workspace, no elements, and the argument checks.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "algorithms/algorithm_test_support.h"
#include "algorithms/compaction_checks.h"
#include "gpu_test_support.h"
#include "kernel_test_support.h"

using namespace cutlet;
using namespace cutlet::test;
namespace alg = cutlet::algorithms;

namespace {

/// Tiles of the largest size: past one look-back window of 32 tiles.
constexpr std::size_t kLargeTiles = 40;

/// Random flags (about `density` of them nonzero, of values 1 to 3).
std::vector<std::uint8_t> random_flags(std::size_t n, double density, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::bernoulli_distribution on(density);
  std::vector<std::uint8_t> flags(n);
  for (auto& f : flags) f = on(rng) ? static_cast<std::uint8_t>(1 + rng() % 3) : std::uint8_t{0};
  return flags;
}

// A counter's values kept by a hash of them: irregular, about 3 in 8.
struct HashedThreeEighths {
  Value<bool> operator()(const i64& x) const { return ((x * 5 + (x >> 4)) & 7) < 3; }
  bool operator()(std::int64_t x) const { return ((x * 5 + (x >> 4)) & 7) < 3; }
};

TEST(AlgorithmsSelectIteratorGpu, CountingIterator) {
  CUTLET_REQUIRE_GPU();
  Stream st;
  const std::int64_t start = -5000;
  auto counter = alg::counting_iterator<std::int64_t>(start);
  for (std::size_t n : boundary_sizes(alg::kSelectTile<std::int64_t>, kLargeTiles)) {
    SCOPED_TRACE("n = " + std::to_string(n));
    std::vector<std::int64_t> want;
    for (std::size_t i = 0; i < n; ++i) {
      const std::int64_t x = start + static_cast<std::int64_t>(i);
      if (HashedThreeEighths{}(x)) want.push_back(x);
    }
    auto out = poisoned<std::int64_t>(st, n + 3);
    auto count = poisoned<std::int32_t>(st, 1);
    alg::select_if(st, counter, n, out, count, HashedThreeEighths{});
    expect_selected(st, want, out, count);
  }
}

TEST(AlgorithmsSelectIteratorGpu, CountingIteratorFlaggedByABuffer) {
  CUTLET_REQUIRE_GPU();
  Stream st;
  auto counter = alg::counting_iterator<std::int32_t>(7);
  for (std::size_t n : boundary_sizes(alg::kSelectTile<std::int32_t>, kLargeTiles)) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const std::vector<std::uint8_t> flags = random_flags(n, 0.4, n);
    std::vector<std::int32_t> want;
    for (std::size_t i = 0; i < n; ++i)
      if (flags[i] != 0) want.push_back(7 + static_cast<std::int32_t>(i));
    // The flags from element 1 of a buffer: not 16-byte aligned, read one at a time.
    std::vector<std::uint8_t> shifted(n + 1, 9);
    std::copy(flags.begin(), flags.end(), shifted.begin() + 1);
    Buffer<std::uint8_t> all_flags(st, shifted);
    const auto fl = Buffer<std::uint8_t>::wrap(all_flags.data() + 1, n, st.device());
    auto out = poisoned<std::int32_t>(st, n + 2);
    auto count = poisoned<std::int32_t>(st, 1);
    alg::select_flagged(st, counter, n, fl, out, count);
    expect_selected(st, want, out, count);
  }
}

TEST(AlgorithmsSelectIteratorGpu, TransformOfABuffer) {
  CUTLET_REQUIRE_GPU();
  Stream st;
  auto doubled_above_half = [](f32 x) { return x > 0.5f; };
  for (std::size_t n : boundary_sizes(alg::kSelectTile<float>, kLargeTiles)) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const std::vector<float> h = algorithm_input<float>(n, 40 + n);
    Buffer<float> a(st, h);
    // x * 2 is exact: the host's values are the kernel's bit for bit.
    auto doubled = alg::transform_iterator(a, [](f32 x) { return x * 2.0f; });
    std::vector<float> want;
    for (float x : h)
      if (x * 2.0f > 0.5f) want.push_back(x * 2.0f);
    auto out = poisoned<float>(st, n + 1);
    auto count = poisoned<std::int32_t>(st, 1);
    alg::select_if(st, doubled, n, out, count, doubled_above_half);
    expect_selected(st, want, out, count);
    if (n % 4096 == 1) {
      SCOPED_TRACE("host-returning");
      auto again = poisoned<float>(st, n);
      EXPECT_EQ(alg::select_if(st, doubled, n, again, doubled_above_half), want.size());
    }
  }
}

TEST(AlgorithmsSelectIteratorGpu, TransformOfAZipOfTwoBuffers) {
  CUTLET_REQUIRE_GPU();
  Stream st;
  for (std::size_t n : boundary_sizes(alg::kSelectTile<std::int32_t>, kLargeTiles)) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const std::vector<std::int32_t> ha = algorithm_input<std::int32_t>(n, 2 * n + 1);
    const std::vector<std::int32_t> hb = algorithm_input<std::int32_t>(n, 2 * n + 2);
    Buffer<std::int32_t> a(st, ha), b(st, hb);
    auto difference = alg::transform_iterator(alg::zip_iterator(a, b), [](i32 x, i32 y) { return x - y; });
    std::vector<std::int32_t> want;
    for (std::size_t i = 0; i < n; ++i)
      if (ha[i] - hb[i] > 700) want.push_back(ha[i] - hb[i]);
    auto out = poisoned<std::int32_t>(st, n + 1);
    auto count = poisoned<std::int32_t>(st, 1);
    alg::select_if(st, difference, n, out, count, [](i32 d) { return d > 700; });
    expect_selected(st, want, out, count);
  }
}

TEST(AlgorithmsSelectIteratorGpu, FlagsFromAnIterator) {
  CUTLET_REQUIRE_GPU();
  Stream st;
  for (std::size_t n : boundary_sizes(alg::kSelectTile<float>, kLargeTiles)) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const std::vector<float> h = algorithm_input<float>(n, 60 + n);
    const std::vector<std::int32_t> marks = algorithm_input<std::int32_t>(n, 61 + n);
    Buffer<float> a(st, h);
    Buffer<std::int32_t> m(st, marks);
    auto doubled = alg::transform_iterator(a, [](f32 x) { return x * 2.0f; });
    // The flag of item i: the low bit of marks[i], as a byte.
    auto odd = alg::transform_iterator(m, [](i32 x) { return cast<std::uint8_t>(x & 1); });
    std::vector<float> want;
    for (std::size_t i = 0; i < n; ++i)
      if ((marks[i] & 1) != 0) want.push_back(h[i] * 2.0f);
    auto out = poisoned<float>(st, n + 2);
    auto count = poisoned<std::int32_t>(st, 1);
    alg::select_flagged(st, doubled, n, odd, out, count);
    expect_selected(st, want, out, count);
  }
}

TEST(AlgorithmsSelectIteratorGpu, HostFormsWorkspaceEmptyAndChecks) {
  CUTLET_REQUIRE_GPU();
  Stream st;
  auto counter = alg::counting_iterator<std::int64_t>(-5000);
  auto flag_counter = alg::counting_iterator<std::int32_t>(7);
  {
    SCOPED_TRACE("host-returning forms, a borrowed workspace reused");
    const std::size_t n = 35 * alg::kSelectTile<std::int64_t> + 11;
    std::vector<std::int64_t> want;
    for (std::size_t i = 0; i < n; ++i) {
      const std::int64_t x = -5000 + static_cast<std::int64_t>(i);
      if (HashedThreeEighths{}(x)) want.push_back(x);
    }
    DeviceMemory scratch(alg::select_workspace_bytes<std::int64_t>(n), st.device());
    scratch.fill_bytes(st, 0xAB);  // select clears what it needs itself
    for (int run = 0; run < 2; ++run) {
      auto out = poisoned<std::int64_t>(st, n);
      EXPECT_EQ(alg::select_if(st, counter, n, out, HashedThreeEighths{}, alg::Workspace::borrow(scratch)),
                want.size());
      const std::vector<std::int64_t> got = out.to_host(st);
      ASSERT_EQ(std::memcmp(got.data(), want.data(), want.size() * sizeof(std::int64_t)), 0);
    }
    const std::vector<std::uint8_t> flags = random_flags(1000, 0.5, 3);
    std::size_t kept = 0;
    for (std::uint8_t f : flags) kept += f != 0;
    Buffer<std::uint8_t> fl(st, flags);
    auto out = poisoned<std::int32_t>(st, 1000);
    EXPECT_EQ(alg::select_flagged(st, flag_counter, 1000, fl, out), kept);
  }
  {
    SCOPED_TRACE("no elements: the count is 0, the output untouched");
    auto out = poisoned<std::int64_t>(st, 2);
    auto count = poisoned<std::int32_t>(st, 1);
    alg::select_if(st, counter, 0, out, count, HashedThreeEighths{});
    expect_selected(st, std::vector<std::int64_t>{}, out, count);
    Buffer<std::uint8_t> no_flags;
    Buffer<std::int32_t> no_out;
    auto again = poisoned<std::int32_t>(st, 1);
    alg::select_flagged(st, flag_counter, 0, no_flags, no_out, again);
    EXPECT_EQ(again.to_host(st)[0], 0);
  }
  {
    SCOPED_TRACE("argument checks");
    auto count = poisoned<std::int32_t>(st, 1);
    auto short_out = poisoned<std::int64_t>(st, 99);
    EXPECT_NE(message_of([&] { alg::select_if(st, counter, 100, short_out, count, HashedThreeEighths{}); })
                  .find("output buffer holds 99 elements but 100"),
              std::string::npos);
    Buffer<std::int32_t> no_count;
    auto out = poisoned<std::int64_t>(st, 100);
    EXPECT_NE(message_of([&] { alg::select_if(st, counter, 100, out, no_count, HashedThreeEighths{}); })
                  .find("count buffer holds 0 elements but 1"),
              std::string::npos);
    Buffer<std::uint8_t> few_flags(st, std::vector<std::uint8_t>(50, 1));
    auto int_out = poisoned<std::int32_t>(st, 100);
    EXPECT_NE(message_of([&] { alg::select_flagged(st, flag_counter, 100, few_flags, int_out, count); })
                  .find("flags buffer holds 50"),
              std::string::npos);
    EXPECT_NE(message_of([&] {
                alg::select_if(st, counter, std::size_t{1} << 31, out, count, HashedThreeEighths{});
              }).find("more than it takes"),
              std::string::npos);
  }
}

}  // namespace
