// Tests of assign_layouts on golden IR: every tile of a tile kernel gets a layout in its type,
// sources are made where their uses want them, and a tile.convert_layout appears exactly where
// a value must move; the verifier holds the assigned IR to one layout per elementwise op.
#include <gtest/gtest.h>

#include <array>

#include "cutlet/ir/builder.h"
#include "cutlet/ir/passes/passes.h"
#include "cutlet/ir/printer.h"
#include "cutlet/ir/verifier.h"
#include "golden_support.h"
#include "tile_kernels.h"

namespace cutlet::ir {
namespace {

using namespace test;

TEST(AssignLayoutsTest, AGemmKeepsItsAccumulatorInTheMmaLayoutAndStoresFromIt) {
  Function f = assign_layouts(gemm_with_bias());
  EXPECT_NO_THROW(verify(f));
  EXPECT_TRUE(all_placed(f, f.body()));
  // The zeros are made in the mma layout, the loop carries it, and the epilogue's offsets and
  // bias are built in it, so only the aranges shared by differently placed uses convert.
  expect_golden("assign_layouts_gemm.ir", print(f));
  const std::string text = print(f);
  EXPECT_NE(text.find("tile.splat %"), std::string::npos);
  EXPECT_NE(text.find("tile<64x64xf32, #mma<warps=[2,2]>>"), std::string::npos) << text;
}

TEST(AssignLayoutsTest, ASoftmaxIsMadeInTheLayoutItsStoreWants) {
  Function f = assign_layouts(softmax_transposed_store());
  EXPECT_NO_THROW(verify(f));
  EXPECT_TRUE(all_placed(f, f.body()));
  expect_golden("assign_layouts_softmax.ir", print(f));
  // The store's wish reaches back through the reductions to the load: nothing converts.
  EXPECT_EQ(conversions(f, f.body()), 0);
}

TEST(AssignLayoutsTest, AValueTwoLayoutsWantConvertsOnceForTheOther) {
  Function f = assign_layouts(one_load_two_layouts());
  EXPECT_NO_THROW(verify(f));
  expect_golden("assign_layouts_two_uses.ir", print(f));
  // The sum is made in the dot's mma layout, and so is the load it wants; the store through
  // the permuted offsets takes the loaded tile by one conversion to their blocked layout.
  int loaded = 0;
  for (InstId id : f.body().body) {
    const Instruction& inst = f.inst(id);
    if (inst.op != Opcode::TileConvertLayout) continue;
    const Instruction* def = f.def_of(inst.operands[0]);
    loaded += def && def->op == Opcode::TileLoad;
    if (def && def->op == Opcode::TileLoad) {
      EXPECT_EQ(f.type_of(inst.operands[0]).layout()->kind, LayoutKind::Mma);
      EXPECT_EQ(f.type_of(inst.results[0]).layout()->kind, LayoutKind::Blocked);
    }
  }
  EXPECT_EQ(loaded, 1);
}

TEST(AssignLayoutsTest, IsIdempotent) {
  Function once = assign_layouts(softmax_transposed_store());
  const std::string text = print(once);
  EXPECT_EQ(print(assign_layouts(std::move(once))), text);
  Function gemm = assign_layouts(gemm_with_bias());
  const std::string gemm_text = print(gemm);
  EXPECT_EQ(print(assign_layouts(std::move(gemm))), gemm_text);
}

TEST(AssignLayoutsTest, LeavesPerThreadKernelsAlone) {
  Function f("simt");
  Builder b(f);
  ValueId p = b.add_param(Type::pointer(Type::f32()));
  b.store(p, b.const_float(Type::f32(), 1));
  const std::string before = print(f);
  EXPECT_EQ(print(assign_layouts(std::move(f))), before);
}

TEST(AssignLayoutsTest, TheVerifierHoldsElementwiseOpsToOneLayout) {
  Function f = assign_layouts(softmax_transposed_store());
  // Give the first elementwise op's result another layout than its operands'.
  for (InstId id : f.body().body) {
    const Instruction& inst = f.inst(id);
    if (inst.op != Opcode::Add || !f.type_of(inst.results[0]).is_tile()) continue;
    Type t = f.type_of(inst.results[0]);
    Layout other = *t.layout();
    std::swap(other.wpc.front(), other.wpc.back());
    std::swap(other.tpw.front(), other.tpw.back());
    f.set_type(inst.results[0], t.with_layout(other));
    break;
  }
  EXPECT_THROW(verify(f), IRError);
}

TEST(AssignLayoutsTest, TheVerifierWantsATargetLayoutOnAConversion) {
  Function f = assign_layouts(one_load_two_layouts());
  bool found = false;
  for (InstId id : f.body().body) {
    const Instruction& inst = f.inst(id);
    if (inst.op != Opcode::TileConvertLayout) continue;
    f.set_type(inst.results[0], f.type_of(inst.results[0]).without_layout());
    found = true;
    break;
  }
  ASSERT_TRUE(found);
  EXPECT_THROW(verify(f), IRError);
}

}  // namespace
}  // namespace cutlet::ir
