// radix_sort_keys and radix_sort_pairs against std::stable_sort: every key type (half,
// bfloat16 and the 8- and 16-bit integers too), values of 1 to 8 bytes (their input
// positions, so that stability is checked), ascending and descending, sizes around the tile
// boundaries and past many tiles, keys from a few values (long runs of equal keys in every
// tile), the full range of bits, NaNs and both zeros in float keys (CUB's order), partial bit
// ranges (fewer and narrower passes), sorts in place (even and odd pass counts), a caller's
// workspace, values of a user struct, more than 2^31 keys (sorted in portions), and the
// argument checks. Outputs are poisoned first.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
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

/// Expects `f` to throw an exception whose message contains `text`.
template <class F>
void expect_message(F&& f, const std::string& text) {
  const std::string message = message_of(f);
  EXPECT_NE(message.find(text), std::string::npos) << message;
}

/// The sort key of `key` for bits [begin, end), descending or not.
template <class K>
KeyBits<K> host_sort_key(K key, int begin, int end, bool descending) {
  using U = KeyBits<K>;
  U b = host_ordered_bits(key);
  if (descending) b = ~b;
  const int width = end - begin;
  if (width == 0) return 0;
  const U mask = width == static_cast<int>(8 * sizeof(U)) ? ~U(0) : ((U(1) << width) - 1);
  return (b >> begin) & mask;
}

/// The positions of h in the order of a stable sort by host_sort_key.
template <class K>
std::vector<std::size_t> host_order(const std::vector<K>& h, int begin, int end, bool descending) {
  std::vector<std::size_t> order(h.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return host_sort_key(h[a], begin, end, descending) < host_sort_key(h[b], begin, end, descending);
  });
  return order;
}

/// radix_sort_keys and radix_sort_pairs (values: positions as V) of `h` against host_order.
template <class K, class V>
void check_sort(const Stream& st, const std::vector<K>& h, const alg::RadixSortOptions& options) {
  const int end = options.end_bit == -1 ? static_cast<int>(8 * sizeof(K)) : options.end_bit;
  const auto order = host_order(h, options.begin_bit, end, options.descending);
  std::vector<K> want_keys;
  std::vector<V> want_values;
  for (std::size_t i : order) {
    want_keys.push_back(h[i]);
    want_values.push_back(static_cast<V>(i));
  }
  std::vector<V> positions(h.size());
  std::iota(positions.begin(), positions.end(), V{0});
  Buffer<K> keys(st, h);
  {
    auto out = poisoned<K>(st, h.size() + 3);
    alg::radix_sort_keys(st, keys, out, options);
    const auto got = out.to_host(st);
    for (std::size_t i = 0; i < h.size(); ++i)
      ASSERT_EQ(std::memcmp(&got[i], &want_keys[i], sizeof(K)), 0)
          << "key " << i << " of " << h.size() << ": got " << got[i] << ", want " << want_keys[i];
    K poison;
    std::memset(static_cast<void*>(&poison), 0xCD, sizeof(K));
    for (std::size_t i = h.size(); i < got.size(); ++i)
      ASSERT_EQ(std::memcmp(&got[i], &poison, sizeof(K)), 0) << "key output " << i << " past n was written";
  }
  {
    Buffer<V> values(st, positions);
    auto out_keys = poisoned<K>(st, h.size());
    auto out_values = poisoned<V>(st, h.size());
    alg::radix_sort_pairs(st, keys, out_keys, values, out_values, options);
    const auto got_keys = out_keys.to_host(st);
    const auto got_values = out_values.to_host(st);
    for (std::size_t i = 0; i < h.size(); ++i) {
      ASSERT_EQ(got_values[i], want_values[i]) << "value " << i << " of " << h.size() << " (a stable sort's position)";
      ASSERT_EQ(std::memcmp(&got_keys[i], &want_keys[i], sizeof(K)), 0) << "pair key " << i << " of " << h.size();
    }
  }
  // The input is left as it was.
  const auto after = keys.to_host(st);
  ASSERT_EQ(std::memcmp(after.data(), h.data(), h.size() * sizeof(K)), 0) << "the input keys were written";
}

template <class K>
void check_type() {
  SCOPED_TRACE(element_label<K>());
  Stream st;
  using V = std::conditional_t<sizeof(K) == 4, std::uint64_t, std::uint32_t>;  // the other width
  std::uint64_t seed = 1;
  for (std::size_t n : boundary_sizes(alg::kRadixTile<K>, 20)) {
    SCOPED_TRACE("n = " + std::to_string(n));
    check_sort<K, V>(st, random_keys<K>(n, 0, seed++), {});
    check_sort<K, V>(st, random_keys<K>(n, 5, seed++), {.descending = true});
  }
  // Around the tiles of radix_sort_pairs, where they differ from radix_sort_keys's.
  if constexpr (alg::kRadixTile<K, true> != alg::kRadixTile<K>) {
    const std::size_t tile = alg::kRadixTile<K, true>;
    for (std::size_t n : {tile - 1, tile, tile + 1, 2 * tile + 1, 7 * tile + 13}) {
      SCOPED_TRACE("n = " + std::to_string(n) + " (pairs' tiles)");
      check_sort<K, V>(st, random_keys<K>(n, 0, seed++), {});
    }
  }
  // Many tiles: the look-back walks far back and meets every flag, in every pass.
  const std::size_t large = 160 * alg::kRadixTile<K> + 77;
  check_sort<K, std::uint32_t>(st, random_keys<K>(large, 0, seed++), {});
  check_sort<K, std::uint32_t>(st, random_keys<K>(large, 3, seed++), {.descending = true});
  // Keys of few bits (most digits empty, most keys equal in the high passes).
  check_sort<K, std::uint32_t>(st, random_keys<K>(large, 257, seed++), {});
}

/// Keys of 1 and 2 bytes (widened to 32 bits in the kernels): one or two passes, sizes around
/// the tiles and past many, all bit patterns (every NaN of half and bfloat16), few distinct
/// keys, descending, a bit range; values (positions) of 4 bytes. NarrowValues sorts values of
/// 1 and 2 bytes.
template <class K>
void check_narrow_type() {
  SCOPED_TRACE(element_label<K>());
  Stream st;
  const std::size_t tile = alg::kRadixTile<K>;
  std::uint64_t seed = 7;
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{33}, tile + 1, 3 * tile + 13}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    check_sort<K, std::uint32_t>(st, random_keys<K>(n, 0, seed++), {});
    check_sort<K, std::uint32_t>(st, random_keys<K>(n, 7, seed++), {.descending = true});
  }
  check_sort<K, std::uint32_t>(st, random_keys<K>(12 * tile + 5, 0, seed++), {.descending = true});
  if constexpr (sizeof(K) == 2)
    check_sort<K, std::uint32_t>(st, random_keys<K>(5 * tile, 0, seed++), {.begin_bit = 3, .end_bit = 13});
}

TEST(AlgorithmsRadixSortGpu, Half) {
  CUTLET_REQUIRE_GPU();
  check_narrow_type<half>();
}
TEST(AlgorithmsRadixSortGpu, BFloat16) {
  CUTLET_REQUIRE_GPU();
  check_narrow_type<bfloat16>();
}
TEST(AlgorithmsRadixSortGpu, Int8AndUInt8) {
  CUTLET_REQUIRE_GPU();
  check_narrow_type<std::int8_t>();
  check_narrow_type<std::uint8_t>();
}
TEST(AlgorithmsRadixSortGpu, Int16AndUInt16) {
  CUTLET_REQUIRE_GPU();
  check_narrow_type<std::int16_t>();
  check_narrow_type<std::uint16_t>();
}
/// Narrow values with 4-byte keys: the values staged behind the keys at 2 and 1 bytes.
TEST(AlgorithmsRadixSortGpu, NarrowValues) {
  CUTLET_REQUIRE_GPU();
  Stream st;
  const std::size_t n = 5 * alg::kRadixTile<float, true> + 3;
  check_sort<float, std::uint16_t>(st, random_keys<float>(n, 50, 3), {});
  const auto keys = random_keys<std::uint32_t>(n, 0, 4);
  std::vector<std::int8_t> values(n);
  for (std::size_t i = 0; i < n; ++i) values[i] = static_cast<std::int8_t>(keys[i] >> 24);  // the key's top byte
  Buffer<std::uint32_t> k(st, keys);
  Buffer<std::int8_t> v(st, values);
  auto ko = poisoned<std::uint32_t>(st, n);
  auto vo = poisoned<std::int8_t>(st, n);
  alg::radix_sort_pairs(st, k, ko, v, vo);
  const auto got_k = ko.to_host(st);
  const auto got_v = vo.to_host(st);
  ASSERT_TRUE(std::is_sorted(got_k.begin(), got_k.end()));
  for (std::size_t i = 0; i < n; ++i)
    ASSERT_EQ(got_v[i], static_cast<std::int8_t>(got_k[i] >> 24)) << "value " << i << " left its key";
}

/// A record of 20 bytes sorted by a key of its own: the values a radix sort of structs carries.
struct Record {
  std::uint32_t id;
  float score;
  std::int32_t group;
  std::uint32_t tag;
  std::uint32_t check;
};

/// radix_sort_pairs with struct values (and the segmented sort's): each record follows its
/// key, equal keys keep their input order; in place and into another buffer; ascending and
/// descending; sizes around the inner sort's tiles.
TEST(AlgorithmsRadixSortGpu, StructValues) {
  CUTLET_REQUIRE_GPU();
  Stream st;
  const std::size_t tile = alg::kRadixTile<std::uint16_t, true>;
  std::uint64_t seed = 11;
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{37}, tile + 1, 4 * tile + 9}) {
    for (bool descending : {false, true}) {
      SCOPED_TRACE("n = " + std::to_string(n) + (descending ? ", descending" : ""));
      const auto keys = random_keys<std::uint16_t>(n, 50, seed++);  // many equal keys
      std::vector<Record> records(n);
      for (std::size_t i = 0; i < n; ++i)
        records[i] = {static_cast<std::uint32_t>(i), static_cast<float>(keys[i]) * 0.5f,
                      static_cast<std::int32_t>(i % 7), keys[i] * 3u, ~static_cast<std::uint32_t>(i)};
      const auto order = host_order(keys, 0, 16, descending);
      Buffer<std::uint16_t> k(st, keys);
      auto ko = poisoned<std::uint16_t>(st, n);
      Buffer<Record> v(st, records);
      auto vo = poisoned<Record>(st, n);
      alg::radix_sort_pairs(st, k, ko, v, vo, {.descending = descending});
      Buffer<Record> in_place(st, records);
      alg::radix_sort_pairs(st, k, ko, in_place, in_place, {.descending = descending});
      const auto got = vo.to_host(st);
      const auto got_in_place = in_place.to_host(st);
      const auto got_keys = ko.to_host(st);
      for (std::size_t i = 0; i < n; ++i) {
        ASSERT_EQ(got_keys[i], keys[order[i]]) << i;
        ASSERT_EQ(std::memcmp(&got[i], &records[order[i]], sizeof(Record)), 0) << "record " << i;
        ASSERT_EQ(std::memcmp(&got_in_place[i], &records[order[i]], sizeof(Record)), 0) << "record in place " << i;
      }
      if (n > 2) {
        // Two segments, each sorted on its own, the records along.
        const std::vector<std::int32_t> offsets = {0, static_cast<std::int32_t>(n / 2), static_cast<std::int32_t>(n)};
        auto so = poisoned<Record>(st, n);
        alg::segmented_radix_sort_pairs(st, k, ko, v, so, Buffer<std::int32_t>(st, offsets),
                                        {.descending = descending});
        const auto got_s = so.to_host(st);
        for (std::size_t s = 0; s < 2; ++s) {
          const std::vector<std::uint16_t> part(keys.begin() + offsets[s], keys.begin() + offsets[s + 1]);
          const auto part_order = host_order(part, 0, 16, descending);
          for (std::size_t i = 0; i < part.size(); ++i)
            ASSERT_EQ(std::memcmp(&got_s[offsets[s] + i], &records[offsets[s] + part_order[i]], sizeof(Record)), 0)
                << "segment " << s << " record " << i;
        }
      }
    }
  }
}

TEST(AlgorithmsRadixSortGpu, Float) {
  CUTLET_REQUIRE_GPU();
  check_type<float>();
}
TEST(AlgorithmsRadixSortGpu, Double) {
  CUTLET_REQUIRE_GPU();
  check_type<double>();
}
TEST(AlgorithmsRadixSortGpu, Int32) {
  CUTLET_REQUIRE_GPU();
  check_type<std::int32_t>();
}
TEST(AlgorithmsRadixSortGpu, UInt32) {
  CUTLET_REQUIRE_GPU();
  check_type<std::uint32_t>();
}
TEST(AlgorithmsRadixSortGpu, Int64) {
  CUTLET_REQUIRE_GPU();
  check_type<std::int64_t>();
}
TEST(AlgorithmsRadixSortGpu, UInt64) {
  CUTLET_REQUIRE_GPU();
  check_type<std::uint64_t>();
}

TEST(AlgorithmsRadixSortGpu, FloatsSortByValueWithZerosEqualAndNaNsAtTheEnds) {
  CUTLET_REQUIRE_GPU();
  Stream st;
  const float qnan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> h;
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> d(-100.0f, 100.0f);
  const float special[] = {0.0f, -0.0f, qnan, -qnan, inf, -inf, std::numeric_limits<float>::denorm_min(),
                           -std::numeric_limits<float>::denorm_min(), std::numeric_limits<float>::max(),
                           std::numeric_limits<float>::lowest()};
  for (int i = 0; i < 50000; ++i) h.push_back(i % 7 == 0 ? special[rng() % 10] : d(rng));
  check_sort<float, std::uint32_t>(st, h, {});
  check_sort<float, std::uint32_t>(st, h, {.descending = true});
  // Without NaNs the order is the values' (std::stable_sort by <, the zeros equal).
  std::vector<float> numbers;
  for (float x : h)
    if (!std::isnan(x)) numbers.push_back(x);
  Buffer<float> in(st, numbers);
  auto out = poisoned<float>(st, numbers.size());
  alg::radix_sort_keys(st, in, out);
  std::vector<float> want = numbers;
  std::stable_sort(want.begin(), want.end());
  const auto got = out.to_host(st);
  ASSERT_EQ(std::memcmp(got.data(), want.data(), want.size() * sizeof(float)), 0);
  // -NaN first, +NaN last.
  Buffer<float> with_nans(st, h);
  alg::radix_sort_keys(st, with_nans, with_nans);
  const auto sorted = with_nans.to_host(st);
  EXPECT_TRUE(std::isnan(sorted.front()) && std::signbit(sorted.front()));
  EXPECT_TRUE(std::isnan(sorted.back()) && !std::signbit(sorted.back()));
}

TEST(AlgorithmsRadixSortGpu, BitRanges) {
  CUTLET_REQUIRE_GPU();
  Stream st;
  const auto h32 = random_keys<std::uint32_t>(5 * alg::kRadixTile<std::uint32_t> + 3, 0, 71);
  for (auto [begin, end] : {std::pair{0, 12}, {4, 20}, {8, 16}, {31, 32}, {0, 31}, {3, 3}}) {
    SCOPED_TRACE("bits [" + std::to_string(begin) + ", " + std::to_string(end) + ")");
    check_sort<std::uint32_t, std::uint32_t>(st, h32, {.begin_bit = begin, .end_bit = end});
    check_sort<std::uint32_t, std::uint32_t>(st, h32, {.descending = true, .begin_bit = begin, .end_bit = end});
  }
  const auto h64 = random_keys<std::int64_t>(3 * alg::kRadixTile<std::int64_t> + 9, 0, 73);
  for (auto [begin, end] : {std::pair{0, 40}, {20, 64}, {63, 64}}) {
    SCOPED_TRACE("bits [" + std::to_string(begin) + ", " + std::to_string(end) + ")");
    check_sort<std::int64_t, std::int32_t>(st, h64, {.begin_bit = begin, .end_bit = end});
  }
}

TEST(AlgorithmsRadixSortGpu, InPlaceWithEvenAndOddPassesAndABorrowedWorkspace) {
  CUTLET_REQUIRE_GPU();
  Stream st;
  const std::size_t n = 20 * alg::kRadixTile<std::int32_t> + 11;
  const auto h = random_keys<std::int32_t>(n, 0, 9);
  for (int end : {32, 24, 8}) {  // 4, 3 and 1 passes
    SCOPED_TRACE("end_bit " + std::to_string(end));
    const auto order = host_order(h, 0, end, false);
    Buffer<std::int32_t> keys(st, h);
    std::vector<std::uint32_t> positions(n);
    std::iota(positions.begin(), positions.end(), 0u);
    Buffer<std::uint32_t> values(st, positions);
    DeviceMemory scratch(alg::radix_sort_workspace_bytes<std::int32_t>(n, sizeof(std::uint32_t)), Device(0));
    alg::radix_sort_pairs(st, keys, keys, values, values, {.end_bit = end}, alg::Workspace::borrow(scratch));
    const auto got_keys = keys.to_host(st);
    const auto got_values = values.to_host(st);
    for (std::size_t i = 0; i < n; ++i) {
      ASSERT_EQ(got_values[i], order[i]) << i;
      ASSERT_EQ(got_keys[i], h[order[i]]) << i;
    }
  }
}

TEST(AlgorithmsRadixSortGpu, MoreThanTwoToThe31KeysInPortions) {
  CUTLET_REQUIRE_GPU();
  Stream st;
  // Three portions of about 2^30 keys, the last one partial; random 32-bit keys, so that
  // every digit of every pass has keys in every portion, with many duplicates.
  const std::size_t n = (std::size_t{1} << 31) + 12345;
  if (st.device().is_cpu()) GTEST_SKIP() << "2^31 keys on the CPU device take too long for a test";
  if (st.device().total_memory() < (std::size_t{64} << 30))
    GTEST_SKIP() << "needs 64 GiB of device memory for sorts of 2^31 + 12345 (key, value) pairs ("
                 << st.device().name() << " has " << (st.device().total_memory() >> 30) << " GiB)";
  std::vector<std::uint32_t> keys(n);
  std::uint64_t state = 0x9e3779b97f4a7c15ull;
  for (auto& k : keys) {  // splitmix64
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    k = static_cast<std::uint32_t>(z ^ (z >> 31));
  }
  Buffer<std::uint32_t> keys_in(st, keys);
  Buffer<std::uint32_t> values_in(n, st);
  alg::transform(st, alg::counting_iterator(std::uint32_t{0}), n, values_in, alg::identity{});
  auto keys_out = poisoned<std::uint32_t>(st, n);
  auto values_out = poisoned<std::uint32_t>(st, n);
  alg::radix_sort_pairs(st, keys_in, keys_out, values_in, values_out);
  const auto got_keys = keys_out.to_host(st);
  const auto got_values = values_out.to_host(st);
  // Sorted, each value the input position of its key, positions rising within equal keys
  // (stable): n distinct positions below n, so a permutation of the input. (Plain loops over
  // the 2^31 places, then one assertion.)
  auto wrong_pair = [&](std::size_t j) {
    if (got_values[j] >= n || keys[got_values[j]] != got_keys[j]) return true;
    if (j == 0) return false;
    return got_keys[j - 1] > got_keys[j] || (got_keys[j - 1] == got_keys[j] && got_values[j - 1] >= got_values[j]);
  };
  std::size_t bad = 0;
  while (bad < n && !wrong_pair(bad)) ++bad;
  ASSERT_EQ(bad, n) << "the pairs are out of order at " << bad << ": key " << got_keys[bad] << ", value "
                    << got_values[bad];
  // The keys alone, largest first: the same keys in reverse.
  alg::radix_sort_keys(st, keys_in, keys_out, {.descending = true});
  const auto descending = keys_out.to_host(st);
  bad = 0;
  while (bad < n && descending[bad] == got_keys[n - 1 - bad]) ++bad;
  ASSERT_EQ(bad, n) << "the descending keys differ at " << bad;
}

TEST(AlgorithmsRadixSortGpu, ArgumentChecks) {
  CUTLET_REQUIRE_GPU();
  Stream st;
  Buffer<std::uint32_t> keys(st, std::vector<std::uint32_t>(100, 1u));
  Buffer<std::uint32_t> small(10, Device(0));
  expect_message([&] { alg::radix_sort_keys(st, keys, small); }, "keys output");
  expect_message([&] { alg::radix_sort_keys(st, keys, keys, {.begin_bit = 8, .end_bit = 4}); },
                          "the bits to sort by, [8, 4)");
  expect_message([&] { alg::radix_sort_keys(st, keys, keys, {.end_bit = 33}); }, "32 bits");
  Buffer<float> values(50, Device(0));
  expect_message([&] { alg::radix_sort_pairs(st, keys, keys, values, values); }, "values input");
  DeviceMemory tiny(16, Device(0));
  expect_message(
      [&] { alg::radix_sort_keys(st, keys, keys, {}, alg::Workspace::borrow(tiny)); }, "radix_sort_keys");
  // More keys than output places of 32 bits: refused before anything is read.
  auto huge = Buffer<std::uint32_t>::wrap(keys.data(), std::size_t{1} << 32, st.device());
  expect_message([&] { alg::radix_sort_keys(st, huge, huge); }, "4294967296 elements are more than it takes");
  // Empty input: nothing happens.
  Buffer<std::uint32_t> none;
  alg::radix_sort_keys(st, none, none);
}

}  // namespace
