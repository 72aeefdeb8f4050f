// Tests of the IR builder: type checks, constant folding, identities, deduplication and regions.
#include "cutlet/ir/builder.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <iomanip>
#include <limits>
#include <string>
#include <vector>

#include "cutlet/ir/verifier.h"
#include "ir/ir_test_support.h"

namespace cutlet::ir {
namespace {


class BuilderTest : public ::testing::Test {
 protected:
  Function f{"k"};
  Builder b{f};

  ValueId ci(Type t, std::int64_t v) { return b.const_int(t, v); }
  ValueId cf(Type t, double v) { return b.const_float(t, v); }

  /// Folds `x op y` of type `t`; the result must be a constant.
  std::int64_t fold(Opcode op, Type t, std::int64_t x, std::int64_t y) {
    auto r = b.int_constant(b.binary(op, ci(t, x), ci(t, y)));
    EXPECT_TRUE(r.has_value()) << mnemonic(op) << " of " << t.str() << " constants was not folded";
    return r.value_or(0x5eed);
  }
  double ffold(Opcode op, Type t, double x, double y) {
    auto r = b.float_constant(b.binary(op, cf(t, x), cf(t, y)));
    EXPECT_TRUE(r.has_value()) << mnemonic(op) << " of " << t.str() << " constants was not folded";
    return r.value_or(-12345.0);
  }
  bool cmp_fold(Predicate p, Type t, std::int64_t x, std::int64_t y) {
    auto r = b.int_constant(b.cmp(p, ci(t, x), ci(t, y)));
    EXPECT_TRUE(r.has_value()) << "cmp of " << t.str() << " constants was not folded";
    return r.value_or(0) != 0;
  }
  /// True when `v` is the result of an emitted (not folded) `op`.
  bool emitted_as(ValueId v, Opcode op) {
    const Instruction* d = f.def_of(v);
    return d && d->op == op;
  }
  std::size_t count_in_body(Opcode op) {
    std::size_t n = 0;
    for (InstId id : f.body().body) n += f.inst(id).op == op;
    return n;
  }
};

// ---- constants ---------------------------------------------------------------------------

TEST(NormalizeIntTest, TruncatesAndExtendsBySignedness) {
  EXPECT_EQ(normalize_int(Type::u8(), 300), 44);
  EXPECT_EQ(normalize_int(Type::i8(), 200), -56);
  EXPECT_EQ(normalize_int(Type::i8(), -1), -1);
  EXPECT_EQ(normalize_int(Type::u8(), -1), 255);
  EXPECT_EQ(normalize_int(Type::i1(), 3), 1);
  EXPECT_EQ(normalize_int(Type::i1(), 2), 0);
  EXPECT_EQ(normalize_int(Type::u32(), -1), 0xffffffffll);
  EXPECT_EQ(normalize_int(Type::i32(), 0xffffffffll), -1);
  EXPECT_EQ(normalize_int(Type::i64(), std::numeric_limits<std::int64_t>::min()),
            std::numeric_limits<std::int64_t>::min());
  EXPECT_EQ(normalize_int(Type::u64(), -1), -1);
}

TEST_F(BuilderTest, IntConstantsAreNormalizedToTheirType) {
  EXPECT_EQ(b.int_constant(ci(Type::u8(), 257)), 1);
  EXPECT_EQ(b.int_constant(ci(Type::i8(), 255)), -1);
  EXPECT_EQ(b.int_constant(ci(Type::u32(), -1)), 4294967295ll);
  EXPECT_EQ(b.int_constant(b.const_bool(true)), 1);
  EXPECT_FALSE(b.float_constant(ci(Type::i32(), 1)).has_value());
  EXPECT_FALSE(b.int_constant(cf(Type::f32(), 1.0)).has_value());
  EXPECT_FALSE(b.int_constant(b.add_param(Type::i32())).has_value());
}

TEST_F(BuilderTest, F32ConstantsAreRoundedToFloat) {
  EXPECT_EQ(b.float_constant(cf(Type::f32(), 0.1)), static_cast<double>(0.1f));
  EXPECT_NE(b.float_constant(cf(Type::f32(), 0.1)), 0.1);
  EXPECT_EQ(b.float_constant(cf(Type::f64(), 0.1)), 0.1);
}

TEST_F(BuilderTest, ConstantOfWrongKindThrows) {
  EXPECT_TRUE(contains(ir_error_of([&] { b.const_int(Type::f32(), 1); }), "f32"));
  EXPECT_TRUE(contains(ir_error_of([&] { b.const_float(Type::i32(), 1.0); }), "i32"));
}

// ---- integer folding ---------------------------------------------------------------------

TEST_F(BuilderTest, FoldsAddWithWraparound) {
  EXPECT_EQ(fold(Opcode::Add, Type::i32(), 2, 3), 5);
  EXPECT_EQ(fold(Opcode::Add, Type::u8(), 200, 100), 44);
  EXPECT_EQ(fold(Opcode::Add, Type::i8(), 100, 100), -56);
  EXPECT_EQ(fold(Opcode::Add, Type::u32(), 0xffffffffll, 1), 0);
  EXPECT_EQ(fold(Opcode::Add, Type::i32(), std::numeric_limits<std::int32_t>::max(), 1),
            std::numeric_limits<std::int32_t>::min());
  EXPECT_EQ(fold(Opcode::Add, Type::u64(), -1, 2), 1);
}

TEST_F(BuilderTest, FoldsSubWithWraparound) {
  EXPECT_EQ(fold(Opcode::Sub, Type::i32(), 5, 7), -2);
  EXPECT_EQ(fold(Opcode::Sub, Type::u8(), 0, 1), 255);
  EXPECT_EQ(fold(Opcode::Sub, Type::u32(), 0, 1), 4294967295ll);
  EXPECT_EQ(fold(Opcode::Sub, Type::i8(), -128, 1), 127);
}

TEST_F(BuilderTest, FoldsMulWithWraparound) {
  EXPECT_EQ(fold(Opcode::Mul, Type::i32(), -3, 4), -12);
  EXPECT_EQ(fold(Opcode::Mul, Type::u8(), 16, 16), 0);
  EXPECT_EQ(fold(Opcode::Mul, Type::u8(), 15, 17), 255);
  EXPECT_EQ(fold(Opcode::Mul, Type::i8(), 16, 8), -128);
  EXPECT_EQ(fold(Opcode::Mul, Type::u32(), 0x10000, 0x10001), 0x10000);
}

TEST_F(BuilderTest, FoldsDivisionAndRemainderBySignedness) {
  EXPECT_EQ(fold(Opcode::Div, Type::i32(), -7, 2), -3);  // rounds toward zero
  EXPECT_EQ(fold(Opcode::Rem, Type::i32(), -7, 2), -1);  // sign of the dividend
  EXPECT_EQ(fold(Opcode::Div, Type::i32(), 7, -2), -3);
  EXPECT_EQ(fold(Opcode::Rem, Type::i32(), 7, -2), 1);
  // The same bits, unsigned: 0xfffffff9 / 2.
  EXPECT_EQ(fold(Opcode::Div, Type::u32(), -7, 2), 0x7ffffffcll);
  EXPECT_EQ(fold(Opcode::Rem, Type::u32(), -7, 2), 1);
  EXPECT_EQ(fold(Opcode::Div, Type::u8(), 200, 3), 66);
  EXPECT_EQ(fold(Opcode::Rem, Type::u8(), 200, 3), 2);
  EXPECT_EQ(fold(Opcode::Div, Type::i8(), -128, 2), -64);
  EXPECT_EQ(fold(Opcode::Div, Type::u64(), -1, 2), std::numeric_limits<std::int64_t>::max());
}

TEST_F(BuilderTest, DoesNotFoldDivisionByZero) {
  for (Type t : {Type::i32(), Type::u32(), Type::u8(), Type::i64()}) {
    SCOPED_TRACE(t.str());
    ValueId d = b.binary(Opcode::Div, ci(t, 7), ci(t, 0));
    EXPECT_FALSE(b.int_constant(d).has_value());
    EXPECT_TRUE(emitted_as(d, Opcode::Div));
    ValueId r = b.binary(Opcode::Rem, ci(t, 7), ci(t, 0));
    EXPECT_FALSE(b.int_constant(r).has_value());
    EXPECT_TRUE(emitted_as(r, Opcode::Rem));
  }
}

TEST_F(BuilderTest, DoesNotFoldOverflowingSignedDivision) {
  const auto min = std::numeric_limits<std::int64_t>::min();
  ValueId d = b.binary(Opcode::Div, ci(Type::i64(), min), ci(Type::i64(), -1));
  EXPECT_TRUE(emitted_as(d, Opcode::Div));
  ValueId r = b.binary(Opcode::Rem, ci(Type::i64(), min), ci(Type::i64(), -1));
  EXPECT_TRUE(emitted_as(r, Opcode::Rem));
}

TEST_F(BuilderTest, FoldsMinMaxBySignedness) {
  EXPECT_EQ(fold(Opcode::Min, Type::i32(), -1, 1), -1);
  EXPECT_EQ(fold(Opcode::Max, Type::i32(), -1, 1), 1);
  EXPECT_EQ(fold(Opcode::Min, Type::u32(), -1, 1), 1);
  EXPECT_EQ(fold(Opcode::Max, Type::u32(), -1, 1), 4294967295ll);
  EXPECT_EQ(fold(Opcode::Max, Type::u64(), -1, 1), -1);  // 2^64-1 in 64 bits
  EXPECT_EQ(fold(Opcode::Min, Type::i8(), 127, -128), -128);
}

TEST_F(BuilderTest, FoldsBitwiseOps) {
  EXPECT_EQ(fold(Opcode::And, Type::u8(), 0xF0, 0x3C), 0x30);
  EXPECT_EQ(fold(Opcode::Or, Type::u8(), 0xF0, 0x3C), 0xFC);
  EXPECT_EQ(fold(Opcode::Xor, Type::u8(), 0xF0, 0x3C), 0xCC);
  EXPECT_EQ(fold(Opcode::Xor, Type::i8(), -1, 0x0F), -16);
  EXPECT_EQ(fold(Opcode::And, Type::i1(), 1, 0), 0);
  EXPECT_EQ(fold(Opcode::Or, Type::i1(), 1, 0), 1);
  EXPECT_EQ(fold(Opcode::Xor, Type::i1(), 1, 1), 0);
}

TEST_F(BuilderTest, FoldsShiftsBySignedness) {
  EXPECT_EQ(fold(Opcode::Shl, Type::u8(), 1, 7), 128);
  EXPECT_EQ(fold(Opcode::Shl, Type::u8(), 0x81, 1), 2);
  EXPECT_EQ(fold(Opcode::Shl, Type::i8(), 1, 7), -128);
  EXPECT_EQ(fold(Opcode::Shl, Type::u32(), 0x80000001ll, 1), 2);
  EXPECT_EQ(fold(Opcode::Shr, Type::i32(), -16, 2), -4);                 // arithmetic
  EXPECT_EQ(fold(Opcode::Shr, Type::u32(), -16, 2), 0x3ffffffcll);       // logical
  EXPECT_EQ(fold(Opcode::Shr, Type::i8(), -128, 7), -1);
  EXPECT_EQ(fold(Opcode::Shr, Type::u8(), 0x80, 7), 1);
  EXPECT_EQ(fold(Opcode::Shr, Type::u64(), -1, 63), 1);
  EXPECT_EQ(fold(Opcode::Shr, Type::i64(), -1, 63), -1);
}

TEST_F(BuilderTest, DoesNotFoldOversizedShifts) {
  EXPECT_TRUE(emitted_as(b.binary(Opcode::Shl, ci(Type::u8(), 1), ci(Type::u8(), 8)), Opcode::Shl));
  EXPECT_TRUE(emitted_as(b.binary(Opcode::Shr, ci(Type::i32(), 1), ci(Type::i32(), 32)), Opcode::Shr));
  EXPECT_TRUE(emitted_as(b.binary(Opcode::Shl, ci(Type::i32(), 1), ci(Type::i32(), -1)), Opcode::Shl));
}

TEST_F(BuilderTest, FoldsUnaryOps) {
  EXPECT_EQ(b.int_constant(b.unary(Opcode::Neg, ci(Type::i32(), 5))), -5);
  EXPECT_EQ(b.int_constant(b.unary(Opcode::Neg, ci(Type::u8(), 1))), 255);
  EXPECT_EQ(b.int_constant(b.unary(Opcode::Not, ci(Type::u8(), 0))), 255);
  EXPECT_EQ(b.int_constant(b.unary(Opcode::Not, ci(Type::i32(), 0))), -1);
  EXPECT_EQ(b.int_constant(b.unary(Opcode::Not, b.const_bool(true))), 0);
  EXPECT_EQ(b.float_constant(b.unary(Opcode::Neg, cf(Type::f32(), 1.5))), -1.5);
  EXPECT_TRUE(contains(ir_error_of([&] { b.unary(Opcode::Not, cf(Type::f32(), 1.0)); }), "not"));
  EXPECT_TRUE(contains(ir_error_of([&] { b.unary(Opcode::Add, ci(Type::i32(), 1)); }), "add"));
}

TEST_F(BuilderTest, FoldsComparisonsBySignedness) {
  // The same bits compare differently as signed and unsigned.
  EXPECT_TRUE(cmp_fold(Predicate::Gt, Type::u32(), 0xffffffffll, 1));
  EXPECT_FALSE(cmp_fold(Predicate::Lt, Type::u32(), 0xffffffffll, 1));
  EXPECT_TRUE(cmp_fold(Predicate::Lt, Type::i32(), -1, 1));
  EXPECT_FALSE(cmp_fold(Predicate::Gt, Type::i32(), -1, 1));
  EXPECT_TRUE(cmp_fold(Predicate::Gt, Type::u8(), -1, 1));
  EXPECT_FALSE(cmp_fold(Predicate::Gt, Type::i8(), -1, 1));
  EXPECT_TRUE(cmp_fold(Predicate::Ge, Type::u64(), -1, 0));
  EXPECT_FALSE(cmp_fold(Predicate::Ge, Type::i64(), -1, 0));
  EXPECT_TRUE(cmp_fold(Predicate::Le, Type::i32(), 3, 3));
  EXPECT_FALSE(cmp_fold(Predicate::Lt, Type::i32(), 3, 3));
  EXPECT_TRUE(cmp_fold(Predicate::Eq, Type::i16(), 7, 7));
  EXPECT_TRUE(cmp_fold(Predicate::Ne, Type::i16(), 7, 8));
  EXPECT_FALSE(cmp_fold(Predicate::Ne, Type::i16(), 7, 7));
}

TEST_F(BuilderTest, FoldsFloatComparisonsWithNaN) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  auto fcmp = [&](Predicate p, double x, double y) {
    return b.int_constant(b.cmp(p, cf(Type::f32(), x), cf(Type::f32(), y)));
  };
  EXPECT_EQ(fcmp(Predicate::Lt, 1.0, 2.0), 1);
  EXPECT_EQ(fcmp(Predicate::Eq, nan, nan), 0);
  EXPECT_EQ(fcmp(Predicate::Lt, nan, 1.0), 0);
  EXPECT_EQ(fcmp(Predicate::Ge, nan, 1.0), 0);
  EXPECT_EQ(fcmp(Predicate::Ne, nan, nan), 1);  // unordered, as in C++
}

TEST_F(BuilderTest, HalfConstantsCompareAfterRoundingToHalf) {
  // 1.0001 and 1.0002 are both 1.0 in f16 (its spacing near 1 is 2^-10), so on the GPU
  // a < b is false and a == b is true. Folding may only give those answers.
  ValueId x = cf(Type::f16(), 1.0001), y = cf(Type::f16(), 1.0002);
  auto lt = b.int_constant(b.cmp(Predicate::Lt, x, y));
  EXPECT_TRUE(!lt || *lt == 0) << "f16 1.0001 < 1.0002 folded to true";
  auto eq = b.int_constant(b.cmp(Predicate::Eq, x, y));
  EXPECT_TRUE(!eq || *eq == 1) << "f16 1.0001 == 1.0002 folded to false";
}

// ---- float folding -----------------------------------------------------------------------

TEST_F(BuilderTest, FoldsF32ArithmeticInSinglePrecision) {
  EXPECT_EQ(ffold(Opcode::Div, Type::f32(), 1.0, 3.0), static_cast<double>(1.0f / 3.0f));
  EXPECT_NE(ffold(Opcode::Div, Type::f32(), 1.0, 3.0), 1.0 / 3.0);
  EXPECT_EQ(ffold(Opcode::Add, Type::f32(), 16777216.0, 1.0), 16777216.0);  // 2^24 + 1 is not a float
  EXPECT_EQ(ffold(Opcode::Mul, Type::f32(), 0.1, 3.0), static_cast<double>(0.1f * 3.0f));
  EXPECT_EQ(ffold(Opcode::Sub, Type::f32(), 1.5, 0.25), 1.25);
  EXPECT_EQ(ffold(Opcode::Min, Type::f32(), -1.0, 2.0), -1.0);
  EXPECT_EQ(ffold(Opcode::Max, Type::f32(), -1.0, 2.0), 2.0);
}

TEST_F(BuilderTest, FoldsF64ArithmeticInDoublePrecision) {
  EXPECT_EQ(ffold(Opcode::Div, Type::f64(), 1.0, 3.0), 1.0 / 3.0);
  EXPECT_EQ(ffold(Opcode::Add, Type::f64(), 16777216.0, 1.0), 16777217.0);
}

TEST_F(BuilderTest, DoesNotFoldFloatMinMaxOfNaN) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_TRUE(emitted_as(b.binary(Opcode::Min, cf(Type::f32(), nan), cf(Type::f32(), 1.0)), Opcode::Min));
  EXPECT_TRUE(emitted_as(b.binary(Opcode::Max, cf(Type::f64(), 1.0), cf(Type::f64(), nan)), Opcode::Max));
}

// ---- casts -------------------------------------------------------------------------------

TEST_F(BuilderTest, FoldsCasts) {
  EXPECT_EQ(b.int_constant(b.cast(Type::u32(), ci(Type::i32(), -1))), 4294967295ll);
  EXPECT_EQ(b.int_constant(b.cast(Type::i64(), ci(Type::i32(), -1))), -1);         // sign-extends
  EXPECT_EQ(b.int_constant(b.cast(Type::i64(), ci(Type::u32(), -1))), 4294967295ll);  // zero-extends
  EXPECT_EQ(b.int_constant(b.cast(Type::u8(), ci(Type::i32(), 300))), 44);
  EXPECT_EQ(b.int_constant(b.cast(Type::i1(), ci(Type::i32(), 256))), 1);
  EXPECT_EQ(b.float_constant(b.cast(Type::f32(), ci(Type::u32(), -1))), 4294967296.0);
  EXPECT_EQ(b.float_constant(b.cast(Type::f64(), ci(Type::i32(), -3))), -3.0);
  EXPECT_EQ(b.int_constant(b.cast(Type::i32(), cf(Type::f32(), -2.75))), -2);  // toward zero
  EXPECT_EQ(b.int_constant(b.cast(Type::u8(), cf(Type::f64(), 255.9))), 255);
  EXPECT_EQ(b.int_constant(b.cast(Type::i1(), cf(Type::f32(), 0.0))), 0);
  EXPECT_EQ(b.float_constant(b.cast(Type::f32(), cf(Type::f64(), 0.1))), static_cast<double>(0.1f));
}

TEST_F(BuilderTest, DoesNotFoldOutOfRangeFloatToIntCasts) {
  EXPECT_TRUE(emitted_as(b.cast(Type::i32(), cf(Type::f32(), 3e9)), Opcode::Cast));
  EXPECT_TRUE(emitted_as(b.cast(Type::u32(), cf(Type::f32(), -1.0)), Opcode::Cast));
  EXPECT_TRUE(emitted_as(b.cast(Type::u8(), cf(Type::f32(), 256.0)), Opcode::Cast));
}

TEST_F(BuilderTest, CastFoldingOfWideIntegersRoundsOnce) {
  // 2^60 + 2^36 + 1 is just above the midpoint between two floats, so it rounds up in one
  // step (as cvt.rn.f32.s64 does); rounding to double first would land on the midpoint.
  const std::int64_t v = (std::int64_t{1} << 60) + (std::int64_t{1} << 36) + 1;
  auto folded = b.float_constant(b.cast(Type::f32(), ci(Type::i64(), v)));
  ASSERT_TRUE(folded.has_value());
  EXPECT_EQ(*folded, static_cast<double>(static_cast<float>(v)))
      << std::fixed << std::setprecision(0) << "folded " << *folded << ", expected "
      << static_cast<double>(static_cast<float>(v));
}

TEST_F(BuilderTest, CastToTheSameTypeIsTheOperand) {
  ValueId x = b.add_param(Type::f32());
  EXPECT_EQ(b.cast(Type::f32(), x), x);
  EXPECT_EQ(b.bitcast(Type::f32(), x), x);
  EXPECT_TRUE(emitted_as(b.bitcast(Type::u32(), x), Opcode::Bitcast));
  EXPECT_TRUE(contains(ir_error_of([&] { b.bitcast(Type::i64(), x); }), "bitcast"));
}

// ---- identities and canonical form -------------------------------------------------------

TEST_F(BuilderTest, IntegerIdentities) {
  ValueId x = b.add_param(Type::i32());
  ValueId zero = ci(Type::i32(), 0), one = ci(Type::i32(), 1), all = ci(Type::i32(), -1);
  EXPECT_EQ(b.binary(Opcode::Add, x, zero), x);
  EXPECT_EQ(b.binary(Opcode::Add, zero, x), x);
  EXPECT_EQ(b.binary(Opcode::Sub, x, zero), x);
  EXPECT_EQ(b.binary(Opcode::Mul, x, one), x);
  EXPECT_EQ(b.binary(Opcode::Mul, one, x), x);
  EXPECT_EQ(b.binary(Opcode::Div, x, one), x);
  EXPECT_EQ(b.binary(Opcode::Or, x, zero), x);
  EXPECT_EQ(b.binary(Opcode::Xor, x, zero), x);
  EXPECT_EQ(b.binary(Opcode::And, x, all), x);
  EXPECT_EQ(b.binary(Opcode::Shl, x, zero), x);
  EXPECT_EQ(b.binary(Opcode::Shr, x, zero), x);
  EXPECT_EQ(b.int_constant(b.binary(Opcode::Mul, x, zero)), 0);
  EXPECT_EQ(b.int_constant(b.binary(Opcode::Mul, zero, x)), 0);
  EXPECT_EQ(b.int_constant(b.binary(Opcode::And, x, zero)), 0);
  EXPECT_EQ(count_in_body(Opcode::Add) + count_in_body(Opcode::Mul) + count_in_body(Opcode::And), 0u);
  // Not identities: 0 - x and 1 / x.
  EXPECT_TRUE(emitted_as(b.binary(Opcode::Sub, zero, x), Opcode::Sub));
  EXPECT_TRUE(emitted_as(b.binary(Opcode::Div, one, x), Opcode::Div));
}

TEST_F(BuilderTest, UnsignedIdentitiesUseTheNormalizedConstant) {
  ValueId x = b.add_param(Type::u8());
  EXPECT_EQ(b.binary(Opcode::And, x, ci(Type::u8(), 0xff)), x);
  EXPECT_EQ(b.binary(Opcode::Mul, x, ci(Type::u8(), 257)), x);  // 257 is 1 in u8
}

TEST_F(BuilderTest, NoFloatIdentities) {
  // x + 0.0 is -0.0 + 0.0 = +0.0 for x = -0.0; x * 0.0 is NaN for infinite x.
  ValueId x = b.add_param(Type::f32());
  ValueId add = b.binary(Opcode::Add, x, cf(Type::f32(), 0.0));
  EXPECT_NE(add, x);
  EXPECT_TRUE(emitted_as(add, Opcode::Add));
  ValueId mul = b.binary(Opcode::Mul, x, cf(Type::f32(), 0.0));
  EXPECT_TRUE(emitted_as(mul, Opcode::Mul));
}

TEST_F(BuilderTest, CommutativeOpsPutTheConstantOnTheRight) {
  ValueId x = b.add_param(Type::i32());
  ValueId c = ci(Type::i32(), 5);
  ValueId v = b.binary(Opcode::Add, c, x);
  ASSERT_TRUE(emitted_as(v, Opcode::Add));
  EXPECT_EQ(f.def_of(v)->operands, (std::vector<ValueId>{x, c}));
  EXPECT_EQ(b.binary(Opcode::Add, x, c), v);  // the same op once canonical

  ValueId y = b.add_param(Type::f32());
  ValueId k = cf(Type::f32(), 2.0);
  ValueId m = b.binary(Opcode::Mul, k, y);
  EXPECT_EQ(f.def_of(m)->operands, (std::vector<ValueId>{y, k}));

  ValueId s = b.binary(Opcode::Sub, c, x);  // not commutative: order kept
  EXPECT_EQ(f.def_of(s)->operands, (std::vector<ValueId>{c, x}));
}

TEST_F(BuilderTest, SelectFolds) {
  ValueId c = b.add_param(Type::i1());
  ValueId x = b.add_param(Type::i32()), y = b.add_param(Type::i32());
  EXPECT_EQ(b.select(b.const_bool(true), x, y), x);
  EXPECT_EQ(b.select(b.const_bool(false), x, y), y);
  EXPECT_EQ(b.select(c, x, x), x);
  EXPECT_TRUE(emitted_as(b.select(c, x, y), Opcode::Select));
}

TEST_F(BuilderTest, PtrAddOfZeroIsThePointer) {
  ValueId p = b.add_param(Type::pointer(Type::f32()));
  EXPECT_EQ(b.ptr_add(p, ci(Type::i32(), 0)), p);
  ValueId q = b.ptr_add(p, ci(Type::u64(), 4));
  EXPECT_TRUE(emitted_as(q, Opcode::PtrAdd));
  EXPECT_EQ(f.type_of(q), Type::pointer(Type::f32()));
}

// ---- deduplication -----------------------------------------------------------------------

TEST_F(BuilderTest, DeduplicatesPureOps) {
  ValueId x = b.add_param(Type::i32()), y = b.add_param(Type::i32());
  ValueId a = b.binary(Opcode::Add, x, y);
  EXPECT_EQ(b.binary(Opcode::Add, x, y), a);
  EXPECT_EQ(count_in_body(Opcode::Add), 1u);
  EXPECT_NE(b.binary(Opcode::Sub, x, y), b.binary(Opcode::Sub, y, x));
  EXPECT_EQ(b.special(SpecialReg::ThreadIdxX), b.special(SpecialReg::ThreadIdxX));
  EXPECT_NE(b.special(SpecialReg::ThreadIdxX), b.special(SpecialReg::BlockIdxX));
  EXPECT_EQ(b.cmp(Predicate::Lt, x, y), b.cmp(Predicate::Lt, x, y));
  EXPECT_NE(b.cmp(Predicate::Lt, x, y), b.cmp(Predicate::Le, x, y));
  EXPECT_EQ(b.cast(Type::f32(), x), b.cast(Type::f32(), x));
  EXPECT_NE(b.cast(Type::f32(), x), b.cast(Type::f64(), x));
}

TEST_F(BuilderTest, DeduplicatesConstantsByTypeAndValue) {
  EXPECT_EQ(ci(Type::i32(), 5), ci(Type::i32(), 5));
  EXPECT_NE(ci(Type::i32(), 5), ci(Type::u32(), 5));
  EXPECT_NE(ci(Type::i32(), 5), ci(Type::i32(), 6));
  EXPECT_EQ(ci(Type::u8(), 1), ci(Type::u8(), 257));  // equal after truncation
  EXPECT_EQ(cf(Type::f32(), 1.5), cf(Type::f32(), 1.5));
  EXPECT_NE(cf(Type::f32(), 0.0), cf(Type::f32(), -0.0));
  EXPECT_NE(cf(Type::f32(), 1.0), cf(Type::f64(), 1.0));
  EXPECT_EQ(count_in_body(Opcode::Const), 9u);
}

TEST_F(BuilderTest, NeverMergesLoadsStoresAllocasOrBarriers) {
  ValueId p = b.add_param(Type::pointer(Type::i32()));
  ValueId v1 = b.load(p), v2 = b.load(p);
  EXPECT_NE(v1, v2);
  EXPECT_EQ(count_in_body(Opcode::Load), 2u);
  b.store(p, v1);
  b.store(p, v1);
  EXPECT_EQ(count_in_body(Opcode::Store), 2u);
  b.barrier();
  b.barrier();
  EXPECT_EQ(count_in_body(Opcode::Barrier), 2u);
  EXPECT_NE(b.local_alloc(Type::f32()), b.local_alloc(Type::f32()));
  EXPECT_EQ(count_in_body(Opcode::Alloca), 2u);
  // Effects stay in program order.
  std::vector<Opcode> ops;
  for (InstId id : f.body().body) ops.push_back(f.inst(id).op);
  EXPECT_EQ(ops, (std::vector<Opcode>{Opcode::Load, Opcode::Load, Opcode::Store, Opcode::Store, Opcode::Barrier,
                                      Opcode::Barrier, Opcode::Alloca, Opcode::Alloca}));
}

TEST_F(BuilderTest, OuterValuesAreReusedInsideRegions) {
  ValueId x = b.add_param(Type::i32()), y = b.add_param(Type::i32());
  ValueId p = b.add_param(Type::pointer(Type::i32()));
  ValueId c = b.add_param(Type::i1());
  ValueId s = b.binary(Opcode::Add, x, y);
  ValueId inner = kNone;
  b.if_(c, {}, [&](std::span<const ValueId>) -> std::vector<ValueId> {
    inner = b.binary(Opcode::Add, x, y);
    b.store(p, inner);
    return {};
  }, {});
  EXPECT_EQ(inner, s);
  const Instruction& if_inst = f.inst(f.body().body.back());
  ASSERT_EQ(if_inst.op, Opcode::If);
  ASSERT_EQ(if_inst.regions[0].body.size(), 2u);  // store, yield
  EXPECT_EQ(f.inst(if_inst.regions[0].body[0]).op, Opcode::Store);
  EXPECT_NO_THROW(verify(f));
}

TEST_F(BuilderTest, RegionValuesDoNotLeakOut) {
  ValueId x = b.add_param(Type::i32()), y = b.add_param(Type::i32());
  ValueId p = b.add_param(Type::pointer(Type::i32()));
  ValueId c = b.add_param(Type::i1());
  ValueId in_then = kNone, in_else = kNone;
  b.if_(
      c, {},
      [&](std::span<const ValueId>) -> std::vector<ValueId> {
        in_then = b.binary(Opcode::Mul, x, y);
        b.store(p, in_then);
        return {};
      },
      [&](std::span<const ValueId>) -> std::vector<ValueId> {
        in_else = b.binary(Opcode::Mul, x, y);
        b.store(p, in_else);
        return {};
      });
  EXPECT_NE(in_then, in_else);  // the then branch's value is not visible in the else branch
  ValueId after = b.binary(Opcode::Mul, x, y);
  EXPECT_NE(after, in_then);
  EXPECT_NE(after, in_else);
  b.store(p, after);
  EXPECT_NO_THROW(verify(f));
}

TEST_F(BuilderTest, LoopBodyValuesDoNotLeakOut) {
  ValueId n = b.add_param(Type::i32());
  ValueId p = b.add_param(Type::pointer(Type::i32()));
  ValueId in_body = kNone;
  b.for_(ci(Type::i32(), 0), n, ci(Type::i32(), 1), {}, [&](std::span<const ValueId>) -> std::vector<ValueId> {
    in_body = b.binary(Opcode::Mul, n, n);
    b.store(p, in_body);
    return {};
  });
  ValueId after = b.binary(Opcode::Mul, n, n);
  EXPECT_NE(after, in_body);
  b.store(p, after);
  EXPECT_NO_THROW(verify(f));
}

// ---- type errors -------------------------------------------------------------------------

TEST_F(BuilderTest, BinaryOfMixedTypesNamesOpAndTypes) {
  ValueId i = b.add_param(Type::i32()), x = b.add_param(Type::f32());
  std::string msg = ir_error_of([&] { b.binary(Opcode::Add, i, x); });
  EXPECT_TRUE(contains(msg, "add"));
  EXPECT_TRUE(contains(msg, "i32"));
  EXPECT_TRUE(contains(msg, "f32"));
  msg = ir_error_of([&] { b.binary(Opcode::Div, b.add_param(Type::u32()), i); });
  EXPECT_TRUE(contains(msg, "div"));
  EXPECT_TRUE(contains(msg, "u32"));
}

TEST_F(BuilderTest, OpOutsideItsOperandClassThrows) {
  ValueId x = b.add_param(Type::f32());
  std::string msg = ir_error_of([&] { b.binary(Opcode::Shl, x, x); });
  EXPECT_TRUE(contains(msg, "shl"));
  EXPECT_TRUE(contains(msg, "f32"));
  msg = ir_error_of([&] { b.binary(Opcode::And, x, x); });
  EXPECT_TRUE(contains(msg, "and"));
  ValueId c = b.add_param(Type::i1());
  msg = ir_error_of([&] { b.binary(Opcode::Add, c, c); });
  EXPECT_TRUE(contains(msg, "add"));
  EXPECT_TRUE(contains(msg, "i1"));
  ValueId p = b.add_param(Type::pointer(Type::f32()));
  EXPECT_TRUE(contains(ir_error_of([&] { b.binary(Opcode::Add, p, p); }), "ptr<f32, global>"));
  EXPECT_TRUE(contains(ir_error_of([&] { b.binary(Opcode::Cmp, x, x); }), "cmp"));
}

TEST_F(BuilderTest, MemoryTypeErrors) {
  ValueId p = b.add_param(Type::pointer(Type::i32()));
  ValueId x = b.add_param(Type::f32());
  std::string msg = ir_error_of([&] { b.store(p, x); });
  EXPECT_TRUE(contains(msg, "store"));
  EXPECT_TRUE(contains(msg, "f32"));
  EXPECT_TRUE(contains(msg, "ptr<i32, global>"));
  EXPECT_TRUE(contains(ir_error_of([&] { b.load(x); }), "load"));
  EXPECT_TRUE(contains(ir_error_of([&] { b.ptr_add(p, x); }), "ptr_add"));
  EXPECT_TRUE(contains(ir_error_of([&] { b.ptr_add(x, b.add_param(Type::i32())); }), "ptr_add"));
  EXPECT_EQ(f.type_of(b.load(p)), Type::i32());
  EXPECT_EQ(f.type_of(b.local_alloc(Type::f32())), Type::pointer(Type::f32(), AddressSpace::Local));
}

TEST_F(BuilderTest, CmpAndSelectTypeErrors) {
  ValueId i = b.add_param(Type::i32()), u = b.add_param(Type::u32());
  std::string msg = ir_error_of([&] { b.cmp(Predicate::Lt, i, u); });
  EXPECT_TRUE(contains(msg, "cmp"));
  EXPECT_TRUE(contains(msg, "i32"));
  EXPECT_TRUE(contains(msg, "u32"));
  EXPECT_TRUE(contains(ir_error_of([&] { b.select(i, i, i); }), "i1"));
  EXPECT_TRUE(contains(ir_error_of([&] { b.select(b.const_bool(true), i, u); }), "select"));
}

TEST_F(BuilderTest, ErrorsCarryTheUserLocation) {
  ValueId i = b.add_param(Type::i32()), x = b.add_param(Type::f32());
  b.set_location({"/home/user/src/my_kernel.cpp", 42});
  EXPECT_TRUE(contains(ir_error_of([&] { b.binary(Opcode::Sub, i, x); }), "my_kernel.cpp:42"));
}

TEST_F(BuilderTest, ParametersMustBeScalarsOrPointersAtTopLevel) {
  std::array<std::int64_t, 1> s{4};
  EXPECT_TRUE(contains(ir_error_of([&] { b.add_param(Type::tile(s, Type::f32())); }), "tile<4xf32>"));
  ValueId c = b.add_param(Type::i1());
  EXPECT_THROW(b.if_(c, {}, [&](std::span<const ValueId>) -> std::vector<ValueId> {
    b.add_param(Type::i32());
    return {};
  }, {}), IRError);
}

// ---- regions -----------------------------------------------------------------------------

TEST_F(BuilderTest, IfWithResults) {
  ValueId x = b.add_param(Type::f32());
  ValueId c = b.cmp(Predicate::Gt, x, cf(Type::f32(), 0.0));
  Type rt[] = {Type::f32(), Type::i32()};
  auto r = b.if_(
      c, rt, [&](std::span<const ValueId> args) -> std::vector<ValueId> {
        EXPECT_TRUE(args.empty());
        return {b.binary(Opcode::Mul, x, x), ci(Type::i32(), 1)};
      },
      [&](std::span<const ValueId>) -> std::vector<ValueId> { return {x, ci(Type::i32(), 0)}; });
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(f.type_of(r[0]), Type::f32());
  EXPECT_EQ(f.type_of(r[1]), Type::i32());
  const Instruction* def = f.def_of(r[0]);
  ASSERT_NE(def, nullptr);
  EXPECT_EQ(def->op, Opcode::If);
  EXPECT_EQ(def->regions.size(), 2u);
  EXPECT_EQ(f.def_of(r[1]), def);
  EXPECT_NO_THROW(verify(f));
}

TEST_F(BuilderTest, IfWithResultsNeedsAnElse) {
  ValueId c = b.add_param(Type::i1());
  Type rt[] = {Type::i32()};
  std::string msg = ir_error_of([&] {
    b.if_(c, rt, [&](std::span<const ValueId>) -> std::vector<ValueId> { return {ci(Type::i32(), 1)}; }, {});
  });
  EXPECT_TRUE(contains(msg, "else"));
  EXPECT_TRUE(contains(ir_error_of([&] { b.if_(b.add_param(Type::i32()), {}, {}, {}); }), "i1"));
}

TEST_F(BuilderTest, ForWithCarriedValues) {
  ValueId n = b.add_param(Type::i32());
  ValueId p = b.add_param(Type::pointer(Type::f32()));
  ValueId init[] = {cf(Type::f32(), 0.0), ci(Type::i32(), 0)};
  ValueId iv_seen = kNone;
  auto r = b.for_(ci(Type::i32(), 0), n, ci(Type::i32(), 1), init, [&](std::span<const ValueId> args) {
    EXPECT_EQ(args.size(), 3u);
    iv_seen = args[0];
    ValueId x = b.load(b.ptr_add(p, args[0]));
    return std::vector<ValueId>{b.binary(Opcode::Add, args[1], x), b.binary(Opcode::Add, args[2], args[0])};
  });
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(f.type_of(r[0]), Type::f32());
  EXPECT_EQ(f.type_of(r[1]), Type::i32());
  EXPECT_EQ(f.type_of(iv_seen), Type::i32());
  const Instruction* def = f.def_of(r[0]);
  ASSERT_NE(def, nullptr);
  EXPECT_EQ(def->op, Opcode::For);
  EXPECT_EQ(def->operands.size(), 5u);  // lb, ub, step, 2 inits
  EXPECT_EQ(def->regions[0].args.size(), 3u);
  b.store(p, r[0]);
  EXPECT_NO_THROW(verify(f));
}

TEST_F(BuilderTest, ForChecksBoundsAndStep) {
  ValueId n = b.add_param(Type::i32());
  ValueId m = b.add_param(Type::u32());
  EXPECT_TRUE(contains(ir_error_of([&] { b.for_(ci(Type::i32(), 0), m, ci(Type::i32(), 1), {}, {}); }), "u32"));
  EXPECT_TRUE(contains(ir_error_of([&] { b.for_(ci(Type::i32(), 0), n, ci(Type::i32(), 0), {}, {}); }), "step"));
  ValueId x = b.add_param(Type::f32());
  EXPECT_TRUE(contains(ir_error_of([&] { b.for_(x, x, x, {}, {}); }), "f32"));
}

TEST_F(BuilderTest, WhileWithCarriedValues) {
  ValueId n = b.add_param(Type::u32());
  ValueId init[] = {n, ci(Type::i32(), 0)};
  auto r = b.while_(
      init,
      [&](std::span<const ValueId> args) {
        EXPECT_EQ(args.size(), 2u);
        ValueId go = b.cmp(Predicate::Gt, args[0], ci(Type::u32(), 1));
        return std::vector<ValueId>{go, args[0], args[1]};
      },
      [&](std::span<const ValueId> args) {
        EXPECT_EQ(args.size(), 2u);
        return std::vector<ValueId>{b.binary(Opcode::Shr, args[0], ci(Type::u32(), 1)),
                                    b.binary(Opcode::Add, args[1], ci(Type::i32(), 1))};
      });
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(f.type_of(r[0]), Type::u32());
  EXPECT_EQ(f.type_of(r[1]), Type::i32());
  EXPECT_EQ(f.def_of(r[0])->op, Opcode::While);
  EXPECT_NO_THROW(verify(f));
}

TEST_F(BuilderTest, NestedRegionsVerify) {
  ValueId n = b.add_param(Type::i32());
  ValueId p = b.add_param(Type::pointer(Type::i32()));
  ValueId init[] = {ci(Type::i32(), 0)};
  auto r = b.for_(ci(Type::i32(), 0), n, ci(Type::i32(), 1), init, [&](std::span<const ValueId> a) {
    ValueId odd = b.cmp(Predicate::Ne, b.binary(Opcode::And, a[0], ci(Type::i32(), 1)), ci(Type::i32(), 0));
    Type rt[] = {Type::i32()};
    auto s = b.if_(
        odd, rt, [&](std::span<const ValueId>) { return std::vector<ValueId>{b.binary(Opcode::Add, a[1], a[0])}; },
        [&](std::span<const ValueId>) {
          ValueId w_init[] = {a[1]};
          auto w = b.while_(
              w_init,
              [&](std::span<const ValueId> c) {
                return std::vector<ValueId>{b.cmp(Predicate::Gt, c[0], ci(Type::i32(), 100)), c[0]};
              },
              [&](std::span<const ValueId> c) {
                return std::vector<ValueId>{b.binary(Opcode::Sub, c[0], ci(Type::i32(), 100))};
              });
          return std::vector<ValueId>{w[0]};
        });
    return std::vector<ValueId>{s[0]};
  });
  b.store(p, r[0]);
  EXPECT_NO_THROW(verify(f));
}

TEST_F(BuilderTest, IfBranchYieldMismatchThrows) {
  ValueId c = b.add_param(Type::i1());
  Type rt[] = {Type::i32()};
  std::string msg = ir_error_of([&] {
    b.if_(
        c, rt, [&](std::span<const ValueId>) { return std::vector<ValueId>{cf(Type::f32(), 1.0)}; },
        [&](std::span<const ValueId>) { return std::vector<ValueId>{ci(Type::i32(), 0)}; });
  });
  EXPECT_TRUE(contains(msg, "then"));
  EXPECT_TRUE(contains(msg, "f32"));
  EXPECT_TRUE(contains(msg, "i32"));
  msg = ir_error_of([&] {
    b.if_(
        c, rt, [&](std::span<const ValueId>) { return std::vector<ValueId>{ci(Type::i32(), 0)}; },
        [&](std::span<const ValueId>) { return std::vector<ValueId>{}; });
  });
  EXPECT_TRUE(contains(msg, "else"));
}

TEST_F(BuilderTest, LoopYieldMismatchThrows) {
  ValueId n = b.add_param(Type::i32());
  ValueId init[] = {ci(Type::i32(), 0)};
  std::string msg = ir_error_of([&] {
    b.for_(ci(Type::i32(), 0), n, ci(Type::i32(), 1), init,
           [&](std::span<const ValueId>) { return std::vector<ValueId>{cf(Type::f32(), 0.0)}; });
  });
  EXPECT_TRUE(contains(msg, "for"));
  EXPECT_TRUE(contains(msg, "f32"));
  msg = ir_error_of([&] {
    b.while_(
        init, [&](std::span<const ValueId> a) { return std::vector<ValueId>{b.const_bool(true), a[0]}; },
        [&](std::span<const ValueId>) { return std::vector<ValueId>{ci(Type::i64(), 0)}; });
  });
  EXPECT_TRUE(contains(msg, "while"));
  EXPECT_TRUE(contains(msg, "i64"));
  msg = ir_error_of([&] {
    b.while_(
        init, [&](std::span<const ValueId> a) { return std::vector<ValueId>{a[0]}; },
        [&](std::span<const ValueId> a) { return std::vector<ValueId>{a[0]}; });
  });
  EXPECT_TRUE(contains(msg, "i1"));
}

TEST_F(BuilderTest, BuilderRecoversAfterAnErrorInsideARegion) {
  ValueId n = b.add_param(Type::i32());
  ValueId p = b.add_param(Type::pointer(Type::i32()));
  EXPECT_THROW(b.for_(ci(Type::i32(), 0), n, ci(Type::i32(), 1), {},
                      [&](std::span<const ValueId> a) -> std::vector<ValueId> {
                        b.binary(Opcode::Add, a[0], cf(Type::f32(), 1.0));  // throws
                        return {};
                      }),
               IRError);
  Type rt[] = {Type::i32()};
  EXPECT_THROW(b.if_(b.add_param(Type::i1()), rt,
                     [&](std::span<const ValueId>) { return std::vector<ValueId>{}; },
                     [&](std::span<const ValueId>) { return std::vector<ValueId>{}; }),
               IRError);
  // Building continues at the top level.
  ValueId v = b.binary(Opcode::Mul, n, n);
  b.store(p, v);
  const auto& top = f.body().body;
  EXPECT_NE(std::find(top.begin(), top.end(), f.value(v).def), top.end());
  EXPECT_EQ(f.inst(f.body().body.back()).op, Opcode::Store);
  EXPECT_NO_THROW(verify(f));
}

}  // namespace
}  // namespace cutlet::ir
