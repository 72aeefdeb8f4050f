// Trace-time errors of the kernel language that the C++ type system cannot catch: host
// constants that do not fit their type, grid axes out of range, oversized per-thread arrays
// and Vec lanes out of range. Each names the user's line, not a line in cutlet's headers.
#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <vector>

#include <cutlet/cutlet.h>

#include "kernel_test_support.h"

using namespace cutlet;
using cutlet::test::message_of;

namespace {

/// The trace error of a kernel whose body is `body(y)` for a float pointer `y`.
template <class F>
std::string error_of_kernel(F body) {
  auto k = kernel([&](Ptr<float> y) { body(y); }, {.name = "trace_error"});
  return message_of([&] { (void)k.trace_ir(); });
}

/// The trace error of a tile kernel whose body is `body(y)` for a 1-D float tensor `y`.
template <class F>
std::string error_of_tile_kernel(F body) {
  auto k = tile_kernel([&](Tensor<float, 1> y) { body(y); }, {.name = "tile_trace_error"});
  return message_of([&] { (void)k.trace_ir(); });
}

/// Expects `msg` to be a TraceError text containing every one of `parts` and naming this
/// file's `line`, and no line of cutlet's own headers or sources.
void expect_error_at(const std::string& msg, const std::vector<std::string>& parts, int line) {
  for (const std::string& p : parts) EXPECT_NE(msg.find(p), std::string::npos) << "missing '" << p << "': " << msg;
  EXPECT_NE(msg.find("trace_errors_test.cpp:" + std::to_string(line) + ")"), std::string::npos) << line << ": " << msg;
  EXPECT_EQ(msg.find(".h:"), std::string::npos) << msg;
  EXPECT_EQ(msg.find("tile.cpp:"), std::string::npos) << msg;
}

TEST(TraceErrors, AnIntegerConstantAboveItsTypeNamesValueTypeAndLine) {
  int line = 0;
  const std::string msg = error_of_kernel([&](Ptr<float>) { line = __LINE__; i8 x = 300; (void)x; });
  expect_error_at(msg, {"300", "i8"}, line);
}

TEST(TraceErrors, ANegativeConstantForAnUnsignedTypeNamesValueTypeAndLine) {
  int line = 0;
  const std::string msg = error_of_kernel([&](Ptr<float>) { line = __LINE__; u32 y = -1; (void)y; });
  expect_error_at(msg, {"-1", "u32"}, line);
}

TEST(TraceErrors, AConstantOperandThatDoesNotFitNamesTheLine) {
  int line = 0;
  const std::string msg = error_of_kernel([&](Ptr<float> y) {
    i8 x = 1;
    line = __LINE__; y[0] = cast<float>(x + 1000);
  });
  expect_error_at(msg, {"1000", "i8"}, line);
}

TEST(TraceErrors, AFloatConstantOverflowingToInfinityNamesValueTypeAndLine) {
  int line = 0;
  const std::string msg = error_of_kernel([&](Ptr<float>) { line = __LINE__; f32 z = 1e300; (void)z; });
  expect_error_at(msg, {"1e+300", "f32", "infinity"}, line);
}

TEST(TraceErrors, AHalfConstantOverflowingToInfinityIsRefused) {
  int line = 0;
  const std::string msg = error_of_kernel([&](Ptr<float>) { line = __LINE__; Value<half> h = 70000.0; (void)h; });
  expect_error_at(msg, {"70000", "f16"}, line);
}

TEST(TraceErrors, AFloatCastToAnIntegerTypeTooNarrowIsRefused) {
  int line = 0;
  const std::string msg = error_of_kernel([&](Ptr<float>) { line = __LINE__; (void)cast<std::int8_t>(128.0); });
  expect_error_at(msg, {"128", "i8"}, line);
}

TEST(TraceErrors, ConstantsAtTheEdgesOfTheirTypesTrace) {
  auto k = kernel(
      [](Ptr<float> y) {
        i8 lo = -128;
        u32 hi = 4294967295u;
        f32 big = 3.4e38;
        Value<half> h = 65504.0;
        f32 inf = std::numeric_limits<double>::infinity();
        i32 c = cast<std::int8_t>(127.9);
        y[0] = cast<float>(lo) + cast<float>(hi) + big + cast<float>(h) + inf + cast<float>(c);
      },
      {.name = "edges"});
  EXPECT_NO_THROW((void)k.trace_ir());
}

TEST(TraceErrors, ProgramIdOfAnAxisAboveTwoNamesTheValidAxesAndLine) {
  int line = 0;
  const std::string msg =
      error_of_tile_kernel([&](Tensor<float, 1>) { line = __LINE__; auto p = program_id(3); (void)p; });
  expect_error_at(msg, {"program_id(3)", "0, 1 or 2"}, line);
}

TEST(TraceErrors, NumProgramsOfANegativeAxisNamesTheValidAxesAndLine) {
  int line = 0;
  const std::string msg =
      error_of_tile_kernel([&](Tensor<float, 1>) { line = __LINE__; auto n = num_programs(-1); (void)n; });
  expect_error_at(msg, {"num_programs(-1)", "0, 1 or 2"}, line);
}

TEST(TraceErrors, AHugeLocalArrayIsRefusedWithTheLimitAndWhatToUse) {
  int line = 0;
  const std::string msg = error_of_kernel([&](Ptr<float>) {
    line = __LINE__; auto a = local_array<float>(std::int64_t{64} * 1024 * 1024);
    (void)a;
  });
  expect_error_at(msg, {"67108864", "268435456 bytes", "512 KiB", "shared_array", "global memory"}, line);
}

TEST(TraceErrors, ALocalArrayAtTheLimitTraces) {
  auto k = kernel(
      [](Ptr<float> y) {
        auto a = local_array<float>(128 * 1024);
        a[0] = y[0];
        y[1] = a[0];
      },
      {.name = "local_limit"});
  EXPECT_NO_THROW((void)k.trace_ir());
}

TEST(TraceErrors, AVecLaneOutOfRangeNamesTheLine) {
  int line = 0;
  const std::string msg = error_of_kernel([&](Ptr<float> y) {
    f32x4 v = f32x4::splat(y[0]);
    line = __LINE__; y[1] = v[4];
  });
  expect_error_at(msg, {"lane 4", "4-lane", "0..3"}, line);
}

TEST(TraceErrors, AVecWithANegativeLaneNamesTheLine) {
  int line = 0;
  const std::string msg = error_of_kernel([&](Ptr<float> y) {
    f32x4 v = f32x4::splat(y[0]);
    line = __LINE__; v = v.with(-1, 2.0f);
  });
  expect_error_at(msg, {"lane -1", "4-lane"}, line);
}

}  // namespace
