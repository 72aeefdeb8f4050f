// select_if, select_flagged, unique, unique_by_key and three_way_partition over buffers of user
// structs (12 and 16 bytes: three word loads, one 16-byte load; select_if also of 8 bytes, one
// 8-byte load) against a CPU reference: sizes around the struct tile (kSelectTile<S>, one
// struct a lane) and past a 32-tile look-back window, predicates and equalities over the
// fields, runs across warps and tiles, struct keys with number values, number keys with struct
// values and structs of both, outputs and counts poisoned first (entries past the kept items
// stay so), in place, the host-returning forms, a buffer of 12-byte structs that is not 16-byte
// aligned, and the argument checks.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "algorithms/algorithm_test_support.h"
#include "algorithms/compaction_checks.h"
#include "algorithms/struct_test_elements.h"
#include "gpu_test_support.h"
#include "kernel_test_support.h"

using namespace cutlet;
using namespace cutlet::test;
namespace alg = cutlet::algorithms;

namespace {

/// Tiles of the largest size: past one look-back window of 32 tiles.
constexpr std::size_t kLargeTiles = 40;

template <class S>
std::vector<std::size_t> sizes() {
  return boundary_sizes(alg::kSelectTile<S>, kLargeTiles);
}

/// The count a compaction wrote.
inline std::int32_t count_of(const Stream& st, const Buffer<std::int32_t>& count) { return count.to_host(st)[0]; }

// Predicates over the fields, traced and on the host.
struct LoAbove {  // about a third of struct_input<MinMaxSum>
  Value<bool> operator()(const Struct<MinMaxSum>& s) const { return s[&MinMaxSum::lo] > 300.0f; }
  bool operator()(const MinMaxSum& s) const { return s.lo > 300.0f; }
};
struct LoBelow {
  Value<bool> operator()(const Struct<MinMaxSum>& s) const { return s[&MinMaxSum::lo] < -300.0f; }
  bool operator()(const MinMaxSum& s) const { return s.lo < -300.0f; }
};
struct HighOrEighth {  // the score, or the index in the 8-byte field's neighbour
  Value<bool> operator()(const Struct<Best>& s) const {
    return (s[&Best::score] > 8.0f) | ((s[&Best::index] & 7) == 3);
  }
  bool operator()(const Best& s) const { return s.score > 8.0f || (s.index & 7) == 3; }
};
struct BigOrAny {  // 2-byte and 1-byte fields of an 8-byte struct (one 8-byte load)
  Value<bool> operator()(const Struct<Small>& s) const {
    return (s[&Small::most] > cast<std::uint16_t>(1200)) | s[&Small::any];
  }
  bool operator()(const Small& s) const { return s.most > 1200 || s.any; }
};
struct OddCount {  // the 8-byte field
  Value<bool> operator()(const Struct<Best>& s) const { return (s[&Best::count] & 1u) == 1u; }
  bool operator()(const Best& s) const { return (s.count & 1u) == 1u; }
};

// Equalities of neighbours.
struct SameMinMaxSum {  // every field
  Value<bool> operator()(const Struct<MinMaxSum>& a, const Struct<MinMaxSum>& b) const {
    return (a[&MinMaxSum::lo] == b[&MinMaxSum::lo]) & (a[&MinMaxSum::hi] == b[&MinMaxSum::hi]) &
           (a[&MinMaxSum::sum] == b[&MinMaxSum::sum]);
  }
  bool operator()(const MinMaxSum& a, const MinMaxSum& b) const {
    return a.lo == b.lo && a.hi == b.hi && a.sum == b.sum;
  }
};
struct SameScore {  // one field: the first of each run is kept, told apart by its index
  Value<bool> operator()(const Struct<Best>& a, const Struct<Best>& b) const {
    return a[&Best::score] == b[&Best::score];
  }
  bool operator()(const Best& a, const Best& b) const { return a.score == b.score; }
};

/// n structs of struct_input in runs of lengths drawn from [min_run, max_run] (runs_of).
template <class S>
std::vector<S> struct_runs(std::size_t n, std::size_t min_run, std::size_t max_run, std::uint64_t seed) {
  return runs_of(struct_input<S>(n, seed), min_run, max_run, seed);
}

/// The positions of the first items of the runs of `h` by `eq` of neighbours.
template <class T, class HostEq>
std::vector<std::size_t> run_heads(const std::vector<T>& h, HostEq eq) {
  std::vector<std::size_t> heads;
  for (std::size_t i = 0; i < h.size(); ++i)
    if (i == 0 || !eq(h[i - 1], h[i])) heads.push_back(i);
  return heads;
}

template <class T>
std::vector<T> at(const std::vector<T>& h, const std::vector<std::size_t>& where) {
  std::vector<T> r;
  for (std::size_t i : where) r.push_back(h[i]);
  return r;
}

/// select_if(pred) on every size, then in place and by the host-returning form on a few.
template <class S, class Pred>
void check_select_if(Pred pred) {
  Stream st;
  for (std::size_t n : sizes<S>()) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const std::vector<S> h = struct_input<S>(n, 300 + n);
    std::vector<S> want;
    std::copy_if(h.begin(), h.end(), std::back_inserter(want), pred);
    ASSERT_TRUE(n < 100 || (want.size() > 0 && want.size() < n)) << "the predicate keeps some and drops some";
    Buffer<S> in(st, h);
    auto out = poisoned<S>(st, n + 3);
    auto count = poisoned<std::int32_t>(st, 1);
    alg::select_if(st, in, out, count, pred);
    ASSERT_EQ(count_of(st, count), static_cast<std::int32_t>(want.size()));
    expect_prefix(out.to_host(st), want, "kept struct");
    if (n % 1024 == 1 || n == 7) {
      SCOPED_TRACE("in place, host-returning");
      const std::size_t m = alg::select_if(st, in, in, pred);
      ASSERT_EQ(m, want.size());
      const std::vector<S> got = in.to_host(st);
      ASSERT_EQ(std::memcmp(got.data(), want.data(), m * sizeof(S)), 0);
      // The items past m are the input's own.
      ASSERT_EQ(std::memcmp(got.data() + m, h.data() + m, (n - m) * sizeof(S)), 0);
    }
  }
}

TEST(AlgorithmsSelectStructGpu, SelectIfTwelveByteStructs) {
  CUTLET_REQUIRE_GPU();
  check_select_if<MinMaxSum>(LoAbove{});
}

TEST(AlgorithmsSelectStructGpu, SelectIfSixteenByteStructs) {
  CUTLET_REQUIRE_GPU();
  check_select_if<Best>(HighOrEighth{});
}

TEST(AlgorithmsSelectStructGpu, SelectIfEightByteStructs) {
  CUTLET_REQUIRE_GPU();
  check_select_if<Small>(BigOrAny{});
}

/// select_flagged with random flags of F (`density` of them nonzero) on every size; in place
/// on a few.
template <class S, class F>
void check_flagged(double density) {
  Stream st;
  for (std::size_t n : sizes<S>()) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const std::vector<S> h = struct_input<S>(n, 500 + n);
    std::mt19937_64 rng(n);
    std::bernoulli_distribution on(density);
    std::vector<F> flags(n);
    for (auto& f : flags) f = on(rng) ? F(1 + rng() % 3) : F(0);
    std::vector<S> want;
    for (std::size_t i = 0; i < n; ++i)
      if (flags[i] != F(0)) want.push_back(h[i]);
    Buffer<S> in(st, h);
    Buffer<F> fl(st, flags);
    auto out = poisoned<S>(st, n + 2);
    auto count = poisoned<std::int32_t>(st, 1);
    alg::select_flagged(st, in, fl, out, count);
    ASSERT_EQ(count_of(st, count), static_cast<std::int32_t>(want.size()));
    expect_prefix(out.to_host(st), want, "kept struct");
    if (n % 1024 == 1023) {
      SCOPED_TRACE("in place, host-returning");
      ASSERT_EQ(alg::select_flagged(st, in, fl, in), want.size());
      ASSERT_EQ(std::memcmp(in.to_host(st).data(), want.data(), want.size() * sizeof(S)), 0);
    }
  }
}

TEST(AlgorithmsSelectStructGpu, SelectFlagged) {
  CUTLET_REQUIRE_GPU();
  {
    SCOPED_TRACE("12-byte structs, byte flags");
    check_flagged<MinMaxSum, std::uint8_t>(0.5);
  }
  {
    SCOPED_TRACE("16-byte structs, i32 flags");
    check_flagged<Best, std::int32_t>(0.1);
  }
}

/// unique(eq) of runs of several shapes on every size; in place on a few.
template <class S, class Eq>
void check_unique(Eq eq) {
  Stream st;
  for (std::size_t n : sizes<S>()) {
    SCOPED_TRACE("n = " + std::to_string(n));
    // Short runs; runs across warps (32 structs) and tiles; one run of everything.
    const std::pair<std::size_t, std::size_t> shapes[] = {{1, 6}, {20, 1500}, {n + 1, n + 1}};
    for (auto [lo, hi] : shapes) {
      SCOPED_TRACE("runs of " + std::to_string(lo) + " to " + std::to_string(hi));
      const std::vector<S> h = struct_runs<S>(n, lo, hi, 70 + n + lo);
      const std::vector<S> want = at(h, run_heads(h, eq));
      Buffer<S> in(st, h);
      auto out = poisoned<S>(st, n + 3);
      auto count = poisoned<std::int32_t>(st, 1);
      alg::unique(st, in, out, count, eq);
      ASSERT_EQ(count_of(st, count), static_cast<std::int32_t>(want.size()));
      expect_prefix(out.to_host(st), want, "run head");
      if (lo == 1 && n % 1024 == 1) {
        SCOPED_TRACE("in place, host-returning");
        const std::size_t m = alg::unique(st, in, in, eq);
        ASSERT_EQ(m, want.size());
        const std::vector<S> got = in.to_host(st);
        ASSERT_EQ(std::memcmp(got.data(), want.data(), m * sizeof(S)), 0);
        ASSERT_EQ(std::memcmp(got.data() + m, h.data() + m, (n - m) * sizeof(S)), 0);
      }
    }
  }
}

TEST(AlgorithmsSelectStructGpu, UniqueTwelveByteStructs) {
  CUTLET_REQUIRE_GPU();
  check_unique<MinMaxSum>(SameMinMaxSum{});
}

TEST(AlgorithmsSelectStructGpu, UniqueSixteenByteStructsByOneField) {
  CUTLET_REQUIRE_GPU();
  check_unique<Best>(SameScore{});
}

/// unique_by_key of keys `keys` (runs by host_eq) carrying `values`, on the device with `eq`;
/// in place when `in_place`.
template <class K, class V, class Eq, class HostEq>
void check_by_key(const Stream& st, const std::vector<K>& keys, const std::vector<V>& values, Eq eq, HostEq host_eq,
                  bool in_place) {
  const std::size_t n = keys.size();
  const std::vector<std::size_t> heads = run_heads(keys, host_eq);
  const std::vector<K> want_keys = at(keys, heads);
  const std::vector<V> want_values = at(values, heads);
  Buffer<K> d_keys(st, keys);
  Buffer<V> d_values(st, values);
  auto keys_out = poisoned<K>(st, n + 2);
  auto values_out = poisoned<V>(st, n + 3);
  auto count = poisoned<std::int32_t>(st, 1);
  alg::unique_by_key(st, d_keys, d_values, keys_out, values_out, count, eq);
  ASSERT_EQ(count_of(st, count), static_cast<std::int32_t>(heads.size()));
  expect_prefix(keys_out.to_host(st), want_keys, "key");
  expect_prefix(values_out.to_host(st), want_values, "value");
  if (in_place) {
    SCOPED_TRACE("in place, host-returning");
    const std::size_t m = alg::unique_by_key(st, d_keys, d_values, d_keys, d_values, eq);
    ASSERT_EQ(m, heads.size());
    const std::vector<K> got_keys = d_keys.to_host(st);
    const std::vector<V> got_values = d_values.to_host(st);
    ASSERT_EQ(std::memcmp(got_keys.data(), want_keys.data(), m * sizeof(K)), 0);
    ASSERT_EQ(std::memcmp(got_values.data(), want_values.data(), m * sizeof(V)), 0);
    ASSERT_EQ(std::memcmp(got_values.data() + m, values.data() + m, (n - m) * sizeof(V)), 0);
  }
}

TEST(AlgorithmsSelectStructGpu, UniqueByKeyStructKeysNumberValues) {
  CUTLET_REQUIRE_GPU();
  Stream st;
  for (std::size_t n : sizes<Best>()) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const std::vector<Best> keys = struct_runs<Best>(n, 1, n % 2 == 0 ? 5 : 200, 11 + n);
    std::vector<std::int32_t> positions(n);
    for (std::size_t i = 0; i < n; ++i) positions[i] = static_cast<std::int32_t>(3 * i + 1);
    check_by_key(st, keys, positions, SameScore{}, SameScore{}, n % 1024 == 1);
  }
}

TEST(AlgorithmsSelectStructGpu, UniqueByKeyNumberKeysStructValues) {
  CUTLET_REQUIRE_GPU();
  Stream st;
  // Number keys: the tiles of i32 (4096 keys), the struct values read at their positions.
  for (std::size_t n : boundary_sizes(alg::kSelectTile<std::int32_t>, 35)) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const std::vector<std::int32_t> values = algorithm_input<std::int32_t>(n, 5 + n);
    std::mt19937_64 rng(n);
    std::vector<std::int32_t> keys;
    for (std::size_t k = 0; keys.size() < n; ++k) keys.resize(std::min(n, keys.size() + 1 + rng() % 9), values[k]);
    check_by_key(st, keys, struct_input<MinMaxSum>(n, 9 + n), alg::equal_to{},
                 [](std::int32_t a, std::int32_t b) { return a == b; }, n % 4096 == 4095);
  }
}

TEST(AlgorithmsSelectStructGpu, UniqueByKeyStructKeysStructValues) {
  CUTLET_REQUIRE_GPU();
  Stream st;
  for (std::size_t n : sizes<MinMaxSum>()) {
    SCOPED_TRACE("n = " + std::to_string(n));
    check_by_key(st, struct_runs<MinMaxSum>(n, 1, 40, 17 + n), struct_input<Best>(n, 19 + n), SameMinMaxSum{},
                 SameMinMaxSum{}, n % 1024 == 0);
  }
}

/// three_way_partition(first, second) on every size against a CPU split.
template <class S, class First, class Second>
void check_partition(First first, Second second) {
  Stream st;
  for (std::size_t n : sizes<S>()) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const std::vector<S> h = struct_input<S>(n, 900 + n);
    std::vector<S> a, b, c;
    for (const S& x : h) (first(x) ? a : second(x) ? b : c).push_back(x);
    ASSERT_TRUE(n < 100 || (!a.empty() && !b.empty() && !c.empty())) << "every part gets some";
    Buffer<S> in(st, h);
    auto first_out = poisoned<S>(st, n + 1), second_out = poisoned<S>(st, n + 2), rest_out = poisoned<S>(st, n + 3);
    auto counts = poisoned<std::int32_t>(st, 2);
    alg::three_way_partition(st, in, first_out, second_out, rest_out, counts, first, second);
    const std::vector<std::int32_t> got = counts.to_host(st);
    ASSERT_EQ(got[0], static_cast<std::int32_t>(a.size()));
    ASSERT_EQ(got[1], static_cast<std::int32_t>(b.size()));
    expect_prefix(first_out.to_host(st), a, "first part");
    expect_prefix(second_out.to_host(st), b, "second part");
    expect_prefix(rest_out.to_host(st), c, "unselected part");
    if (n == 7 * alg::kSelectTile<S> + 13) {
      SCOPED_TRACE("host-returning");
      const alg::PartitionCounts parts =
          alg::three_way_partition(st, in, first_out, second_out, rest_out, first, second);
      EXPECT_EQ(parts.first, a.size());
      EXPECT_EQ(parts.second, b.size());
      EXPECT_EQ(parts.unselected, c.size());
    }
  }
}

TEST(AlgorithmsSelectStructGpu, ThreeWayPartitionTwelveByteStructs) {
  CUTLET_REQUIRE_GPU();
  check_partition<MinMaxSum>(LoAbove{}, LoBelow{});
}

TEST(AlgorithmsSelectStructGpu, ThreeWayPartitionSixteenByteStructs) {
  CUTLET_REQUIRE_GPU();
  check_partition<Best>(HighOrEighth{}, OddCount{});
}

TEST(AlgorithmsSelectStructGpu, UnalignedTwelveByteStructsEmptyInputAndChecks) {
  CUTLET_REQUIRE_GPU();
  Stream st;
  {
    SCOPED_TRACE("12-byte structs from element 1: 4-byte aligned, read a word at a time");
    const std::size_t n = 3 * alg::kSelectTile<MinMaxSum> + 5;
    const std::vector<MinMaxSum> h = struct_input<MinMaxSum>(n + 1, 2);
    Buffer<MinMaxSum> all(st, h);
    const auto in = Buffer<MinMaxSum>::wrap(all.data() + sizeof(MinMaxSum), n, st.device());
    ASSERT_NE(in.data() % 16, 0u);
    std::vector<MinMaxSum> want;
    std::copy_if(h.begin() + 1, h.end(), std::back_inserter(want), LoAbove{});
    auto out = poisoned<MinMaxSum>(st, n);
    auto count = poisoned<std::int32_t>(st, 1);
    alg::select_if(st, in, out, count, LoAbove{});
    ASSERT_EQ(count_of(st, count), static_cast<std::int32_t>(want.size()));
    expect_prefix(out.to_host(st), want, "kept struct");
  }
  {
    SCOPED_TRACE("no items: the counts are 0, the outputs untouched");
    Buffer<Best> none;
    Buffer<std::uint8_t> no_flags;
    auto out = poisoned<Best>(st, 1);
    auto count = poisoned<std::int32_t>(st, 2);
    alg::select_if(st, none, out, count, HighOrEighth{});
    EXPECT_EQ(count_of(st, count), 0);
    count.fill_bytes(st, 0xCD);
    alg::unique(st, none, out, count, SameScore{});
    EXPECT_EQ(count_of(st, count), 0);
    count.fill_bytes(st, 0xCD);
    alg::three_way_partition(st, none, out, out, out, count, HighOrEighth{}, OddCount{});
    EXPECT_EQ(count.to_host(st), (std::vector<std::int32_t>{0, 0}));
    expect_prefix(out.to_host(st), std::vector<Best>{}, "output");
  }
  {
    SCOPED_TRACE("argument checks");
    Buffer<Best> in(st, struct_input<Best>(100, 1));
    auto count = poisoned<std::int32_t>(st, 1);
    auto out = poisoned<Best>(st, 100);
    const auto shifted = Buffer<Best>::wrap(in.data() + 8, 90, st.device());
    EXPECT_NE(message_of([&] { alg::select_if(st, shifted, out, count, HighOrEighth{}); }).find("not 16-byte aligned"),
              std::string::npos);
    Buffer<Small> small(st, struct_input<Small>(100, 1));
    auto small_out = poisoned<Small>(st, 100);
    const auto small_shifted = Buffer<Small>::wrap(small.data() + 4, 90, st.device());
    EXPECT_NE(message_of([&] { alg::select_if(st, small_shifted, small_out, count, BigOrAny{}); })
                  .find("not 8-byte aligned"),
              std::string::npos);
    auto short_out = poisoned<Best>(st, 99);
    EXPECT_NE(message_of([&] { alg::unique(st, in, short_out, count, SameScore{}); })
                  .find("output buffer holds 99 elements but 100"),
              std::string::npos);
    Buffer<std::int32_t> few_flags(st, std::vector<std::int32_t>(50, 1));
    EXPECT_NE(message_of([&] { alg::select_flagged(st, in, few_flags, out, count); }).find("flags buffer holds 50"),
              std::string::npos);
    Buffer<std::int32_t> few_values(st, std::vector<std::int32_t>(60, 1));
    auto values_out = poisoned<std::int32_t>(st, 100);
    EXPECT_NE(message_of([&] { alg::unique_by_key(st, in, few_values, out, values_out, count, SameScore{}); })
                  .find("values input buffer holds 60"),
              std::string::npos);
    auto other = poisoned<Best>(st, 100);
    auto two = poisoned<std::int32_t>(st, 2);
    EXPECT_NE(message_of([&] { alg::three_way_partition(st, in, out, in, other, two, HighOrEighth{}, OddCount{}); })
                  .find("overlap"),
              std::string::npos);
  }
}

}  // namespace
