// Tests of fold_dot_transposes: a dot reading a transposed tile reads the tile itself, marked
// transposed, and the permute is left for DCE; other permutes and dots stay as they are.
#include <gtest/gtest.h>

#include <array>

#include "cutlet/ir/builder.h"
#include "cutlet/ir/passes/passes.h"
#include "cutlet/ir/printer.h"
#include "cutlet/ir/verifier.h"
#include "golden_support.h"

namespace cutlet::ir {
namespace {

/// out[0] = q @ transpose(k) + acc, then that @ transpose(transpose(v)): the attention shapes
/// (q [64, 32], k [16, 32], v [16, 64] of f16), tiles splatted from parameters.
Function attention_like() {
  Function f("fold");
  Builder b(f);
  ValueId out = b.add_param(Type::pointer(Type::f32()));
  ValueId x = b.add_param(Type::f16());
  const std::array<std::int64_t, 2> qs{64, 32}, ks{16, 32}, vs{64, 16}, ss{64, 16};
  ValueId q = b.tile_splat(x, qs);
  ValueId k = b.tile_splat(b.cast(Type::f16(), b.const_float(Type::f32(), 0.5)), ks);
  const std::array<int, 2> swap{1, 0};
  ValueId s = b.tile_dot(q, b.tile_permute(k, swap), b.tile_splat(b.const_float(Type::f32(), 0), ss));
  ValueId p = b.cast(Type::tile(ss, Type::f16()), s);
  ValueId v = b.tile_splat(b.cast(Type::f16(), b.const_float(Type::f32(), 2)), vs);
  ValueId vt = b.tile_permute(b.tile_permute(v, swap), swap);  // v again, the long way
  const std::array<std::int64_t, 2> os{64, 64};
  ValueId o = b.tile_dot(b.tile_permute(b.tile_permute(p, swap), swap), b.tile_permute(vt, swap),
                         b.tile_splat(b.const_float(Type::f32(), 0), os));
  b.tile_store(out, b.tile_splat(b.const_int(Type::i32(), 0), os), o);
  return f;
}

TEST(FoldDotTransposesTest, DotsReadTransposedTilesInPlace) {
  Function f = dead_code_elimination(fold_dot_transposes(attention_like()));
  EXPECT_NO_THROW(verify(f));
  expect_golden("fold_dot_transposes.ir", print(f));
}

TEST(FoldDotTransposesTest, TheVerifierChecksTransposedShapes) {
  Function f = fold_dot_transposes(attention_like());
  for (InstId id : f.body().body) {
    Instruction& inst = f.inst(id);
    if (inst.op == Opcode::TileDot && inst.int_attr(1) == BTransposed) inst.attrs[1] = std::int64_t{0};
  }
  EXPECT_THROW(verify(f), IRError);  // q [64, 32] @ k [16, 32] is no [M, K] @ [K, N]
}

}  // namespace
}  // namespace cutlet::ir
