// Tests of the structural hash (the compiled-kernel cache key): equal structure, equal hash.
#include "cutlet/ir/structural_hash.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cutlet/ir/builder.h"
#include "cutlet/ir/passes/passes.h"
#include "cutlet/ir/printer.h"

namespace cutlet::ir {
namespace {

using Args = std::span<const ValueId>;
using Values = std::vector<ValueId>;

/// What varies between the kernels under test.
struct Shape {
  std::string name = "k";
  Type type = Type::i32();
  Opcode op = Opcode::Sub;
  bool swap_operands = false;
  std::int64_t constant = 1;
  Predicate pred = Predicate::Lt;
  SpecialReg reg = SpecialReg::ThreadIdxX;
  bool store_inside_if = true;
  Location loc{};
  bool dead_code = false;
};

/// out[tid] = (x op y) + constant, stored under `if (tid pred y)`.
Function kernel(const Shape& s) {
  Function f(s.name);
  Builder b(f);
  b.set_location(s.loc);
  ValueId x = b.add_param(s.type), y = b.add_param(s.type);
  ValueId out = b.add_param(Type::pointer(s.type));
  if (s.dead_code) b.binary(Opcode::Mul, y, y);
  ValueId v = b.binary(s.op, s.swap_operands ? y : x, s.swap_operands ? x : y);
  v = b.binary(Opcode::Add, v, b.const_int(s.type, s.constant));
  ValueId tid = b.cast(s.type, b.special(s.reg));
  ValueId c = b.cmp(s.pred, tid, y);
  ValueId dst = b.ptr_add(out, tid);
  if (s.store_inside_if) {
    b.if_(c, {}, [&](Args) {
      if (s.dead_code) b.load(dst);
      b.store(dst, v);
      return Values{};
    }, {});
  } else {
    b.if_(c, {}, [&](Args) { return Values{}; }, {});
    b.store(dst, v);
  }
  return f;
}

std::uint64_t hash_of(const Shape& s) { return structural_hash(kernel(s)); }

TEST(StructuralHashTest, IndependentlyBuiltIdenticalFunctionsHashEqual) {
  Function a = kernel({}), b = kernel({});
  ASSERT_EQ(print(a), print(b));
  EXPECT_EQ(structural_hash(a), structural_hash(b));
  EXPECT_EQ(structural_hash(a), structural_hash(a));
}

TEST(StructuralHashTest, ValueIdsDoNotMatterOnlyStructure) {
  // Dead code shifts every value id; once removed, the structure is the same again.
  Shape dirty;
  dirty.dead_code = true;
  Function f = kernel(dirty);
  EXPECT_NE(structural_hash(f), hash_of({}));
  EXPECT_EQ(structural_hash(dead_code_elimination(std::move(f))), hash_of({}));
}

TEST(StructuralHashTest, LocationsDoNotMatter) {
  Shape located;
  located.loc = {"/src/somewhere.cpp", 123};
  EXPECT_EQ(hash_of(located), hash_of({}));
}

TEST(StructuralHashTest, EveryStructuralChangeChangesTheHash) {
  const std::uint64_t base = hash_of({});
  struct Case {
    const char* what;
    Shape shape;
  };
  std::vector<Case> cases;
  auto add = [&](const char* what, auto mutate) {
    Shape s;
    mutate(s);
    cases.push_back({what, s});
  };
  add("name", [](Shape& s) { s.name = "k2"; });
  add("op", [](Shape& s) { s.op = Opcode::Mul; });
  add("operand order", [](Shape& s) { s.swap_operands = true; });
  add("constant", [](Shape& s) { s.constant = 2; });
  add("type", [](Shape& s) { s.type = Type::u32(); });
  add("predicate", [](Shape& s) { s.pred = Predicate::Le; });
  add("special register", [](Shape& s) { s.reg = SpecialReg::ThreadIdxY; });
  add("region nesting", [](Shape& s) { s.store_inside_if = false; });
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    Function f = kernel(c.shape);
    EXPECT_NE(structural_hash(f), base);
    EXPECT_NE(print(f), print(kernel({})));  // the change is real, not only in the hash
  }
  // All distinct from each other, too.
  for (std::size_t i = 0; i < cases.size(); ++i)
    for (std::size_t j = i + 1; j < cases.size(); ++j)
      EXPECT_NE(hash_of(cases[i].shape), hash_of(cases[j].shape)) << cases[i].what << " vs " << cases[j].what;
}

TEST(StructuralHashTest, FloatConstantsHashByBits) {
  auto with_constant = [](double v) {
    Function f("c");
    Builder b(f);
    ValueId p = b.add_param(Type::pointer(Type::f32()));
    b.store(p, b.const_float(Type::f32(), v));
    return structural_hash(f);
  };
  EXPECT_EQ(with_constant(0.5), with_constant(0.5));
  EXPECT_NE(with_constant(0.5), with_constant(0.25));
  EXPECT_NE(with_constant(0.0), with_constant(-0.0));
}

TEST(StructuralHashTest, RenamingAfterConstructionChangesTheHash) {
  Function f = kernel({});
  std::uint64_t before = structural_hash(f);
  f.set_name("renamed");
  EXPECT_NE(structural_hash(f), before);
  f.set_name("k");
  EXPECT_EQ(structural_hash(f), before);
}

}  // namespace
}  // namespace cutlet::ir
