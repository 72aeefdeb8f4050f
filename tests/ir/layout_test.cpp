// Tests of tile layouts as IR data: the default, slice and mma layouts, their text, their
// equality and hash, and tile types that carry them.
#include <gtest/gtest.h>

#include <array>

#include "cutlet/ir/layout.h"
#include "cutlet/ir/type.h"

namespace cutlet::ir {
namespace {

TEST(LayoutTest, TheDefaultLayoutPutsLanesAlongRowsAndWarpsDownColumns) {
  const Layout l = default_layout({64, 64}, 4);
  EXPECT_EQ(l.spt, (std::vector<int>{1, 4}));
  EXPECT_EQ(l.tpw, (std::vector<int>{2, 16}));
  EXPECT_EQ(l.wpc, (std::vector<int>{4, 1}));
  EXPECT_EQ(l.order, (std::vector<int>{1, 0}));
  EXPECT_EQ(l.num_regs(), 64 * 64 / 128);
  EXPECT_EQ(l.str(), "#blocked<spt=[1,4], tpw=[2,16], wpc=[4,1], order=[1,0]>");
  // Every register index round-trips.
  for (int r = 0; r < l.num_regs(); ++r) EXPECT_EQ(l.reg_of(l.reg_indices(r)), r);
}

TEST(LayoutTest, ASliceDropsItsDimensionAndForgetsItsExtent) {
  const Layout parent = default_layout({16, 128}, 4);
  const Layout s = slice_layout(parent, 1);
  EXPECT_EQ(s.tile_shape(), (std::vector<std::int64_t>{16}));
  EXPECT_EQ(s.regs_along(1), 1);
  // Slices of parents that differ only in the removed extent are one layout.
  EXPECT_EQ(slice_layout(parent.with_shape({16, 64}), 1), s);
  EXPECT_EQ(s.str(), "#slice<dim=1, " + parent.str() + ">");
}

TEST(LayoutTest, MmaLayoutsSplitWarpsSquarelyOrByWholeRows) {
  auto square = mma_layout(128, 128, 8);
  ASSERT_TRUE(square);
  EXPECT_EQ(square->kind, LayoutKind::Mma);
  EXPECT_EQ(square->str(), "#mma<warps=[2,4]>");
  auto rows = mma_layout(128, 64, 8, /*whole_rows=*/true);
  ASSERT_TRUE(rows);
  EXPECT_EQ(rows->wpc, (std::vector<int>{8, 1}));
  EXPECT_FALSE(mma_layout(8, 8, 4));  // no 16-row tile per warp
}

TEST(LayoutTest, KindsAreDistinctLayoutsOfOnePlacement) {
  // A blocked layout placed exactly as an mma accumulator is another layout, but converting
  // between them moves nothing.
  Layout mma = *mma_layout(16, 8, 1);
  Layout blocked = mma;
  blocked.kind = LayoutKind::Blocked;
  EXPECT_NE(mma, blocked);
  EXPECT_TRUE(mma.same_placement(blocked));
  EXPECT_NE(mma.structural_hash(), blocked.structural_hash());
}

TEST(LayoutTest, TileTypesCarryTheirLayout) {
  const std::array<std::int64_t, 2> shape{64, 64};
  const Layout l = default_layout({64, 64}, 4);
  Type bare = Type::tile(shape, Type::f32());
  Type placed = Type::tile(shape, Type::f32(), l);
  EXPECT_EQ(bare.layout(), nullptr);
  ASSERT_NE(placed.layout(), nullptr);
  EXPECT_EQ(*placed.layout(), l);
  EXPECT_EQ(placed, bare.with_layout(l));  // interned: the same type
  EXPECT_NE(placed, bare);
  EXPECT_EQ(placed.without_layout(), bare);
  EXPECT_EQ(placed.with_element(Type::i1()), Type::tile(shape, Type::i1(), l));
  EXPECT_EQ(placed.str(), "tile<64x64xf32, " + l.str() + ">");
  EXPECT_NE(placed.structural_hash(), bare.structural_hash());
  EXPECT_NE(placed.structural_hash(), bare.with_layout(default_layout({64, 64}, 8)).structural_hash());
}

}  // namespace
}  // namespace cutlet::ir

namespace cutlet::ir {
namespace {

TEST(LayoutTest, TheWgmmaLayoutGivesEachWarpSixteenRowsOfEachBand) {
  // 128 x 64 on 4 warps: warp w holds rows 16w + g and 16w + g + 8 (g = lane / 4) of each
  // 64-row band, columns 8j + 2q and + 1 (q = lane % 4).
  const Layout l = *wgmma_layout(128, 64, 4);
  EXPECT_TRUE(l.is_wgmma());
  EXPECT_EQ(l.str(), "#wgmma<warps=[4,1]>");
  EXPECT_EQ(l.cover(0), 64);
  EXPECT_EQ(l.num_regs(), 128 * 64 / 128);
  EXPECT_EQ(l.regs_along(0), 4);  // rows g, g + 8 of two bands
  EXPECT_EQ(l.reg_offset(0, 0), 0);
  EXPECT_EQ(l.reg_offset(0, 1), 8);
  EXPECT_EQ(l.reg_offset(0, 2), 64);
  EXPECT_EQ(l.reg_offset(0, 3), 72);
  EXPECT_EQ(l.reg_offset(1, 1), 1);
  EXPECT_EQ(l.reg_offset(1, 2), 8);
  EXPECT_FALSE(l.same_placement(*mma_layout(128, 64, 4, true))) << "mma.sync's warps hold rows 8 apart";
  // Whole warpgroups only, 16 rows a warp, N in steps of 8.
  EXPECT_FALSE(wgmma_layout(128, 64, 2).has_value());
  EXPECT_FALSE(wgmma_layout(64, 64, 8).has_value());
  EXPECT_FALSE(wgmma_layout(128, 60, 4).has_value());
  // An expand_dims keeps the repeats of the other dimensions.
  EXPECT_EQ(insert_dim_layout(l, 0, {1, 128, 64}).lane_reps, (std::vector<int>{1, 2, 1}));
}

TEST(LayoutTest, SwizzledOffsetsPermuteSixteenByteChunksWithinEachRowOfTheAtom) {
  // 128-byte swizzle, bf16: row r's chunk c lands at chunk c ^ (r % 8).
  for (int r = 0; r < 16; ++r)
    for (int c = 0; c < 64; ++c) {
      const std::int64_t at = swizzled_offset(r, c, 16, 128, 2);
      EXPECT_EQ(at / 128, r);
      EXPECT_EQ((at % 128) / 16, (c / 8) ^ (r % 8));
      EXPECT_EQ(at % 16, (c % 8) * 2);
    }
  // Columns past the swizzle's width go to the next block of rows x 128 bytes.
  EXPECT_EQ(swizzled_offset(0, 64, 16, 128, 2), 16 * 128);
  // 64-byte swizzle: chunks 0..3 XOR bits 7-8, i.e. (r / 2) % 4; 32-byte: (r / 4) % 2.
  EXPECT_EQ(swizzled_offset(2, 0, 8, 64, 2), 2 * 64 + 16);
  EXPECT_EQ(swizzled_offset(4, 0, 8, 32, 2), 4 * 32 + 16);
  EXPECT_EQ(swizzled_offset(3, 0, 8, 32, 2), 3 * 32);
  // Every element of a 64 x 128 bf16 tile gets its own 2 bytes.
  std::vector<bool> seen(64 * 128 * 2);
  for (int r = 0; r < 64; ++r)
    for (int c = 0; c < 128; ++c) {
      const std::int64_t at = swizzled_offset(r, c, 64, 128, 2);
      ASSERT_FALSE(seen[static_cast<std::size_t>(at)]) << r << "," << c;
      seen[static_cast<std::size_t>(at)] = true;
    }
  Layout s = shared_layout({64, 128}, {64, 1});
  s.swizzle = 128;
  EXPECT_EQ(s.str(), "#shared<strides=[64,1], swizzle=128>");
  EXPECT_EQ(s.shared_elements(), 64 * 128);
}

}  // namespace
}  // namespace cutlet::ir
