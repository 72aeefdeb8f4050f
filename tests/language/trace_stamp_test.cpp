// Values are stamped with the trace that made them: a Value, pointer or tile kept past its
// trace (a function-local static, a saved handle, a kernel's value captured by a device
// function) is refused with a TraceError instead of silently naming another trace's value.
#include <gtest/gtest.h>

#include <optional>

#include <cutlet/cutlet.h>

#include "kernel_test_support.h"

using namespace cutlet;
using cutlet::test::message_of;

namespace {

/// A helper that keeps a traced constant in a function-local static: made by the first kernel
/// that calls it, it means nothing in the next one.
f32 half_of(f32 x) {
  static const f32 k = 0.5f;
  return x * k;
}

TEST(TraceStamp, AStaticValueInAHelperIsRefusedInTheSecondKernel) {
  auto first = kernel([](Ptr<float> y) { y[0] = half_of(y[1]); }, {.name = "first"});
  auto second = kernel([](Ptr<float> y, f32 a) { y[0] = half_of(a); }, {.name = "second"});
  EXPECT_NO_THROW(first.trace_ir());
  const std::string msg = message_of([&] { second.trace_ir(); });
  EXPECT_NE(msg.find("outside the trace that made it"), std::string::npos) << msg;
  EXPECT_NE(msg.find("constexpr float k"), std::string::npos) << msg;
}

TEST(TraceStamp, AValueSavedFromOneTraceIsRefusedInAnother) {
  std::optional<f32> saved;
  auto keep = kernel([&](Ptr<float> y) { saved = y[0] + 1.0f; }, {.name = "keep"});
  keep.trace_ir();
  ASSERT_TRUE(saved.has_value());
  auto use = kernel([&](Ptr<float> y) { y[0] = *saved; }, {.name = "use"});
  EXPECT_THROW(use.trace_ir(), TraceError);
  // Tracing the same kernel again makes a new trace too.
  auto again = kernel([&](Ptr<float> y) { y[1] = y[0] * 2.0f; }, {.name = "again"});
  EXPECT_NO_THROW(again.trace_ir());
}

TEST(TraceStamp, PointersAndTilesAreStampedToo) {
  std::optional<Ptr<float>> ptr;
  auto keep = kernel([&](Ptr<float> y) { ptr = y; }, {.name = "keep_ptr"});
  keep.trace_ir();
  auto use = kernel([&](Ptr<float> y) { (*ptr)[0] = y[0]; }, {.name = "use_ptr"});
  EXPECT_THROW(use.trace_ir(), TraceError);

  std::optional<Tile<std::int32_t>> tile;
  auto keep_tile = tile_kernel([&](Tensor<std::int32_t, 1> out) {
    tile = arange(32);
    store(out, {*tile}, *tile);
  }, {.name = "keep_tile"});
  keep_tile.trace_ir();
  auto use_tile = tile_kernel([&](Tensor<std::int32_t, 1> out) { store(out, {arange(32)}, *tile + 1); },
                              {.name = "use_tile"});
  EXPECT_THROW(use_tile.trace_ir(), TraceError);
}

TEST(TraceStamp, AKernelValueCapturedByADeviceFunctionIsRefused) {
  auto k = kernel(
      [](Ptr<float> y, f32 a) {
        auto scale = device_function([&](f32 x) { return x * a; }, "scale_by_captured");
        y[0] = scale(y[1]);
      },
      {.name = "captures"});
  const std::string msg = message_of([&] { k.trace_ir(); });
  EXPECT_NE(msg.find("outside the trace that made it"), std::string::npos) << msg;
  EXPECT_NE(msg.find("as arguments"), std::string::npos) << msg;
}

}  // namespace
