// Tests of upcast_fp8_dots: an FP8 dot that FP8 wgmma can run (sm_90a, both operands K-major,
// K a multiple of 32) stays as it is; every other FP8 dot reads its operands cast to f16.
#include <gtest/gtest.h>

#include <array>

#include "cutlet/ir/builder.h"
#include "cutlet/ir/passes/passes.h"
#include "cutlet/ir/printer.h"
#include "cutlet/ir/verifier.h"
#include "golden_support.h"

namespace cutlet::ir {
namespace {

/// Three FP8 dots on 4 warps, stored: e4m3 a [64, 32] with e5m2 b given transposed ([64, 32],
/// K-major), the same a with an e4m3 b [32, 64] as given (MN-major), and a K-major pair with
/// K = 16 (no multiple of 32).
Function fp8_dots(bool wgmma) {
  Function f("fp8_dots");
  f.set_tile_warps(4);
  f.set_tile_wgmma(wgmma);
  Builder b(f);
  ValueId out = b.add_param(Type::pointer(Type::f32()));
  ValueId x = b.add_param(Type::f8e4m3());
  ValueId y = b.add_param(Type::f8e5m2());
  const std::array<std::int64_t, 2> mk{64, 32}, nk{64, 32}, kn{32, 64}, mn{64, 64}, mk16{64, 16};
  ValueId zero = b.tile_splat(b.const_float(Type::f32(), 0), mn);
  ValueId a = b.tile_splat(x, mk);
  const std::array<int, 2> swap{1, 0};
  ValueId k_major = b.tile_dot(a, b.tile_permute(b.tile_splat(y, nk), swap), zero);
  ValueId mn_major = b.tile_dot(a, b.tile_splat(x, kn), k_major);
  ValueId odd_k = b.tile_dot(b.tile_splat(x, mk16), b.tile_permute(b.tile_splat(x, mk16), swap), mn_major);
  b.tile_store(out, b.tile_splat(b.const_int(Type::i32(), 0), mn), odd_k);
  return f;
}

/// How many dots read f16 operands, and how many FP8 ones.
std::array<int, 2> dots_by_operand_type(const Function& f) {
  std::array<int, 2> n{0, 0};
  for (InstId id : f.body().body) {
    const Instruction& inst = f.inst(id);
    if (inst.op != Opcode::TileDot) continue;
    const Type a = f.type_of(inst.operands[0]).element(), bt = f.type_of(inst.operands[1]).element();
    if (a == Type::f16() && bt == Type::f16()) ++n[0];
    if (a.is_fp8() && bt.is_fp8()) ++n[1];
  }
  return n;
}

TEST(UpcastFp8DotsTest, OnWgmmaOnlyKMajorDotsWithKAMultipleOf32StayFp8) {
  Function f = dead_code_elimination(upcast_fp8_dots(fold_dot_transposes(fp8_dots(true))));
  EXPECT_NO_THROW(verify(f));
  EXPECT_EQ(dots_by_operand_type(f), (std::array<int, 2>{2, 1}));
  expect_golden("upcast_fp8_dots.ir", print(f));
}

TEST(UpcastFp8DotsTest, WithoutWgmmaEveryFp8DotIsAnF16Dot) {
  Function f = upcast_fp8_dots(fold_dot_transposes(fp8_dots(false)));
  EXPECT_NO_THROW(verify(f));
  EXPECT_EQ(dots_by_operand_type(f), (std::array<int, 2>{3, 0}));
}

TEST(UpcastFp8DotsTest, RunningItAgainChangesNothing) {
  const Function once = upcast_fp8_dots(fold_dot_transposes(fp8_dots(true)));
  EXPECT_EQ(print(upcast_fp8_dots(Function(once))), print(once));
}

TEST(UpcastFp8DotsTest, Fp8MixesOnlyWithFp8) {
  Function f("mixed");
  f.set_tile_warps(4);
  Builder b(f);
  ValueId x = b.add_param(Type::f8e4m3());
  ValueId h = b.add_param(Type::f16());
  const std::array<std::int64_t, 2> s{32, 32};
  ValueId zero = b.tile_splat(b.const_float(Type::f32(), 0), s);
  try {
    b.tile_dot(b.tile_splat(x, s), b.tile_splat(h, s), zero);
    FAIL() << "an FP8 by f16 dot was accepted";
  } catch (const IRError& e) {
    EXPECT_NE(std::string(e.what()).find("one element type (or FP8 of either format)"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace cutlet::ir
