// segmented_radix_sort_keys and segmented_radix_sort_pairs against std::stable_sort of each
// segment on the host: every key type, ascending and descending, segments of every length
// (empty, one key, around the sorts' tiles, most of the input), keys before the first segment
// and after the last (copied unsorted), no segments at all, keys from few values (stability,
// checked through the values: the keys' positions), a partial bit range, and the argument
// checks. Outputs are poisoned first.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <numeric>
#include <random>
#include <type_traits>

#include "algorithms/algorithm_test_support.h"
#include "gpu_test_support.h"
#include "kernel_test_support.h"

using namespace cutlet;
using namespace cutlet::test;
namespace alg = cutlet::algorithms;

namespace {

/// The sort key of `key` for bits [0, end), descending or not.
template <class K>
KeyBits<K> host_sort_key(K key, int end, bool descending) {
  using U = KeyBits<K>;
  U b = host_ordered_bits(key);
  if (descending) b = ~b;
  return end == static_cast<int>(8 * sizeof(U)) ? b : (b & ((U(1) << end) - 1));
}

/// The positions of keys `h` after each segment of `offsets` is stably sorted on its own.
template <class K>
std::vector<std::int32_t> host_segmented_order(const std::vector<K>& h, const std::vector<std::int32_t>& offsets,
                                               int end, bool descending) {
  std::vector<std::int32_t> order(h.size());
  std::iota(order.begin(), order.end(), 0);
  for (std::size_t s = 0; s + 1 < offsets.size(); ++s)
    std::stable_sort(order.begin() + offsets[s], order.begin() + offsets[s + 1], [&](std::int32_t a, std::int32_t b) {
      return host_sort_key(h[a], end, descending) < host_sort_key(h[b], end, descending);
    });
  return order;
}

/// Both sorts of `h` over `offsets` against the host.
template <class K>
void check_sort(const Stream& st, const std::vector<K>& h, const std::vector<std::int32_t>& offsets,
                const alg::RadixSortOptions& options) {
  const int end = options.end_bit == -1 ? static_cast<int>(8 * sizeof(K)) : options.end_bit;
  const auto order = host_segmented_order(h, offsets, end, options.descending);
  Buffer<K> keys(st, h);
  Buffer<std::int32_t> offs(st, offsets);
  auto out = poisoned<K>(st, h.size());
  alg::segmented_radix_sort_keys(st, keys, out, offs, options);
  const auto got = out.to_host(st);
  for (std::size_t i = 0; i < h.size(); ++i)
    ASSERT_EQ(std::memcmp(&got[i], &h[static_cast<std::size_t>(order[i])], sizeof(K)), 0) << "key " << i;
  std::vector<std::int32_t> positions(h.size());
  std::iota(positions.begin(), positions.end(), 0);
  Buffer<std::int32_t> values(st, positions);
  auto out_keys = poisoned<K>(st, h.size());
  auto out_values = poisoned<std::int32_t>(st, h.size());
  alg::segmented_radix_sort_pairs(st, keys, out_keys, values, out_values, offs, options);
  EXPECT_EQ(out_values.to_host(st), order);
}

/// Segment offsets over n keys: from `first` to n - `last_gap`, of lengths drawn from
/// `lengths` in turn (0 for empty segments).
std::vector<std::int32_t> make_offsets(std::size_t n, std::size_t first, std::size_t last_gap,
                                       const std::vector<std::size_t>& lengths) {
  std::vector<std::int32_t> offsets{static_cast<std::int32_t>(first)};
  std::size_t at = first, k = 0;
  const std::size_t end = n - last_gap;
  while (at < end) {
    at = std::min(end, at + lengths[k++ % lengths.size()]);
    offsets.push_back(static_cast<std::int32_t>(at));
  }
  return offsets;
}

template <class K>
void check_type() {
  SCOPED_TRACE(element_label<K>());
  Stream st;
  const std::size_t tile = alg::kRadixTile<K>;
  const std::size_t n = 3 * tile + 77;
  for (std::size_t distinct : {std::size_t{0}, std::size_t{6}}) {
    SCOPED_TRACE(distinct ? "keys of 6 values" : "keys of random bits");
    const auto h = random_keys<K>(n, distinct, 5 + distinct);
    const std::vector<std::vector<std::int32_t>> segmentations{
        make_offsets(n, 0, 0, {n}),                                   // one segment of everything
        make_offsets(n, 0, 0, {1, 0, 2, 31, 0, 257, tile - 1, tile + 1}),  // every length, empty ones
        make_offsets(n, 100, 33, {5, 500}),                           // keys outside, before and after
        {0},                                                          // no segments: a copy
        {40, 40}};                                                    // one empty segment
    for (const auto& offsets : segmentations) {
      SCOPED_TRACE(std::to_string(offsets.size() - 1) + " segments");
      check_sort<K>(st, h, offsets, {});
      check_sort<K>(st, h, offsets, {.descending = true});
    }
    check_sort<K>(st, h, make_offsets(n, 0, 0, {300}), {.end_bit = 12});
  }
}

TEST(AlgorithmsSegmentedRadixSortGpu, Float) {
  CUTLET_REQUIRE_GPU();
  check_type<float>();
}
TEST(AlgorithmsSegmentedRadixSortGpu, Double) {
  CUTLET_REQUIRE_GPU();
  check_type<double>();
}
TEST(AlgorithmsSegmentedRadixSortGpu, Int32) {
  CUTLET_REQUIRE_GPU();
  check_type<std::int32_t>();
}
TEST(AlgorithmsSegmentedRadixSortGpu, UInt64) {
  CUTLET_REQUIRE_GPU();
  check_type<std::uint64_t>();
}

TEST(AlgorithmsSegmentedRadixSortGpu, ArgumentChecks) {
  CUTLET_REQUIRE_GPU();
  Stream st;
  Buffer<std::uint32_t> keys(st, std::vector<std::uint32_t>(100, 1u));
  Buffer<std::uint32_t> out(100, Device(0));
  Buffer<std::int32_t> none;
  EXPECT_NE(message_of([&] { alg::segmented_radix_sort_keys(st, keys, out, none); }).find("offsets buffer is empty"),
            std::string::npos);
  Buffer<std::int32_t> offsets(st, std::vector<std::int32_t>{0, 100});
  EXPECT_NE(message_of([&] { alg::segmented_radix_sort_keys(st, keys, keys, offsets); })
                .find("the keys output and the keys input overlap"),
            std::string::npos);
  Buffer<std::uint32_t> small(10, Device(0));
  EXPECT_NE(message_of([&] { alg::segmented_radix_sort_keys(st, keys, small, offsets); }).find("keys output"),
            std::string::npos);
}

}  // namespace
