// Tests of the op rules (ir/ops/): the builder makes instructions with the same rule the
// verifier checks them with, and the typed views (ops.h) read operands and attributes by name.
#include <gtest/gtest.h>

#include <array>
#include <string>

#include "cutlet/ir/builder.h"
#include "cutlet/ir/ops.h"
#include "cutlet/ir/verifier.h"
#include "ir/ir_test_support.h"

namespace cutlet::ir {
namespace {


const Instruction& last(const Function& f) { return f.inst(f.body().body.back()); }

constexpr std::array<std::int64_t, 1> k64{64};
constexpr std::array<std::int64_t, 1> k32{32};

TEST(OpRulesTest, TheBuilderAndTheVerifierGiveOneMessage) {
  // The builder refuses a mask of another shape...
  Function f("k");
  f.set_tile_warps(4);
  Builder b(f);
  ValueId p = b.add_param(Type::pointer(Type::f32()));
  ValueId offs = b.tile_arange(64);
  ValueId small = b.tile_splat(b.const_bool(true), k32);
  const std::string built = ir_error_of([&] { b.tile_load(p, offs, small); });
  EXPECT_TRUE(contains(built, "a tile load's mask must be an i1 tile of the offsets' shape, not tile<32xi1>"));

  // ... and the verifier refuses the same instruction, made by hand, with the same words.
  ValueId mask = b.tile_splat(b.const_bool(true), k64);
  ValueId x = b.tile_load(p, offs, mask);
  b.tile_store(p, offs, x);
  EXPECT_NO_THROW(verify(f));
  f.inst(f.value(x).def).operands[2] = small;
  const std::string verified = ir_error_of([&] { verify(f); });
  EXPECT_TRUE(contains(verified, "'tile.load'"));
  EXPECT_TRUE(contains(verified, "a tile load's mask must be an i1 tile of the offsets' shape, not tile<32xi1>"));
}

TEST(OpRulesTest, TheVerifierChecksTileShapesTheBuilderChecks) {
  Function f("k");
  f.set_tile_warps(4);
  Builder b(f);
  ValueId a = b.tile_splat(b.const_float(Type::bf16(), 1.0), std::array<std::int64_t, 2>{64, 32});
  ValueId c = b.tile_splat(b.const_float(Type::f32(), 0.0), std::array<std::int64_t, 2>{64, 64});
  ValueId d = b.tile_dot(a, b.tile_splat(b.const_float(Type::bf16(), 1.0), std::array<std::int64_t, 2>{32, 64}), c);
  EXPECT_NO_THROW(verify(f));
  // A dot whose b no longer has K rows.
  f.inst(f.value(d).def).operands[1] = a;
  const std::string msg = ir_error_of([&] { verify(f); });
  EXPECT_TRUE(contains(msg, "'tile.dot'"));
  EXPECT_TRUE(contains(msg, "shapes [M, K] @ [K, N] + [M, N] do not match"));
}

TEST(OpRulesTest, AttributesOfTheWrongKindOrCountAreRefused) {
  Function f("k");
  Builder b(f);
  ValueId x = b.add_param(Type::i32());
  ValueId y = b.add_param(Type::i32());
  ValueId c = b.cmp(Predicate::Lt, x, y);
  ValueId r = b.select(c, x, y);
  b.store(b.add_param(Type::pointer(Type::i32())), r);
  EXPECT_NO_THROW(verify(f));
  f.inst(f.value(c).def).attrs = {std::string("lt")};
  EXPECT_TRUE(contains(ir_error_of([&] { verify(f); }), "attribute 'predicate' must be an integer"));
  f.inst(f.value(c).def).attrs = {};
  EXPECT_TRUE(contains(ir_error_of([&] { verify(f); }), "has 0 attributes, expected 1"));
}

TEST(OpRulesTest, FoldsComeFromTheRows) {
  Function f("k");
  Builder b(f);
  ValueId x = b.add_param(Type::i32());
  EXPECT_EQ(b.binary(Opcode::Add, x, b.const_int(Type::i32(), 0)), x);
  EXPECT_EQ(b.int_constant(b.binary(Opcode::Mul, b.const_int(Type::i32(), 6), b.const_int(Type::i32(), 7))), 42);
  EXPECT_EQ(b.int_constant(b.cmp(Predicate::Lt, b.const_int(Type::u32(), 1), b.const_int(Type::u32(), 2))), 1);
  EXPECT_EQ(b.float_constant(b.cast(Type::f32(), b.const_int(Type::i32(), 3))), 3.0);
  // The constant of a commutative op goes to the right.
  ValueId s = b.binary(Opcode::Add, b.const_int(Type::i32(), 5), x);
  EXPECT_EQ(f.def_of(s)->operands[0], x);
}

TEST(OpViewsTest, NameOperandsAndAttributes) {
  Function f("k");
  f.set_tile_warps(4);
  Builder b(f);
  ValueId p = b.add_param(Type::pointer(Type::f32()));
  ValueId offs = b.tile_arange(64);
  ValueId mask = b.tile_splat(b.const_bool(true), k64);
  ValueId x = b.tile_load(p, offs, mask);
  const ops::TileLoad load(*f.def_of(x));
  EXPECT_EQ(load.ptr(), p);
  EXPECT_EQ(load.offsets(), offs);
  EXPECT_EQ(load.mask(), mask);
  EXPECT_EQ(load.other(), kNone);
  EXPECT_EQ(load.result(), x);
  EXPECT_EQ(ops::TileLoad::mask_operand, 2u);

  ValueId s = b.tile_reduce(ReduceKind::Max, x, 0);
  const ops::TileReduce reduce(*f.def_of(s));
  EXPECT_EQ(reduce.kind(), ReduceKind::Max);
  EXPECT_EQ(reduce.axis(), 0);
  EXPECT_TRUE(ops::match<ops::TileReduce>(*f.def_of(s)));
  EXPECT_FALSE(ops::match<ops::TileLoad>(*f.def_of(s)));
  EXPECT_THROW(ops::TileLoad{*f.def_of(s)}, InternalError);

  ValueId l = b.load(b.ptr_add(p, b.const_int(Type::i64(), 1)));
  EXPECT_EQ(ops::Load(*f.def_of(l)).hint(), CacheHint::Default);  // an optional attribute left out
  ValueId lr = b.load(p, CacheHint::ReadOnly);
  EXPECT_EQ(ops::Load(*f.def_of(lr)).hint(), CacheHint::ReadOnly);

  b.for_(b.const_int(Type::i32(), 0), b.const_int(Type::i32(), 4), b.const_int(Type::i32(), 1), std::array{l},
         [&](std::span<const ValueId> args) { return std::vector<ValueId>{args[1]}; });
  const ops::For loop(last(f));
  ASSERT_EQ(loop.init().size(), 1u);
  EXPECT_EQ(loop.init()[0], l);
  EXPECT_EQ(b.int_constant(loop.upper()), 4);
}

}  // namespace
}  // namespace cutlet::ir
