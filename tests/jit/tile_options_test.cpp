// Tile kernel options: warps and pipeline stages are part of the traced IR (and so of every
// cache key), and impossible values are refused where the kernel is defined.
#include <gtest/gtest.h>

#include <cutlet/cutlet.h>

#include "cutlet/ir/printer.h"
#include "cutlet/ir/structural_hash.h"
#include "kernel_test_support.h"

using namespace cutlet;

namespace {

auto copy_kernel(int warps, int stages) {
  return tile_kernel([](Tensor<float, 1> y, Tensor<float, 1> x) {
    auto i = program_id(0) * 128 + arange(128);
    store(y, {i}, load(x, {i}));
  }, {.name = "tile_copy", .tile_stages = stages}, warps);
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

}  // namespace
