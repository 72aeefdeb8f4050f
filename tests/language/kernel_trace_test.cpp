// Tracing kernels written as lambdas into IR: golden IR text, specialization by argument
// types, and trace-time errors.
#include <gtest/gtest.h>

#include <cutlet/cutlet.h>

#include "cutlet/ir/structural_hash.h"
#include "golden_support.h"
#include "kernel_test_support.h"

using namespace cutlet;
using cutlet::test::message_of;

namespace {

std::string ir_of(const ir::Function& f) { return ir::print(f); }

TEST(KernelTrace, SaxpyGolden) {
  auto saxpy = kernel(
      [](f32 a, Ptr<float> x, Ptr<float> y, i32 n) {
        i32 i = block_idx().x * block_dim().x + thread_idx().x;
        if_(i < n, [&] { y[i] = a * x[i] + y[i]; });
      },
      {.name = "saxpy"});
  expect_golden("dsl_saxpy.ir", ir_of(saxpy.trace_ir()));
}

TEST(KernelTrace, LoopsBranchesAndVariablesGolden) {
  // A per-thread sum over a data-dependent range, a while loop and an if/else with a value.
  auto k = kernel(
      [](Ptr<int> out, Ptr<int> lengths, i32 n) {
        i32 i = block_idx().x * block_dim().x + thread_idx().x;
        if_(i < n, [&] {
          Var<int> sum = 0;
          for_range(lengths[i], [&](i32 j) { sum += j * 3; });
          Var<int> steps = 0;
          Var<int> v = sum.get() + 1;
          while_([&] { return v > 1; }, [&] {
            v = select((v & 1) == 0, v / 2, 3 * v + 1);
            ++steps;
          });
          i32 sign = if_(sum.get() > 100, [&] { return i32(1); }, [&] { return i32(-1); });
          out[i] = steps * sign;
        });
      },
      {.name = "loops"});
  expect_golden("dsl_loops.ir", ir_of(k.trace_ir()));
}

TEST(KernelTrace, HostControlFlowUnrollsAtTraceTime) {
  auto k = kernel(
      [](Ptr<float> y) {
        f32 acc = 0.0f;
        for (int j = 0; j < 4; ++j) acc = acc + y[j];  // plain C++: unrolled while tracing
        y[0] = acc;
      },
      {.name = "unrolled"});
  std::string text = ir_of(k.trace_ir());
  EXPECT_EQ(text.find("for"), std::string::npos) << text;
  expect_golden("dsl_unrolled.ir", text);
}

TEST(KernelTrace, GenericLambdaSpecializesOnArgumentTypes) {
  auto scale = kernel([](auto x, auto s, i32 n) {
    i32 i = thread_idx().x;
    if_(i < n, [&] { x[i] = x[i] * s; });
  }, {.name = "scale"});
  auto f = ir_of(scale.trace_ir<Buffer<float>, float, int>());
  auto d = ir_of(scale.trace_ir<Buffer<double>, double, int>());
  EXPECT_NE(f.find("ptr<f32, global>"), std::string::npos) << f;
  EXPECT_NE(d.find("ptr<f64, global>"), std::string::npos) << d;
  EXPECT_NE(d.find("mul %"), std::string::npos);
  EXPECT_NE(ir::structural_hash(scale.trace_ir<Buffer<float>, float, int>()),
            ir::structural_hash(scale.trace_ir<Buffer<double>, double, int>()));
}

TEST(KernelTrace, TracingIsDeterministic) {
  auto k = kernel([](Ptr<int> a, i32 n) {
    for_range(0, n, 2, [&](i32 j) { a[j] = a[j] ^ (j << 1); });
  });
  EXPECT_EQ(ir_of(k.trace_ir()), ir_of(k.trace_ir()));
  EXPECT_EQ(ir::structural_hash(k.trace_ir()), ir::structural_hash(k.trace_ir()));
}

TEST(KernelTrace, PromotionFollowsDocumentedRules) {
  auto k = kernel([](Ptr<double> out, i32 a, i64 b, f32 c) {
    i64 s = a + b;        // i32 + i64 -> i64
    f32 t = a * c;        // i32 * f32 -> f32
    f64 u = c + 1.5;      // f32 + host double -> f32, then widened on store below
    out[0] = cast<double>(s) + t + u;
  }, {.name = "promote"});
  std::string text = ir_of(k.trace_ir());
  EXPECT_NE(text.find("cast %1 : i64"), std::string::npos) << text;
  EXPECT_NE(text.find("cast %1 : f32"), std::string::npos) << text;
  EXPECT_NE(text.find("const 1.5 : f32"), std::string::npos) << text;
}

TEST(KernelTrace, ConstantsFoldWhileTracing) {
  auto k = kernel([](Ptr<int> out) {
    i32 a = 6;
    out[0] = a * 7 + (1 << 4);  // folds to 58
  }, {.name = "folded"});
  std::string text = ir_of(k.trace_ir());
  EXPECT_NE(text.find("const 58 : i32"), std::string::npos) << text;
  EXPECT_EQ(text.find("mul"), std::string::npos) << text;
}

TEST(KernelTrace, AssigningAValueInsideABranchIsAnError) {
  auto k = kernel([](Ptr<float> y, i32 n) {
    f32 v = 0.0f;
    if_(n > 0, [&] { v = 1.0f; });  // would apply unconditionally: must be a Var
    y[0] = v;
  });
  std::string msg = message_of([&] { k.trace_ir(); });
  EXPECT_NE(msg.find("cutlet::Var"), std::string::npos) << msg;
  EXPECT_NE(msg.find("kernel_trace_test.cpp"), std::string::npos) << msg;
}

TEST(KernelTrace, ConstantThatDoesNotFitIsAnError) {
  auto k = kernel([](Ptr<std::int8_t> y) { y[0] = y[0] + 1000; });
  std::string msg = message_of([&] { k.trace_ir(); });
  EXPECT_NE(msg.find("1000"), std::string::npos) << msg;
  EXPECT_NE(msg.find("i8"), std::string::npos) << msg;
}

TEST(KernelTrace, ZeroStepLoopIsAnError) {
  auto k = kernel([](Ptr<int> y, i32 n) { for_range(0, n, 0, [&](i32 j) { y[j] = 1; }); });
  std::string msg = message_of([&] { k.trace_ir(); });
  EXPECT_NE(msg.find("step of 0"), std::string::npos) << msg;
  EXPECT_NE(msg.find("kernel_trace_test.cpp"), std::string::npos) << msg;
}

TEST(KernelTrace, ValuesOutsideATraceAreAnError) {
  std::string msg = message_of([] { f32 x = 1.0f; (void)x; });
  EXPECT_NE(msg.find("inside a kernel"), std::string::npos) << msg;
}

TEST(KernelTrace, KernelNamesComeFromTheDefinitionSite) {
  auto k = kernel([](Ptr<int> y) { y[0] = 1; });
  EXPECT_EQ(k.name().rfind("kernel_trace_test_cpp_L", 0), 0u) << k.name();
  EXPECT_EQ(k.trace_ir().name(), k.name());
}

TEST(KernelTrace, TwoDimensionalIndexing) {
  auto k = kernel([](Ptr<float> out, i32 width, i32 height) {
    i32 col = block_idx().x * block_dim().x + thread_idx().x;
    i32 row = block_idx().y * block_dim().y + thread_idx().y;
    if_((col < width) & (row < height), [&] { out[row * width + col] = cast<float>(row - col); });
  }, {.name = "grid2d"});
  std::string text = ir_of(k.trace_ir());
  EXPECT_NE(text.find("special ctaid.y"), std::string::npos) << text;
  EXPECT_NE(text.find("special tid.y"), std::string::npos) << text;
  EXPECT_EQ(text.find("tid.z"), std::string::npos) << "unused index registers are removed\n" << text;
}

}  // namespace
