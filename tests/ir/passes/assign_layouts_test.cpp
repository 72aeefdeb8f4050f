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

namespace cutlet::ir {
namespace {

/// C[64, 64] = sum over k of A[64, 32] B[32, 64] (bf16) + bias, in a loop over K; the
/// epilogue adds a bias row and stores through offsets built from aranges.
Function gemm_with_bias() {
  Function f("gemm");
  f.set_tile_warps(4);
  Builder b(f);
  ValueId a = b.add_param(Type::pointer(Type::bf16()));
  ValueId bp = b.add_param(Type::pointer(Type::bf16()));
  ValueId bias = b.add_param(Type::pointer(Type::f32()));
  ValueId c = b.add_param(Type::pointer(Type::f32()));
  ValueId k_end = b.add_param(Type::i32());
  const std::array<std::int64_t, 2> mn{64, 64}, mk{64, 32}, kn{32, 64};
  ValueId rows = b.tile_arange(64), cols = b.tile_arange(64), ks = b.tile_arange(32);
  auto grid = [&](ValueId r, ValueId col, std::span<const std::int64_t> shape, std::int64_t stride) {
    ValueId rr = b.tile_broadcast(b.tile_expand_dims(r, 1), shape);
    ValueId cc = b.tile_broadcast(b.tile_expand_dims(col, 0), shape);
    return b.binary(Opcode::Add, b.binary(Opcode::Mul, rr, b.tile_splat(b.const_int(Type::i32(), stride), shape)), cc);
  };
  ValueId zero = b.tile_splat(b.const_float(Type::f32(), 0), mn);
  const std::array<ValueId, 1> init{zero};
  auto acc = b.for_(b.const_int(Type::i32(), 0), k_end, b.const_int(Type::i32(), 32), init, [&](std::span<const ValueId> args) {
    ValueId kk = b.binary(Opcode::Add, b.tile_splat(args[0], std::array<std::int64_t, 1>{32}), ks);
    ValueId ta = b.tile_load(a, grid(rows, kk, mk, 1024));
    ValueId tb = b.tile_load(bp, grid(kk, cols, kn, 64));
    return std::vector<ValueId>{b.tile_dot(ta, tb, args[1])};
  });
  ValueId brow = b.tile_broadcast(b.tile_expand_dims(b.tile_load(bias, cols), 0), mn);
  b.tile_store(c, grid(rows, cols, mn, 64), b.binary(Opcode::Add, acc[0], brow));
  return f;
}

/// A row softmax of x[16, 128] bf16 in f32: the row max and sum (slices) come back to the rows
/// by expand_dims and broadcast. The result is stored through offsets that went through two
/// permutes (made in the default layout of 4 elements per thread, where a bf16 load alone
/// would take 8), then transposed.
Function softmax_transposed_store() {
  Function f("softmax");
  f.set_tile_warps(4);
  Builder b(f);
  ValueId x = b.add_param(Type::pointer(Type::bf16()));
  ValueId y = b.add_param(Type::pointer(Type::f32()));
  const std::array<std::int64_t, 2> shape{16, 128}, tshape{128, 16};
  ValueId r = b.tile_arange(16), c = b.tile_arange(128);
  ValueId off = b.binary(Opcode::Add,
                         b.binary(Opcode::Mul, b.tile_broadcast(b.tile_expand_dims(r, 1), shape),
                                  b.tile_splat(b.const_int(Type::i32(), 128), shape)),
                         b.tile_broadcast(b.tile_expand_dims(c, 0), shape));
  ValueId v = b.cast(Type::tile(shape, Type::f32()), b.tile_load(x, off));
  ValueId mx = b.tile_broadcast(b.tile_expand_dims(b.tile_reduce(ReduceKind::Max, v, 1), 1), shape);
  const std::array<ValueId, 1> d{b.binary(Opcode::Sub, v, mx)};
  ValueId e = b.math(MathFn::Exp, d);
  ValueId sum = b.tile_broadcast(b.tile_expand_dims(b.tile_reduce(ReduceKind::Sum, e, 1), 1), shape);
  ValueId p = b.binary(Opcode::Div, e, sum);
  const std::array<int, 2> swap{1, 0};
  b.tile_store(y, b.tile_permute(b.tile_permute(off, swap), swap), p);
  ValueId toff = b.tile_load(b.add_param(Type::pointer(Type::i32())), b.tile_permute(off, swap));
  b.tile_store(y, toff, b.tile_permute(p, swap));
  ValueId o = b.binary(Opcode::Add, b.tile_permute(off, swap), b.tile_splat(b.const_int(Type::i32(), 1), tshape));
  b.tile_store(y, o, b.cast(Type::tile(tshape, Type::f32()), toff));
  return f;
}

/// A tile t loaded once and used twice: added to a dot's result, which lives in the mma
/// layout, and stored as it is through offsets that a permute made in the default layout. One
/// of the uses must take t through a conversion.
Function one_load_two_layouts() {
  Function f("two_uses");
  f.set_tile_warps(4);
  Builder b(f);
  ValueId x = b.add_param(Type::pointer(Type::f32()));
  ValueId h = b.add_param(Type::f16());
  const std::array<std::int64_t, 2> shape{64, 64};
  ValueId off = b.tile_arange(64);
  off = b.binary(Opcode::Add,
                 b.binary(Opcode::Mul, b.tile_broadcast(b.tile_expand_dims(off, 1), shape),
                          b.tile_splat(b.const_int(Type::i32(), 64), shape)),
                 b.tile_broadcast(b.tile_expand_dims(b.tile_arange(64), 0), shape));
  ValueId t = b.tile_load(x, off);
  ValueId d = b.tile_dot(b.tile_splat(h, shape), b.tile_splat(h, shape), b.tile_splat(b.const_float(Type::f32(), 0), shape));
  const std::array<int, 2> swap{1, 0};
  b.tile_store(x, b.tile_permute(b.tile_permute(off, swap), swap), t);
  b.tile_store(x, off, b.binary(Opcode::Add, d, t));
  return f;
}

/// The convert_layout ops of f's body, at any depth.
int conversions(const Function& f, const Region& r) {
  int n = 0;
  for (InstId id : r.body) {
    n += f.inst(id).op == Opcode::TileConvertLayout;
    for (const Region& sub : f.inst(id).regions) n += conversions(f, sub);
  }
  return n;
}

/// Whether every tile value placed in f's regions has a layout.
bool all_placed(const Function& f, const Region& r) {
  for (ValueId a : r.args)
    if (f.type_of(a).is_tile() && !f.type_of(a).layout()) return false;
  for (InstId id : r.body) {
    for (ValueId v : f.inst(id).results)
      if (f.type_of(v).is_tile() && !f.type_of(v).layout()) return false;
    for (const Region& sub : f.inst(id).regions)
      if (!all_placed(f, sub)) return false;
  }
  return true;
}

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
