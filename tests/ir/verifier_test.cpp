// Tests of the IR verifier on hand-built functions, well-formed and malformed.
#include "cutlet/ir/verifier.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ir/ir_test_support.h"

namespace cutlet::ir {
namespace {


/// Builds functions by hand, bypassing the Builder's checks.
class VerifierTest : public ::testing::Test {
 protected:
  Function f{"bad"};

  ValueId param(Type t) {
    ValueId v = f.add_value(t, kNone, static_cast<std::uint32_t>(f.body().args.size()));
    f.body().args.push_back(v);
    return v;
  }
  /// A new instruction, not placed in any region, with one result of type `result`
  /// (none for void) and `num_regions` empty regions.
  InstId make(Opcode op, std::vector<ValueId> operands, Type result = Type(), std::vector<Attribute> attrs = {},
              int num_regions = 0) {
    Instruction inst;
    inst.op = op;
    inst.operands = std::move(operands);
    inst.attrs = std::move(attrs);
    inst.regions.resize(num_regions);
    InstId id = f.add_inst(std::move(inst));
    if (!result.is_void()) {
      ValueId v = f.add_value(result, id, 0);
      f.inst(id).results.push_back(v);
    }
    return id;
  }
  ValueId result(InstId id) { return f.inst(id).results.at(0); }
  /// Places `id` at the end of the function body and returns its first result (or kNone).
  ValueId top(InstId id) {
    f.body().body.push_back(id);
    return f.inst(id).results.empty() ? kNone : result(id);
  }
  ValueId top_const(Type t, std::int64_t v) { return top(make(Opcode::Const, {}, t, {v})); }
  /// Places `id` at the end of region `r` of instruction `owner`.
  void place(InstId owner, int r, InstId id) { f.inst(owner).regions.at(r).body.push_back(id); }
  /// Adds a result of type `t` to region op `id`.
  ValueId add_result(InstId id, Type t) {
    ValueId v = f.add_value(t, id, static_cast<std::uint32_t>(f.inst(id).results.size()));
    f.inst(id).results.push_back(v);
    return v;
  }
  /// An if on `c` whose branches yield `then_v` and `else_v` (none when kNone), with
  /// results of `result_types`.
  InstId make_if(ValueId c, std::vector<ValueId> then_v, std::vector<ValueId> else_v, std::vector<Type> result_types) {
    InstId id = make(Opcode::If, {c}, Type(), {}, 2);
    place(id, 0, make(Opcode::Yield, std::move(then_v)));
    place(id, 1, make(Opcode::Yield, std::move(else_v)));
    for (Type t : result_types) add_result(id, t);
    return id;
  }

  std::string error() {
    try {
      verify(f);
    } catch (const IRError& e) {
      return e.what();
    }
    ADD_FAILURE() << "verify() accepted a malformed function";
    return {};
  }
};

TEST_F(VerifierTest, AcceptsAWellFormedFunction) {
  ValueId n = param(Type::i32());
  ValueId p = param(Type::pointer(Type::i32()));
  ValueId one = top_const(Type::i32(), 1);
  ValueId s = top(make(Opcode::Add, {n, one}, Type::i32()));
  ValueId c = top(make(Opcode::Cmp, {s, n}, Type::i1(), {std::int64_t{static_cast<int>(Predicate::Lt)}}));
  InstId if_id = make_if(c, {s}, {one}, {Type::i32()});
  ValueId r = top(if_id);
  top(make(Opcode::Store, {p, r}));
  EXPECT_NO_THROW(verify(f));
}

TEST_F(VerifierTest, AcceptsAnEmptyFunction) { EXPECT_NO_THROW(verify(f)); }

TEST_F(VerifierTest, RejectsAValueThatIsNeverDefined) {
  ValueId n = param(Type::i32());
  InstId orphan = make(Opcode::Const, {}, Type::i32(), {std::int64_t{3}});  // never placed
  top(make(Opcode::Add, {n, result(orphan)}, Type::i32()));
  std::string msg = error();
  EXPECT_TRUE(contains(msg, "'add'"));
  EXPECT_TRUE(contains(msg, "not defined"));
  EXPECT_TRUE(contains(msg, "@bad"));
}

TEST_F(VerifierTest, RejectsAnUnknownValueId) {
  ValueId n = param(Type::i32());
  top(make(Opcode::Add, {n, 1000}, Type::i32()));
  EXPECT_TRUE(contains(error(), "unknown value id 1000"));
}

TEST_F(VerifierTest, RejectsAUseBeforeItsDefinition) {
  ValueId n = param(Type::i32());
  InstId later = make(Opcode::Const, {}, Type::i32(), {std::int64_t{3}});
  top(make(Opcode::Add, {n, result(later)}, Type::i32()));
  top(later);
  EXPECT_TRUE(contains(error(), "not defined before it"));
}

TEST_F(VerifierTest, RejectsAValueOfAnInnerRegionUsedOutsideIt) {
  ValueId c = param(Type::i1());
  ValueId p = param(Type::pointer(Type::i32()));
  InstId if_id = make(Opcode::If, {c}, Type(), {}, 2);
  InstId k = make(Opcode::Const, {}, Type::i32(), {std::int64_t{7}});
  place(if_id, 0, k);
  place(if_id, 0, make(Opcode::Yield, {}));
  place(if_id, 1, make(Opcode::Yield, {}));
  top(if_id);
  ASSERT_NO_THROW(verify(f));
  top(make(Opcode::Store, {p, result(k)}));
  std::string msg = error();
  EXPECT_TRUE(contains(msg, "'store'"));
  EXPECT_TRUE(contains(msg, "not defined"));
}

TEST_F(VerifierTest, RejectsALoopArgumentUsedAfterTheLoop) {
  ValueId n = param(Type::i32());
  ValueId p = param(Type::pointer(Type::i32()));
  ValueId zero = top_const(Type::i32(), 0), one = top_const(Type::i32(), 1);
  InstId loop = make(Opcode::For, {zero, n, one}, Type(), {}, 1);
  ValueId iv = f.add_value(Type::i32(), kNone, 0);
  f.inst(loop).regions[0].args.push_back(iv);
  place(loop, 0, make(Opcode::Yield, {}));
  top(loop);
  ASSERT_NO_THROW(verify(f));
  top(make(Opcode::Store, {p, iv}));
  EXPECT_TRUE(contains(error(), "not defined"));
}

TEST_F(VerifierTest, RejectsAWrongOperandCount) {
  ValueId n = param(Type::i32());
  top(make(Opcode::Add, {n}, Type::i32()));
  std::string msg = error();
  EXPECT_TRUE(contains(msg, "'add'"));
  EXPECT_TRUE(contains(msg, "1 operands, expected 2"));
}

TEST_F(VerifierTest, RejectsMismatchedOperandTypes) {
  ValueId n = param(Type::i32());
  ValueId x = param(Type::f32());
  top(make(Opcode::Add, {n, x}, Type::i32()));
  std::string msg = error();
  EXPECT_TRUE(contains(msg, "'add'"));
  EXPECT_TRUE(contains(msg, "f32"));
  EXPECT_TRUE(contains(msg, "i32"));
}

TEST_F(VerifierTest, RejectsAResultTypeThatDoesNotFollowTheRule) {
  ValueId n = param(Type::i32());
  top(make(Opcode::Mul, {n, n}, Type::i64()));
  std::string msg = error();
  EXPECT_TRUE(contains(msg, "'mul'"));
  EXPECT_TRUE(contains(msg, "i64"));
}

TEST_F(VerifierTest, RejectsCmpOfDifferentTypes) {
  ValueId n = param(Type::i32());
  ValueId u = param(Type::u32());
  top(make(Opcode::Cmp, {n, u}, Type::i1(), {std::int64_t{0}}));
  std::string msg = error();
  EXPECT_TRUE(contains(msg, "'cmp'"));
  EXPECT_TRUE(contains(msg, "u32"));
}

TEST_F(VerifierTest, RejectsAnOperandOutsideTheOpsClass) {
  ValueId x = param(Type::f32());
  top(make(Opcode::Shl, {x, x}, Type::f32()));
  std::string msg = error();
  EXPECT_TRUE(contains(msg, "'shl'"));
  EXPECT_TRUE(contains(msg, "f32"));
}

TEST_F(VerifierTest, RejectsAStoreOfTheWrongType) {
  ValueId p = param(Type::pointer(Type::i32()));
  ValueId x = param(Type::f32());
  top(make(Opcode::Store, {p, x}));
  std::string msg = error();
  EXPECT_TRUE(contains(msg, "'store'"));
  EXPECT_TRUE(contains(msg, "f32 through ptr<i32, global>"));
}

TEST_F(VerifierTest, RejectsAConstantOutOfRangeOrOfTheWrongKind) {
  top_const(Type::u8(), 300);
  EXPECT_TRUE(contains(error(), "out of range for u8"));
  Function g("g");
  f = std::move(g);
  top(make(Opcode::Const, {}, Type::f32(), {std::int64_t{1}}));
  EXPECT_TRUE(contains(error(), "does not match its type f32"));
}

TEST_F(VerifierTest, RejectsARegionWithoutTerminator) {
  ValueId c = param(Type::i1());
  InstId if_id = make(Opcode::If, {c}, Type(), {}, 2);
  place(if_id, 0, make(Opcode::Const, {}, Type::i32(), {std::int64_t{1}}));
  place(if_id, 1, make(Opcode::Yield, {}));
  top(if_id);
  EXPECT_TRUE(contains(error(), "does not end in a terminator"));
}

TEST_F(VerifierTest, RejectsAnEmptyRegion) {
  ValueId c = param(Type::i1());
  InstId if_id = make(Opcode::If, {c}, Type(), {}, 2);
  place(if_id, 0, make(Opcode::Yield, {}));
  top(if_id);
  EXPECT_TRUE(contains(error(), "empty region"));
}

TEST_F(VerifierTest, RejectsATerminatorInTheMiddleOfARegion) {
  ValueId c = param(Type::i1());
  InstId if_id = make(Opcode::If, {c}, Type(), {}, 2);
  place(if_id, 0, make(Opcode::Yield, {}));
  place(if_id, 0, make(Opcode::Const, {}, Type::i32(), {std::int64_t{1}}));
  place(if_id, 0, make(Opcode::Yield, {}));
  place(if_id, 1, make(Opcode::Yield, {}));
  top(if_id);
  std::string msg = error();
  EXPECT_TRUE(contains(msg, "'yield'"));
  EXPECT_TRUE(contains(msg, "terminator in the middle"));
}

TEST_F(VerifierTest, RejectsATerminatorInTheFunctionBody) {
  top(make(Opcode::Yield, {}));
  EXPECT_TRUE(contains(error(), "terminator"));
}

TEST_F(VerifierTest, RejectsAYieldOfTheWrongType) {
  ValueId c = param(Type::i1());
  ValueId k = top_const(Type::i32(), 1);
  ValueId x = top_const(Type::i64(), 1);
  top(make_if(c, {k}, {x}, {Type::i32()}));
  std::string msg = error();
  EXPECT_TRUE(contains(msg, "'yield'"));
  EXPECT_TRUE(contains(msg, "wrong type"));
}

TEST_F(VerifierTest, RejectsAYieldOfTheWrongCount) {
  ValueId c = param(Type::i1());
  ValueId k = top_const(Type::i32(), 1);
  top(make_if(c, {k, k}, {k}, {Type::i32()}));
  EXPECT_TRUE(contains(error(), "wrong number of yielded values"));
}

TEST_F(VerifierTest, RejectsAForWhoseBodyHasTheWrongArguments) {
  ValueId n = param(Type::i32());
  ValueId zero = top_const(Type::i32(), 0), one = top_const(Type::i32(), 1);
  InstId loop = make(Opcode::For, {zero, n, one, zero}, Type(), {}, 1);  // one carried value
  f.inst(loop).regions[0].args.push_back(f.add_value(Type::i32(), kNone, 0));  // iv only
  place(loop, 0, make(Opcode::Yield, {zero}));
  add_result(loop, Type::i32());
  top(loop);
  std::string msg = error();
  EXPECT_TRUE(contains(msg, "'for'"));
  EXPECT_TRUE(contains(msg, "1 arguments, expected 2"));
}

TEST_F(VerifierTest, RejectsAForWithMixedBoundTypes) {
  ValueId n = param(Type::i64());
  ValueId zero = top_const(Type::i32(), 0), one = top_const(Type::i32(), 1);
  InstId loop = make(Opcode::For, {zero, n, one}, Type(), {}, 1);
  f.inst(loop).regions[0].args.push_back(f.add_value(Type::i32(), kNone, 0));
  place(loop, 0, make(Opcode::Yield, {}));
  top(loop);
  EXPECT_TRUE(contains(error(), "bounds and step"));
}

TEST_F(VerifierTest, RejectsAWhileWhoseBeforeRegionEndsInYield) {
  ValueId k = top_const(Type::i32(), 1);
  InstId loop = make(Opcode::While, {k}, Type(), {}, 2);
  f.inst(loop).regions[0].args.push_back(f.add_value(Type::i32(), kNone, 0));
  f.inst(loop).regions[1].args.push_back(f.add_value(Type::i32(), kNone, 0));
  place(loop, 0, make(Opcode::Yield, {k}));
  place(loop, 1, make(Opcode::Yield, {k}));
  add_result(loop, Type::i32());
  top(loop);
  EXPECT_TRUE(contains(error(), "'condition'"));
}

TEST_F(VerifierTest, RejectsAValueDefinedTwice) {
  ValueId n = param(Type::i32());
  ValueId zero = top_const(Type::i32(), 0), one = top_const(Type::i32(), 1);
  InstId loop = make(Opcode::For, {zero, n, one}, Type(), {}, 1);
  f.inst(loop).regions[0].args.push_back(n);  // the parameter again
  place(loop, 0, make(Opcode::Yield, {}));
  top(loop);
  EXPECT_TRUE(contains(error(), "defined twice"));
}

TEST_F(VerifierTest, RejectsAnInstructionPlacedTwice) {
  ValueId n = param(Type::i32());
  InstId add = make(Opcode::Add, {n, n}, Type::i32());
  top(add);
  top(add);
  EXPECT_TRUE(contains(error(), "placed twice"));
}

TEST_F(VerifierTest, ReportsTheUserLocation) {
  ValueId n = param(Type::i32());
  InstId add = make(Opcode::Add, {n}, Type::i32());
  f.inst(add).loc = Location{"/src/app/kernel.cpp", 77};
  top(add);
  EXPECT_TRUE(contains(error(), "kernel.cpp:77"));
}

}  // namespace
}  // namespace cutlet::ir
