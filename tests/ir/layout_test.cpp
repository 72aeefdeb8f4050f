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
