// merge_sort_keys and merge_sort_pairs with user struct keys and a comparator over their
// fields, against std::stable_sort: structs of 12 and 16 bytes, many equivalent keys (the
// sort must keep their input order), sizes around the tile and several merge passes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <random>

#include "algorithms/algorithm_test_support.h"
#include "algorithms/struct_test_elements.h"
#include "gpu_test_support.h"
#include "kernel_test_support.h"

using namespace cutlet;
using namespace cutlet::test;
namespace alg = cutlet::algorithms;

namespace {

bool host_order(const Entry& a, const Entry& b) { return host_entry_order(a, b); }

/// 16 bytes with an 8-byte field: ordered by stamp descending, then by the low byte of tag.
struct Event {
  std::uint64_t stamp;
  std::uint32_t tag;
  std::int32_t payload;
};
struct EventOrder {
  Value<bool> operator()(const Struct<Event>& a, const Struct<Event>& b) const {
    return (a[&Event::stamp] > b[&Event::stamp]) |
           ((a[&Event::stamp] == b[&Event::stamp]) & ((a[&Event::tag] & 0xffu) < (b[&Event::tag] & 0xffu)));
  }
};
bool host_order(const Event& a, const Event& b) {
  return a.stamp > b.stamp || (a.stamp == b.stamp && (a.tag & 0xffu) < (b.tag & 0xffu));
}

template <class S>
std::vector<S> random_keys(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<S> v(n);
  for (std::size_t i = 0; i < n; ++i) {
    if constexpr (std::is_same_v<S, Entry>)
      v[i] = Entry{static_cast<std::int32_t>(rng() % 7) - 3, static_cast<float>(rng() % 5) * 0.5f,
                   static_cast<std::uint32_t>(i)};
    else
      v[i] = Event{(rng() % 13) << 33, static_cast<std::uint32_t>(rng()), static_cast<std::int32_t>(i)};
  }
  return v;
}

template <class S>
std::vector<std::size_t> sort_sizes() {
  std::vector<std::size_t> sizes = boundary_sizes(alg::kMergeSortTile<S>, 5);
  sizes.push_back(37 * alg::kMergeSortTile<S> + 501);  // six merge passes, the last pair partial
  return sizes;
}

template <class S, class Comp>
void check_struct_sort() {
  Stream st;
  for (std::size_t n : sort_sizes<S>()) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const std::vector<S> h = random_keys<S>(n, n + 11);
    std::vector<std::int32_t> index(n);
    std::iota(index.begin(), index.end(), 0);
    Buffer<S> keys(st, h);
    Buffer<S> sorted = poisoned<S>(st, n);
    alg::merge_sort_keys(st, keys, sorted, Comp{});
    Buffer<std::int32_t> values(st, index);
    Buffer<S> pair_keys = poisoned<S>(st, n);
    Buffer<std::int32_t> pair_values = poisoned<std::int32_t>(st, n);
    alg::merge_sort_pairs(st, keys, pair_keys, values, pair_values, Comp{});

    std::vector<std::int32_t> want(n);
    std::iota(want.begin(), want.end(), 0);
    std::stable_sort(want.begin(), want.end(), [&](std::int32_t a, std::int32_t b) { return host_order(h[a], h[b]); });
    const auto got = sorted.to_host(st);
    const auto got_pair_keys = pair_keys.to_host(st);
    const auto got_pair_values = pair_values.to_host(st);
    for (std::size_t i = 0; i < n; ++i) {
      const S& w = h[static_cast<std::size_t>(want[i])];
      ASSERT_EQ(std::memcmp(&got[i], &w, sizeof(S)), 0) << "keys at " << i;
      ASSERT_EQ(std::memcmp(&got_pair_keys[i], &w, sizeof(S)), 0) << "pairs' keys at " << i;
      ASSERT_EQ(got_pair_values[i], want[i]) << "pairs' values at " << i;
    }
  }
}

TEST(AlgorithmsMergeSortStructGpu, TwelveByteKeysByTwoFields) {
  CUTLET_REQUIRE_GPU();
  check_struct_sort<Entry, EntryOrder>();
}

TEST(AlgorithmsMergeSortStructGpu, SixteenByteKeysWithAnEightByteField) {
  CUTLET_REQUIRE_GPU();
  check_struct_sort<Event, EventOrder>();
}

TEST(AlgorithmsMergeSortStructGpu, InPlaceWithALambda) {
  CUTLET_REQUIRE_GPU();
  Stream st;
  const std::size_t n = 3 * alg::kMergeSortTile<Entry> + 7;
  std::vector<Entry> h = random_keys<Entry>(n, 3);
  Buffer<Entry> keys(st, h);
  alg::merge_sort_keys(st, keys, keys, [](Struct<Entry> a, Struct<Entry> b) { return a[&Entry::score] < b[&Entry::score]; });
  std::stable_sort(h.begin(), h.end(), [](const Entry& a, const Entry& b) { return a.score < b.score; });
  const auto got = keys.to_host(st);
  for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(std::memcmp(&got[i], &h[i], sizeof(Entry)), 0) << "at " << i;
}

}  // namespace
