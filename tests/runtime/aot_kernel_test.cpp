// Kernels compiled ahead of time: the image chosen per compute capability, and the checks of
// the arguments generated launch functions pass (no GPU needed).
#include "cutlet/runtime/aot_kernel.h"

#include <gtest/gtest.h>

#include <string>

namespace {

using cutlet::ComputeCapability;
using cutlet::aot::Image;
using cutlet::aot::ImageKind;

const unsigned char kBytes[] = {0};

constexpr Image cubin(int sm) { return Image{ImageKind::cubin, sm, kBytes, sizeof kBytes, 0}; }
constexpr Image ptx(int sm) { return Image{ImageKind::ptx, sm, kBytes, sizeof kBytes, 0}; }

const Image kImages[] = {cubin(90), ptx(90), cubin(80)};

int chosen(ComputeCapability cc) {
  const Image* i = cutlet::aot::select_image(kImages, cc);
  return i ? static_cast<int>(i - kImages) : -1;
}

TEST(AotKernel, CubinsRunOnTheirMajorVersionFromTheirMinorVersionOn) {
  EXPECT_EQ(chosen({8, 0}), 2);
  EXPECT_EQ(chosen({8, 6}), 2);  // sm_80 code runs on sm_86 and sm_89
  EXPECT_EQ(chosen({8, 9}), 2);
  EXPECT_EQ(chosen({9, 0}), 0);
}

TEST(AotKernel, NewerMajorVersionsGetThePtx) {
  EXPECT_EQ(chosen({10, 0}), 1);
  EXPECT_EQ(chosen({12, 0}), 1);
}

TEST(AotKernel, OlderArchitecturesGetNothing) {
  EXPECT_EQ(chosen({7, 5}), -1);
  const Image only_cubins[] = {cubin(80), cubin(90)};
  EXPECT_EQ(cutlet::aot::select_image(only_cubins, {10, 0}), nullptr);
}

TEST(AotKernel, TheHighestMinorVersionNotAboveTheDevicesWins) {
  const Image images[] = {cubin(80), cubin(86), cubin(89)};
  EXPECT_EQ(cutlet::aot::select_image(images, {8, 7})->sm, 86);
  EXPECT_EQ(cutlet::aot::select_image(images, {8, 9})->sm, 89);
  EXPECT_EQ(cutlet::aot::select_image(images, {8, 0})->sm, 80);
}

TEST(AotKernel, DescribesItsImages) {
  EXPECT_EQ(cutlet::aot::describe_images(kImages), "cubins for sm_90, sm_80; PTX for sm_90 and newer");
  EXPECT_EQ(cutlet::aot::describe_images({}), "no code");
}

const cutlet::aot::KernelInfo kInfo{"mykernels::scale", "scale", kImages, 0, nullptr};

/// The what() of the cutlet::Error `f` throws ("" when none).
template <class F>
std::string message_of(F&& f) {
  try {
    f();
  } catch (const cutlet::Error& e) {
    return e.what();
  }
  return "";
}

TEST(AotKernel, BufferArgumentsMustHoldMemoryAndFewerThan2To31Elements) {
  cutlet::aot::ExportedKernel k(kInfo);  // loads nothing: no driver needed
  const cutlet::LaunchConfig config{.grid = 1};
  EXPECT_EQ(cutlet::aot::buffer_argument(k, config, 0, 0x1000, 10), 0x1000u);
  const std::string empty = message_of([&] { cutlet::aot::buffer_argument(k, {}, 1, 0, 0); });
  EXPECT_NE(empty.find("argument 2 of mykernels::scale"), std::string::npos) << empty;
  EXPECT_NE(empty.find("empty Buffer"), std::string::npos) << empty;
  const std::string wide = message_of([&] { cutlet::aot::buffer_argument(k, {}, 0, 0x1000, 1ull << 31); });
  EXPECT_NE(wide.find("32 bits"), std::string::npos) << wide;
}

TEST(AotKernel, TensorsMustHaveTheFactsTheSpecializationAssumes) {
  using cutlet::TensorFacts;
  cutlet::aot::ExportedKernel k(kInfo);
  const std::uint64_t assumed = TensorFacts::kAligned | TensorFacts::kUnitStride | (TensorFacts::kShapeDiv16 << 1);
  cutlet::TensorArg<float, 2> t = cutlet::tensor<float>(0x1000, {4, 32}, {32, 1});
  EXPECT_NO_THROW(cutlet::aot::check_tensor_argument(k, {}, 0, assumed, t));
  const cutlet::TensorArg<float, 2> odd = cutlet::tensor<float>(0x1004, {4, 30}, {30, 1});
  const std::string m = message_of([&] {
    cutlet::aot::check_tensor_argument(k, {}, 0, TensorFacts::kAligned | (TensorFacts::kShapeDiv16 << 1), odd);
  });
  EXPECT_NE(m.find("argument 1 of mykernels::scale"), std::string::npos) << m;
  EXPECT_NE(m.find("16-byte aligned data, shape[1] % 16 == 0"), std::string::npos) << m;
  // generic() tensors have no facts: only a specialization assuming none takes them.
  EXPECT_NO_THROW(cutlet::aot::check_tensor_argument(k, {}, 0, 0, t.generic()));
  EXPECT_THROW(cutlet::aot::check_tensor_argument(k, {}, 0, TensorFacts::kAligned, t.generic()), cutlet::Error);
}

TEST(AotKernel, AUnitLastStrideMakesItsDivisibilityIrrelevant) {
  using cutlet::TensorFacts;
  const std::uint64_t all = TensorFacts::kAligned | TensorFacts::kUnitStride | TensorFacts::kShapeDiv16 |
                            (TensorFacts::kShapeDiv16 << 1) | TensorFacts::kStrideDiv16 | (TensorFacts::kStrideDiv16 << 1);
  cutlet::TensorArg<float, 2> t = cutlet::tensor<float>(0x1000, {16, 32}, {32, 1});
  EXPECT_EQ(cutlet::missing_tensor_facts(all, cutlet::detail::tensor_facts(t), 2), 0u);
  EXPECT_EQ(cutlet::missing_tensor_facts(TensorFacts::kStrideDiv16 << 1, cutlet::detail::tensor_facts(t), 2),
            TensorFacts::kStrideDiv16 << 1);
}

}  // namespace
