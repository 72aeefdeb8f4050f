// Trace-time errors of the kernel language that the C++ type system cannot catch: host
// constants that do not fit their type, grid axes out of range, oversized per-thread arrays
// and Vec lanes out of range; and the IR builder's refusals of ops a type does not have
// (atomics, warp match, math functions). Each names the user's line of the offending call,
// not a line in cutlet's headers nor an earlier op's line.
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

/// The trace error of a kernel `body` with any parameters.
template <class F>
std::string error_of_kernel_with_params(F body) {
  auto k = kernel(body, {.name = "trace_error_params"});
  return message_of([&] { (void)k.trace_ir(); });
}

/// Expects `msg` to be an error text (TraceError or IRError) containing every one of `parts` and naming this
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

// IRErrors of the builder name the line of the op that caused them, not the line of the
// control flow (or other op) that last set a location.

TEST(TraceErrors, AnAtomicAddOnAnI16NamesItsLineNotTheIfBeforeIt) {
  int line = 0;
  const std::string msg = error_of_kernel_with_params([&](Ptr<std::int16_t> h, i32 n) {
    i32 i = thread_idx().x;
    if_(i < n, [&] { h[i] = h[i] + 1; });
    h[1] = h[1] * 2;
    line = __LINE__; (void)atomic_add(h[0], 1);
  });
  expect_error_at(msg, {"atomic add", "i16"}, line);
}

TEST(TraceErrors, AnAtomicMinOnAFloatNamesItsLine) {
  int line = 0;
  const std::string msg = error_of_kernel([&](Ptr<float> y) {
    for_range(4, [&](i32 j) { y[j] = 0.0f; });
    line = __LINE__; (void)atomic_min(y[0], 1.0f);
  });
  expect_error_at(msg, {"atomic min", "f32"}, line);
}

TEST(TraceErrors, AReleaseAtomicLoadAndOneOfAnI16NameTheirLines) {
  int line = 0;
  std::string msg = error_of_kernel([&](Ptr<float> y) {
    line = __LINE__; y[1] = atomic_load(y[0], Scope::Device, Order::Release);
  });
  expect_error_at(msg, {"atomic load is relaxed or acquire, not release"}, line);
  msg = error_of_kernel_with_params([&](Ptr<std::int16_t> h, i32) {
    line = __LINE__; h[1] = atomic_load(h[0]);
  });
  expect_error_at(msg, {"atomic load is not available for i16"}, line);
}

TEST(TraceErrors, AnAtomicOnALocalArrayNamesItsLine) {
  int line = 0;
  const std::string msg = error_of_kernel([&](Ptr<float> y) {
    auto a = local_array<int>(4);
    if_(thread_idx().x == 0, [&] { a[0] = 1; });
    line = __LINE__; y[0] = cast<float>(atomic_add(a[0], 1));
  });
  expect_error_at(msg, {"atomic add", "global or shared pointer"}, line);
}

TEST(TraceErrors, AMatchOfA16BitValueNamesItsLine) {
  int line = 0;
  const std::string msg = error_of_kernel([&](Ptr<float> y) {
    Value<std::int16_t> v = cast<std::int16_t>(thread_idx().x);
    if_(v > 3, [&] { y[0] = 1.0f; });
    line = __LINE__; y[1] = cast<float>(match_any_sync(full_mask, v));
  });
  expect_error_at(msg, {"match", "32- or 64-bit", "i16"}, line);
}

TEST(TraceErrors, AMathFunctionOfATypeItLacksNamesItsLine) {
  int line = 0;
  const std::string msg = error_of_kernel([&](Ptr<float> y) {
    i32 i = thread_idx().x;
    if_(i < 8, [&] { y[i] = 0.0f; });
    line = __LINE__; y[0] = cast<float>(sqrt(i));
  });
  expect_error_at(msg, {"sqrt", "i32"}, line);
}

TEST(TraceErrors, APopcOfAFloatNamesItsLine) {
  int line = 0;
  const std::string msg = error_of_kernel([&](Ptr<float> y) {
    f32 x = y[0];
    while_([&] { return x > 1.0f; }, [&] { y[0] = 0.0f; });
    line = __LINE__; y[1] = cast<float>(popc(x));
  });
  expect_error_at(msg, {"popc", "f32"}, line);
}

}  // namespace
