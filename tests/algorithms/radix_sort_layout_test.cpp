// The radix sort's pass plan and temporary storage layout (no GPU): one pass per 8 bits,
// the last one's digit mask narrower where the bits do not divide by 8, bad bit ranges
// refused with what to pass instead, and the storage's parts aligned and in order.
#include <gtest/gtest.h>

#include <cutlet/algorithms.h>

#include <string>

using namespace cutlet;
namespace ad = cutlet::algorithms::detail;

namespace {

TEST(AlgorithmsRadixSortLayout, PassesPerEightBits) {
  const auto all = ad::radix_passes(0, -1, 32, "radix_sort_keys");
  EXPECT_EQ(all.count, 4);
  EXPECT_EQ(all.last_mask, 0xffu);
  const auto twelve = ad::radix_passes(4, 16, 64, "radix_sort_keys");
  EXPECT_EQ(twelve.begin_bit, 4);
  EXPECT_EQ(twelve.count, 2);
  EXPECT_EQ(twelve.last_mask, 0xfu);
  const auto one_bit = ad::radix_passes(63, 64, 64, "radix_sort_keys");
  EXPECT_EQ(one_bit.count, 1);
  EXPECT_EQ(one_bit.last_mask, 1u);
  EXPECT_EQ(ad::radix_passes(5, 5, 32, "radix_sort_keys").count, 0);
  EXPECT_EQ(ad::radix_passes(0, -1, 64, "radix_sort_keys").count, 8);
}

TEST(AlgorithmsRadixSortLayout, BadBitRangesAreRefused) {
  for (auto [begin, end] : {std::pair{-1, 8}, {9, 8}, {0, 33}, {40, -1}}) {
    try {
      ad::radix_passes(begin, end, 32, "radix_sort_pairs");
      ADD_FAILURE() << "[" << begin << ", " << end << ") was taken";
    } catch (const Error& e) {
      const std::string m = e.what();
      EXPECT_NE(m.find("radix_sort_pairs"), std::string::npos) << m;
      EXPECT_NE(m.find("within the key's 32 bits"), std::string::npos) << m;
      EXPECT_NE(m.find("end_bit -1"), std::string::npos) << m;
    }
  }
}

TEST(AlgorithmsRadixSortLayout, PartsAlignedAndInOrder) {
  const auto l = ad::radix_sort_layout(1000, 1, 4, 4, 8);
  EXPECT_EQ(l.bins, 0u);
  EXPECT_EQ(l.counters, 4u * 256 * 4);
  EXPECT_EQ(l.status, l.counters + 256);
  EXPECT_EQ(l.zeroed_bytes, l.status + 256 * 4);
  EXPECT_EQ(l.keys, l.zeroed_bytes);
  EXPECT_EQ(l.values, l.keys + 4096);   // 4000 bytes, aligned to 256
  EXPECT_EQ(l.total_bytes, l.values + 8192);
  EXPECT_EQ(ad::radix_sort_layout(1000, 1, 4, 4, 0).total_bytes, l.values);
  EXPECT_EQ(cutlet::algorithms::radix_sort_workspace_bytes<std::uint32_t>(0), 0u);
  EXPECT_EQ(cutlet::algorithms::radix_sort_workspace_bytes<std::uint32_t>(1000, 8), l.total_bytes);
}

TEST(AlgorithmsRadixSortLayout, MoreThanAPortionOfKeysSortsInPortions) {
  // A portion is a whole number of tiles below 2^30 keys (the status words' 30-bit counts).
  constexpr std::int64_t tile = cutlet::algorithms::kRadixTile<std::uint32_t>;
  constexpr std::int64_t portion = cutlet::algorithms::kRadixPortion<std::uint32_t>;
  static_assert(portion % tile == 0 && portion < (std::int64_t{1} << 30) && portion + tile >= (std::int64_t{1} << 30));
  using ad::radix_portions;
  const auto one = radix_portions<std::uint32_t, false>(portion);
  EXPECT_EQ(one.count, 1);
  EXPECT_EQ(one.tiles, portion / tile);
  const auto three = radix_portions<std::uint32_t, false>(2 * portion + 5);
  EXPECT_EQ(three.count, 3);
  EXPECT_EQ(three.tiles, portion / tile);  // the status words of the largest portion
  const auto few = radix_portions<std::uint32_t, false>(5);
  EXPECT_EQ(few.tiles, 1);
  // Offsets for every portion and pass, a tile counter for every launch.
  const auto l = ad::radix_sort_layout(2 * portion + 5, three.tiles, 4, 4, 0, 3);
  EXPECT_EQ(l.counters, 3u * 4 * 256 * 4);
  EXPECT_EQ(l.status, l.counters + 256);
  EXPECT_EQ(l.zeroed_bytes, l.status + static_cast<std::size_t>(three.tiles) * 256 * 4);
  EXPECT_EQ(cutlet::algorithms::radix_sort_workspace_bytes<std::uint32_t>(2 * portion + 5), l.total_bytes);
}

}  // namespace
