// Tests of rematerialize_conversions on golden IR: conversions of index arithmetic become that
// arithmetic made in the target layout; conversions of loaded data stay.
#include <gtest/gtest.h>

#include "cutlet/ir/passes/passes.h"
#include "cutlet/ir/printer.h"
#include "cutlet/ir/verifier.h"
#include "golden_support.h"
#include "tile_kernels.h"

namespace cutlet::ir {
namespace {

using namespace test;

Function placed(Function f) { return dead_code_elimination(rematerialize_conversions(assign_layouts(std::move(f)))); }

TEST(RematerializeConversionsTest, AGemmMakesItsIndicesInEveryLayoutItUsesThem) {
  Function before = assign_layouts(gemm_with_bias());
  ASSERT_GE(conversions(before, before.body()), 3);  // the aranges shared by differently placed uses
  Function f = placed(gemm_with_bias());
  EXPECT_NO_THROW(verify(f));
  EXPECT_EQ(conversions(f, f.body()), 0);
  expect_golden("rematerialize_conversions_gemm.ir", print(f));
}

TEST(RematerializeConversionsTest, LoadedDataStillConverts) {
  Function f = placed(one_load_two_layouts());
  EXPECT_NO_THROW(verify(f));
  EXPECT_EQ(conversions(f, f.body()), 1);
  for (InstId id : f.body().body)
    if (f.inst(id).op == Opcode::TileConvertLayout) {
      EXPECT_EQ(f.def_of(f.inst(id).operands[0])->op, Opcode::TileLoad);
    }
  expect_golden("rematerialize_conversions_two_uses.ir", print(f));
}

TEST(RematerializeConversionsTest, IsIdempotent) {
  Function f = placed(gemm_with_bias());
  const std::string text = print(f);
  EXPECT_EQ(print(dead_code_elimination(rematerialize_conversions(std::move(f)))), text);
}

}  // namespace
}  // namespace cutlet::ir
