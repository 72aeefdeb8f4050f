// Tests of the IR printer: golden text of structured control flow, determinism, renumbering.
#include "cutlet/ir/printer.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cutlet/ir/builder.h"
#include "cutlet/ir/passes/passes.h"
#include "golden_support.h"

namespace cutlet::ir {
namespace {

using Args = std::span<const ValueId>;
using Values = std::vector<ValueId>;

/// A kernel with an if/else that has a result, a for loop carrying two values and a while
/// loop. With `dead_code`, unused ops are sprinkled in (for the DCE renumbering test).
Function control_flow_kernel(bool dead_code = false) {
  Function f("control_flow");
  Builder b(f);
  ValueId n = b.add_param(Type::i32());
  ValueId out = b.add_param(Type::pointer(Type::f32()));
  ValueId tid = b.special(SpecialReg::ThreadIdxX);
  if (dead_code) b.binary(Opcode::Mul, n, n);
  ValueId in_range = b.cmp(Predicate::Lt, tid, n);
  Type f32_result[] = {Type::f32()};
  auto start = b.if_(
      in_range, f32_result,
      [&](Args) {
        if (dead_code) b.load(out);
        return Values{b.cast(Type::f32(), tid)};
      },
      [&](Args) { return Values{b.const_float(Type::f32(), 0.0)}; });
  ValueId zero = b.const_int(Type::i32(), 0);
  ValueId one = b.const_int(Type::i32(), 1);
  ValueId init[] = {start[0], zero};
  auto loop = b.for_(zero, n, one, init, [&](Args a) {
    if (dead_code) b.binary(Opcode::Sub, a[2], a[0]);
    return Values{b.binary(Opcode::Add, a[1], b.const_float(Type::f32(), 1.5)), b.binary(Opcode::Add, a[2], a[0])};
  });
  ValueId w_init[] = {loop[1]};
  auto halved = b.while_(
      w_init,
      [&](Args a) { return Values{b.cmp(Predicate::Gt, a[0], zero), a[0]}; },
      [&](Args a) { return Values{b.binary(Opcode::Shr, a[0], one)}; });
  ValueId sum = b.binary(Opcode::Add, loop[0], b.cast(Type::f32(), halved[0]));
  if (dead_code) b.cast(Type::f64(), sum);
  b.store(b.ptr_add(out, tid), sum);
  return f;
}

TEST(PrinterTest, GoldenIfForWhile) { expect_golden("printer_if_for_while.ir", print(control_flow_kernel())); }

TEST(PrinterTest, PrintingIsDeterministic) {
  Function f = control_flow_kernel();
  EXPECT_EQ(print(f), print(f));
  EXPECT_EQ(print(control_flow_kernel()), print(control_flow_kernel()));
}

TEST(PrinterTest, ValuesAreRenumberedAfterDeadCodeElimination) {
  std::string clean = print(control_flow_kernel());
  Function with_dead = control_flow_kernel(/*dead_code=*/true);
  EXPECT_NE(print(with_dead), clean);
  EXPECT_EQ(print(dead_code_elimination(std::move(with_dead))), clean);
}

TEST(PrinterTest, HeaderAndSimpleOps) {
  Function f("simple");
  Builder b(f);
  ValueId x = b.add_param(Type::f32());
  ValueId p = b.add_param(Type::pointer(Type::f32(), AddressSpace::Shared));
  b.store(p, b.binary(Opcode::Mul, x, b.const_float(Type::f32(), 2.0)));
  b.barrier();
  EXPECT_EQ(print(f),
            "kernel @simple(%0: f32, %1: ptr<f32, shared>) {\n"
            "  %2 = const 2.0 : f32\n"
            "  %3 = mul %0, %2 : f32\n"
            "  store %1, %3\n"
            "  barrier\n"
            "}\n");
}

TEST(PrinterTest, AttributesArePrintedByName) {
  Function f("attrs");
  Builder b(f);
  ValueId x = b.add_param(Type::i32());
  ValueId p = b.add_param(Type::pointer(Type::i1()));
  ValueId c = b.cmp(Predicate::Ge, x, b.special(SpecialReg::BlockIdxY));
  b.store(p, c);
  std::string text = print(f);
  EXPECT_NE(text.find("special ctaid.y : i32"), std::string::npos) << text;
  EXPECT_NE(text.find("cmp ge %0, "), std::string::npos) << text;
}

TEST(PrinterTest, FloatConstantsNeverReadAsIntegers) {
  Function f("floats");
  Builder b(f);
  ValueId p = b.add_param(Type::pointer(Type::f64()));
  b.store(p, b.const_float(Type::f64(), 3.0));
  b.store(p, b.const_float(Type::f64(), 0.1));
  b.store(p, b.const_float(Type::f64(), -0.0));
  std::string text = print(f);
  EXPECT_NE(text.find("const 3.0 : f64"), std::string::npos) << text;
  EXPECT_NE(text.find("const 0.10000000000000001 : f64"), std::string::npos) << text;
  EXPECT_NE(text.find("const -0.0 : f64"), std::string::npos) << text;
}

TEST(PrinterTest, LocationsArePrintedOnlyWhenAsked) {
  Function f("located");
  Builder b(f);
  ValueId p = b.add_param(Type::pointer(Type::i32()));
  b.set_location({"/home/me/project/src/kernel.cpp", 12});
  b.store(p, b.const_int(Type::i32(), 5));
  std::string plain = print(f);
  std::string located = print(f, /*with_locations=*/true);
  EXPECT_EQ(plain.find("kernel.cpp"), std::string::npos) << plain;
  EXPECT_NE(located.find("store %0, %1  // kernel.cpp:12\n"), std::string::npos) << located;
  EXPECT_EQ(located.find("/home/me"), std::string::npos) << located;
}

}  // namespace
}  // namespace cutlet::ir
