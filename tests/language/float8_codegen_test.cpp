// The PTX of FP8 conversions: pairs of lanes per cvt where a tile holds pairs, one lane per
// cvt in SIMT code, the satfinite rounding to FP8, and a refusal for targets without them.
#include <gtest/gtest.h>

#include <cutlet/cutlet.h>

#include "filecheck_support.h"
#include "kernel_test_support.h"

using namespace cutlet;

namespace {

TEST(Float8Codegen, ScalarConversionsBothWaysAndBothFormats) {
  auto k = kernel([](Ptr<float8_e4m3> q, Ptr<float8_e5m2> r, Ptr<float> f, Ptr<half> h, Ptr<bfloat16> b, Ptr<int> n) {
    i32 i = thread_idx().x;
    q[i] = cast<float8_e4m3>(Value<float>(f[i]));
    r[i] = cast<float8_e5m2>(Value<half>(h[i]));
    Value<float8_e4m3> x = q[i + 1];
    f[i] = cast<float>(x);
    b[i] = cast<bfloat16>(Value<float8_e5m2>(r[i + 1]));
    n[i] = cast<int>(x);
    r[i + 2] = cast<float8_e5m2>(x);
    q[i + 2] = cast<float8_e4m3>(Value<bfloat16>(b[i + 3]));
  }, {.name = "fp8_scalar"});
  expect_filecheck(k.compile<>()->ptx, R"(
CHECK: .visible .entry fp8_scalar(
CHECK-DAG: cvt.rn.satfinite.e4m3x2.f32
CHECK-DAG: cvt.rn.satfinite.e5m2x2.f16x2
CHECK-DAG: cvt.rn.f16x2.e4m3x2
CHECK-DAG: cvt.rn.f16x2.e5m2x2
CHECK: ret;
)");
}

TEST(Float8Codegen, TileCastsConvertTwoLanesPerInstruction) {
  // Each thread holds 16 consecutive bytes of the 2048-element tile on 4 warps: eight pairs.
  auto k = tile_kernel([](Tensor<float8_e4m3, 1> out, Tensor<float8_e4m3, 1> in, f32 scale) {
    auto i = program_id(0) * 2048 + arange(2048);
    auto m = i < in.shape(0);
    auto x = cast<float>(load(in, {i}, m));
    store(out, {i}, cast<float8_e4m3>(x * scale), m);
  }, {.name = "fp8_tile_scale"}, 4);
  const std::string ptx = k.compile<>()->ptx;
  auto count = [&](const std::string& what) {
    int n = 0;
    for (auto at = ptx.find(what); at != std::string::npos; at = ptx.find(what, at + 1)) ++n;
    return n;
  };
  EXPECT_EQ(count("cvt.rn.f16x2.e4m3x2"), 8) << ptx;
  EXPECT_EQ(count("cvt.rn.satfinite.e4m3x2.f32"), 8) << ptx;
}

TEST(Float8Codegen, TargetsWithoutFp8ConversionsAreRefusedAtTheUsersLine) {
  int line = 0;
  auto k = kernel([&](Ptr<float8_e4m3> q, Ptr<float> f) {
    line = __LINE__; q[0] = cast<float8_e4m3>(Value<float>(f[0]));
  }, {.name = "fp8_on_sm80", .target = Target::from_string("sm_80")});
  const std::string msg = test::message_of([&] { (void)k.compile<>(); });
  EXPECT_NE(msg.find("float8_codegen_test.cpp:" + std::to_string(line)), std::string::npos) << msg;
  EXPECT_NE(msg.find("sm_89"), std::string::npos) << msg;
  // Loads and stores alone need no conversion: they compile for sm_80.
  auto copy = kernel([](Ptr<float8_e4m3> q, Ptr<float8_e4m3> p) { q[thread_idx().x] = p[thread_idx().x]; },
                     {.name = "fp8_copy_sm80", .target = Target::from_string("sm_80")});
  EXPECT_NE(copy.compile<>()->ptx.find(".target sm_80"), std::string::npos);
}

}  // namespace
