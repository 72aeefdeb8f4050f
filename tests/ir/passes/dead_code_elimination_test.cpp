// Tests of dead-code elimination: unused pure ops and loads go, effects and their inputs stay.
#include <gtest/gtest.h>

#include <array>
#include <vector>

#include "cutlet/ir/builder.h"
#include "cutlet/ir/passes/passes.h"
#include "cutlet/ir/printer.h"
#include "cutlet/ir/verifier.h"

namespace cutlet::ir {
namespace {

using Args = std::span<const ValueId>;
using Values = std::vector<ValueId>;

/// The opcodes of a region's instructions, in order (not descending into nested regions).
std::vector<Opcode> ops_of(const Function& f, const Region& r) {
  std::vector<Opcode> ops;
  for (InstId id : r.body) ops.push_back(f.inst(id).op);
  return ops;
}

/// How many instructions with opcode `op` the function contains, at any depth.
std::size_t count(const Function& f, const Region& r, Opcode op) {
  std::size_t n = 0;
  for (InstId id : r.body) {
    const Instruction& inst = f.inst(id);
    n += inst.op == op;
    for (const Region& sub : inst.regions) n += count(f, sub, op);
  }
  return n;
}
std::size_t count(const Function& f, Opcode op) { return count(f, f.body(), op); }

TEST(DeadCodeEliminationTest, RemovesUnusedPureOpsTransitively) {
  Function f("k");
  Builder b(f);
  ValueId x = b.add_param(Type::i32()), y = b.add_param(Type::i32());
  ValueId p = b.add_param(Type::pointer(Type::i32()));
  ValueId s = b.binary(Opcode::Add, x, y);
  ValueId m = b.binary(Opcode::Mul, s, b.const_int(Type::i32(), 3));
  b.cast(Type::f64(), m);  // the only user of m, itself unused
  b.store(p, b.binary(Opcode::Sub, x, y));
  ASSERT_EQ(count(f, Opcode::Add), 1u);
  f = dead_code_elimination(std::move(f));
  EXPECT_EQ(ops_of(f, f.body()), (std::vector<Opcode>{Opcode::Sub, Opcode::Store}));
  EXPECT_NO_THROW(verify(f));
}

TEST(DeadCodeEliminationTest, RemovesUnusedLoadsButKeepsUsedOnes) {
  Function f("k");
  Builder b(f);
  ValueId in = b.add_param(Type::pointer(Type::f32()));
  ValueId out = b.add_param(Type::pointer(Type::f32()));
  ValueId i = b.cast(Type::i64(), b.special(SpecialReg::ThreadIdxX));
  b.load(b.ptr_add(in, b.const_int(Type::i64(), 7)));  // unused, and so is its address
  ValueId v = b.load(b.ptr_add(in, i));
  b.store(b.ptr_add(out, i), v);
  f = dead_code_elimination(std::move(f));
  EXPECT_EQ(count(f, Opcode::Load), 1u);
  EXPECT_EQ(count(f, Opcode::PtrAdd), 2u);
  EXPECT_EQ(count(f, Opcode::Const), 0u);
  EXPECT_EQ(count(f, Opcode::Store), 1u);
  EXPECT_NO_THROW(verify(f));
}

TEST(DeadCodeEliminationTest, RemovesUnusedTileLoadsAsScalarOnes) {
  Function f("k");
  f.set_tile_warps(4);
  Builder b(f);
  ValueId in = b.add_param(Type::pointer(Type::f32()));
  ValueId out = b.add_param(Type::pointer(Type::f32()));
  ValueId offs = b.tile_arange(128);
  b.tile_load(in, b.binary(Opcode::Add, offs, b.tile_splat(b.const_int(Type::i32(), 128), std::array<std::int64_t, 1>{128})));
  b.tile_store(out, offs, b.tile_load(in, offs));
  f = dead_code_elimination(std::move(f));
  EXPECT_EQ(count(f, Opcode::TileLoad), 1u);
  EXPECT_EQ(count(f, Opcode::Add), 0u);
  EXPECT_EQ(count(f, Opcode::TileStore), 1u);
  EXPECT_NO_THROW(verify(f));
}

TEST(DeadCodeEliminationTest, KeepsStoresBarriersAndWhatFeedsThem) {
  Function f("k");
  Builder b(f);
  ValueId p = b.add_param(Type::pointer(Type::i32(), AddressSpace::Shared));
  ValueId t = b.special(SpecialReg::ThreadIdxX);
  b.store(b.ptr_add(p, t), b.binary(Opcode::Mul, t, t));
  b.barrier();
  std::string before = print(f);
  f = dead_code_elimination(std::move(f));
  EXPECT_EQ(print(f), before);
  EXPECT_EQ(count(f, Opcode::Barrier), 1u);
}

TEST(DeadCodeEliminationTest, CleansInsideRegionsAndKeepsRegionOps) {
  Function f("k");
  Builder b(f);
  ValueId n = b.add_param(Type::i32());
  ValueId p = b.add_param(Type::pointer(Type::i32()));
  ValueId init[] = {b.const_int(Type::i32(), 0)};
  // The loop's result is unused, but the loop stores, so it stays with what feeds it.
  b.for_(b.const_int(Type::i32(), 0), n, b.const_int(Type::i32(), 1), init, [&](Args a) {
    b.binary(Opcode::Mul, a[0], a[0]);                 // dead
    b.load(p);                                          // dead
    ValueId next = b.binary(Opcode::Add, a[1], a[0]);  // feeds the yield
    b.if_(b.cmp(Predicate::Eq, a[0], n), {}, [&](Args) {
      b.binary(Opcode::Xor, next, n);  // dead
      b.store(p, next);
      return Values{};
    }, {});
    return Values{next};
  });
  // An if without effects or used results is kept too (region ops are never dropped).
  b.if_(b.cmp(Predicate::Gt, n, b.const_int(Type::i32(), 3)), {}, [&](Args) {
    b.binary(Opcode::Add, n, n);  // dead
    return Values{};
  }, {});
  f = dead_code_elimination(std::move(f));
  EXPECT_EQ(count(f, Opcode::Mul), 0u);
  EXPECT_EQ(count(f, Opcode::Load), 0u);
  EXPECT_EQ(count(f, Opcode::Xor), 0u);
  EXPECT_EQ(count(f, Opcode::Add), 1u);
  EXPECT_EQ(count(f, Opcode::For), 1u);
  EXPECT_EQ(count(f, Opcode::If), 2u);
  EXPECT_EQ(count(f, Opcode::Store), 1u);
  EXPECT_EQ(count(f, Opcode::Yield), 5u);
  EXPECT_NO_THROW(verify(f));
}

TEST(DeadCodeEliminationTest, RemovesUnusedAllocas) {
  Function f("k");
  Builder b(f);
  ValueId p = b.add_param(Type::pointer(Type::f32()));
  b.local_alloc(Type::i32());  // never used
  ValueId local = b.local_alloc(Type::f32());
  b.store(local, b.const_float(Type::f32(), 1.0));
  b.store(p, b.load(local));
  f = dead_code_elimination(std::move(f));
  EXPECT_EQ(count(f, Opcode::Alloca), 1u);
  EXPECT_EQ(count(f, Opcode::Load), 1u);
  EXPECT_EQ(count(f, Opcode::Store), 2u);
  EXPECT_NO_THROW(verify(f));
}

TEST(DeadCodeEliminationTest, IsIdempotent) {
  Function f("k");
  Builder b(f);
  ValueId x = b.add_param(Type::f32());
  ValueId p = b.add_param(Type::pointer(Type::f32()));
  b.binary(Opcode::Mul, x, x);
  b.store(p, b.binary(Opcode::Add, x, x));
  f = dead_code_elimination(std::move(f));
  std::string once = print(f);
  EXPECT_EQ(count(f, Opcode::Mul), 0u);
  f = dead_code_elimination(std::move(f));
  EXPECT_EQ(print(f), once);
}

}  // namespace
}  // namespace cutlet::ir
