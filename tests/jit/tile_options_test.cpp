// Tile kernel options: warps and pipeline stages are part of the traced IR (and so of every
// cache key), impossible values are refused wherever a kernel is made, and with_options keeps
// a tile kernel's settings.
#include <gtest/gtest.h>

#include <cutlet/cutlet.h>

#include "cutlet/ir/printer.h"
#include "cutlet/ir/structural_hash.h"
#include "kernel_test_support.h"

using namespace cutlet;

namespace {

/// A tile kernel's body: y = x, 128 elements per program.
const auto copy_body = [](Tensor<float, 1> y, Tensor<float, 1> x) {
  auto i = program_id(0) * 128 + arange(128);
  store(y, {i}, load(x, {i}));
};

auto copy_kernel(int warps, int stages) {
  return tile_kernel(copy_body, {.name = "tile_copy", .tile_stages = stages}, warps);
}

TEST(TileOptions, WarpsAndStagesAreInTheIrAndItsHash) {
  const auto four = copy_kernel(4, 4).trace_ir();
  EXPECT_EQ(four.tile_warps(), 4);
  EXPECT_EQ(four.tile_stages(), 4);
  EXPECT_NE(ir::print(four).find(") warps 4 stages 4 {"), std::string::npos) << ir::print(four);
  const auto deflt = copy_kernel(4, 0).trace_ir();
  EXPECT_NE(ir::print(deflt).find(") warps 4 {"), std::string::npos) << ir::print(deflt);
  EXPECT_NE(ir::structural_hash(four), ir::structural_hash(deflt));
  EXPECT_NE(ir::structural_hash(four), ir::structural_hash(copy_kernel(4, 3).trace_ir()));
  EXPECT_NE(ir::structural_hash(four), ir::structural_hash(copy_kernel(8, 4).trace_ir()));
}

TEST(TileOptions, ImpossibleWarpsAndStagesAreRefusedWhereDefined) {
  auto stages = test::message_of([] { (void)copy_kernel(4, 1); });
  EXPECT_NE(stages.find("tile_stages is 2 to 8"), std::string::npos) << stages;
  EXPECT_NE(stages.find("tile_options_test.cpp"), std::string::npos) << stages;
  auto many = test::message_of([] { (void)copy_kernel(4, 9); });
  EXPECT_NE(many.find("not 9"), std::string::npos) << many;
  auto warps = test::message_of([] { (void)copy_kernel(3, 0); });
  EXPECT_NE(warps.find("not 3"), std::string::npos) << warps;
}

TEST(TileOptions, WithOptionsKeepsTheTileSettingsLeftAtZero) {
  const auto tile = copy_kernel(8, 4);
  const auto renamed = tile.with_options({.name = "tile_copy_renamed"});
  EXPECT_EQ(renamed.options().tile_warps, 8);
  EXPECT_EQ(renamed.options().tile_stages, 4);
  const std::string ir = ir::print(renamed.trace_ir());
  EXPECT_NE(ir.find(") warps 8 stages 4 {"), std::string::npos) << ir;
  const auto tuned = tile.with_options({.opt_level = 2});
  EXPECT_EQ(tuned.name(), "tile_copy");
  EXPECT_EQ(tuned.options().tile_warps, 8);
  EXPECT_EQ(tuned.options().tile_stages, 4);
  // Settings the new options give replace the kernel's.
  const auto other = tile.with_options({.tile_warps = 2, .tile_stages = 3});
  EXPECT_NE(ir::print(other.trace_ir()).find(") warps 2 stages 3 {"), std::string::npos);
  const auto deeper = tile.with_options({.tile_stages = 6});
  EXPECT_EQ(deeper.options().tile_warps, 8);
  EXPECT_EQ(deeper.options().tile_stages, 6);
  // A per-thread kernel stays one.
  auto plain = kernel([](Ptr<float> y) { y[0] = 1.0f; }, {.name = "per_thread"});
  EXPECT_EQ(plain.with_options({.opt_level = 1}).options().tile_warps, 0);
}

TEST(TileOptions, WithOptionsChecksTheTileSettings) {
  const auto tile = copy_kernel(4, 0);
  const auto stages = test::message_of([&] { (void)tile.with_options({.tile_stages = 100}); });
  EXPECT_NE(stages.find("tile_stages is 2 to 8"), std::string::npos) << stages;
  EXPECT_NE(stages.find("not 100"), std::string::npos) << stages;
  const auto warps = test::message_of([&] { (void)tile.with_options({.tile_warps = 64}); });
  EXPECT_NE(warps.find("not 64"), std::string::npos) << warps;
}

TEST(TileOptions, KernelRefusesWarpsThatAreNoPowerOfTwoUpTo32) {
  const int line = __LINE__ + 1;
  const auto three = test::message_of([] { (void)kernel([](Ptr<float> y) { y[0] = 1.0f; }, {.tile_warps = 3}); });
  EXPECT_NE(three.find("KernelOptions::tile_warps is 0 (a per-thread kernel)"), std::string::npos) << three;
  EXPECT_NE(three.find("not 3"), std::string::npos) << three;
  EXPECT_NE(three.find("write 2 or 4"), std::string::npos) << three;
  EXPECT_NE(three.find("tile_options_test.cpp:" + std::to_string(line)), std::string::npos) << three;
  const auto many = test::message_of([] { (void)kernel([](Ptr<float> y) { y[0] = 1.0f; }, {.tile_warps = 64}); });
  EXPECT_NE(many.find("not 64"), std::string::npos) << many;
  EXPECT_NE(many.find("at most 1024 threads"), std::string::npos) << many;
  EXPECT_NE(many.find("write 32"), std::string::npos) << many;
  const auto negative = test::message_of([] { (void)kernel([](Ptr<float> y) { y[0] = 1.0f; }, {.tile_warps = -4}); });
  EXPECT_NE(negative.find("not -4"), std::string::npos) << negative;
  const auto tile = test::message_of([] { (void)copy_kernel(64, 0); });
  EXPECT_NE(tile.find("not 64"), std::string::npos) << tile;
  EXPECT_NE(tile.find("write 32"), std::string::npos) << tile;
}

TEST(TileOptions, KernelRefusesStagesOutsideTwoToEight) {
  const auto hundred = test::message_of([] {
    (void)kernel(copy_body, {.tile_warps = 4, .tile_stages = 100});
  });
  EXPECT_NE(hundred.find("tile_stages is 2 to 8"), std::string::npos) << hundred;
  EXPECT_NE(hundred.find("not 100"), std::string::npos) << hundred;
  EXPECT_NE(hundred.find("write 8 or fewer"), std::string::npos) << hundred;
  const auto tile = test::message_of([] { (void)copy_kernel(4, 100); });
  EXPECT_NE(tile.find("not 100"), std::string::npos) << tile;
  const auto negative = test::message_of([] { (void)copy_kernel(4, -1); });
  EXPECT_NE(negative.find("not -1"), std::string::npos) << negative;
  EXPECT_NE(negative.find("write 2 or more"), std::string::npos) << negative;
}

TEST(TileOptions, StagesAreRefusedForAPerThreadKernel) {
  const auto msg = test::message_of([] { (void)kernel([](Ptr<float> y) { y[0] = 1.0f; }, {.tile_stages = 4}); });
  EXPECT_NE(msg.find("tile_stages = 4 is for tile kernels"), std::string::npos) << msg;
  EXPECT_NE(msg.find("tile_kernel(fn, options, warps)"), std::string::npos) << msg;
}

TEST(TileOptions, TileKernelRefusesWarpsGivenTwice) {
  const auto msg = test::message_of([] {
    (void)tile_kernel(copy_body, {.tile_warps = 8}, 4);
  });
  EXPECT_NE(msg.find("given 4 warps and KernelOptions::tile_warps = 8"), std::string::npos) << msg;
}

TEST(TileOptions, KernelWithTileWarpsMakesATileKernel) {
  auto k = kernel(copy_body, {.name = "tile_by_options", .tile_warps = 2, .tile_stages = 8});
  EXPECT_NE(ir::print(k.trace_ir()).find(") warps 2 stages 8 {"), std::string::npos);
}

TEST(KernelOptionsCheck, OptLevelsOutsideZeroToThreeAreRefused) {
  for (int level : {-1, 4, 10}) {
    const std::string msg = test::message_of([&] { (void)kernel([](Ptr<float> y) { y[0] = 1.0f; }, {.opt_level = level}); });
    EXPECT_NE(msg.find("opt_level is LLVM's optimization level 0, 1, 2 or 3, not " + std::to_string(level)),
              std::string::npos) << msg;
    EXPECT_NE(msg.find("tile_options_test.cpp:"), std::string::npos) << msg;
  }
  EXPECT_NO_THROW((void)kernel([](Ptr<float> y) { y[0] = 1.0f; }, {.opt_level = 0}));
}

}  // namespace
