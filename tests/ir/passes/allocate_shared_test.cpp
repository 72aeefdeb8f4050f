// Tests of allocate_shared: every buffer of a kernel in one arena, placed by liveness; golden
// IR of a pipelined GEMM with its stage rings, staged operand and in-loop scratch.
#include <gtest/gtest.h>

#include <array>
#include <string_view>

#include "cutlet/ir/builder.h"
#include "cutlet/ir/passes/passes.h"
#include "cutlet/ir/pipeline.h"
#include "cutlet/ir/printer.h"
#include "cutlet/ir/shared_memory.h"
#include "cutlet/ir/verifier.h"
#include "golden_support.h"
#include "tile_kernels.h"

namespace cutlet::ir {
namespace {

using namespace test;

/// The ops of `op` in f's body, in order.
std::vector<const Instruction*> ops_of(const Function& f, Opcode op) {
  std::vector<const Instruction*> out;
  for (InstId id : f.body().body)
    if (f.inst(id).op == op) out.push_back(&f.inst(id));
  return out;
}

/// Three transposes, one after the other, of tiles of 16384, 4096 and 8192 bytes (each goes
/// through shared memory), each result stored; with `array`, a shared_array of 100 floats.
Function three_permutes(bool array) {
  Function f("three_permutes");
  f.set_tile_warps(4);
  Builder b(f);
  ValueId x = b.add_param(Type::pointer(Type::f32()));
  ValueId h = b.add_param(Type::pointer(Type::f16()));
  if (array) b.store(b.shared_alloc(Type::f32(), 100), b.const_float(Type::f32(), 1.5));
  const std::array<int, 2> swap{1, 0};
  auto grid = [&](std::int64_t rows, std::int64_t cols) {
    const std::array<std::int64_t, 2> shape{rows, cols};
    return offsets_grid(b, b.tile_arange(rows), b.tile_arange(cols), shape, cols);
  };
  ValueId g1 = grid(64, 64), g2 = grid(32, 32), g3 = grid(64, 64);
  b.tile_store(x, g1, b.tile_permute(b.tile_load(x, g1), swap));
  b.tile_store(x, g2, b.tile_permute(b.tile_load(x, g2), swap));
  b.tile_store(h, g3, b.tile_permute(b.tile_load(h, g3), swap));
  return f;
}

Function allocated(Function f) { return allocate_shared(assign_layouts(std::move(f))); }

TEST(AllocateSharedTest, ScratchOfSuccessiveOpsTakesTheLargestNotTheSum) {
  Function f = allocated(three_permutes(false));
  EXPECT_NO_THROW(verify(f));
  auto permutes = ops_of(f, Opcode::TilePermute);
  ASSERT_EQ(permutes.size(), 3u);
  const std::int64_t sizes[3] = {64 * 64 * 4, 32 * 32 * 4, 64 * 64 * 2};
  for (int i = 0; i < 3; ++i) {
    ASSERT_EQ(permutes[i]->shared.size(), 1u);
    EXPECT_EQ(permutes[i]->shared[0].offset, 0);
    EXPECT_EQ(permutes[i]->shared[0].bytes, sizes[i]);
    EXPECT_EQ(permutes[i]->shared[0].what, "permute");
  }
  EXPECT_EQ(f.shared_bytes(), 64 * 64 * 4);  // not 16384 + 4096 + 8192
  ASSERT_EQ(f.shared_peak().size(), 1u);
  EXPECT_EQ(f.shared_peak()[0].op, Opcode::TilePermute);
}

TEST(AllocateSharedTest, AKernelsSharedArraysLieAtTheBottomThroughout) {
  Function f = allocated(three_permutes(true));
  auto arrays = ops_of(f, Opcode::SharedAlloc);
  ASSERT_EQ(arrays.size(), 1u);
  ASSERT_EQ(arrays[0]->shared.size(), 1u);
  EXPECT_EQ(arrays[0]->shared[0].offset, 0);
  EXPECT_EQ(arrays[0]->shared[0].bytes, 400);
  EXPECT_EQ(arrays[0]->shared[0].what, "shared_array<f32>(100)");
  for (const Instruction* p : ops_of(f, Opcode::TilePermute)) EXPECT_EQ(p->shared.at(0).offset, 400);
  EXPECT_EQ(f.shared_bytes(), 400 + 64 * 64 * 4);
}

TEST(AllocateSharedTest, ADeviceFunctionsSharedArraysStayOutOfItsArena) {
  Function f("helper");
  Builder b(f);
  b.store(b.shared_alloc(Type::f32(), 100), b.const_float(Type::f32(), 1.5));
  b.finish_device_function(kNone);
  f = allocate_shared(std::move(f));
  EXPECT_TRUE(ops_of(f, Opcode::SharedAlloc).at(0)->shared.empty());
  EXPECT_EQ(f.shared_bytes(), 0);
}

TEST(AllocateSharedTest, StageRingsLiveUntilTheirDeallocAndScratchGoesAboveThem) {
  Function f = run_pipeline(pipelined_gemm());
  EXPECT_NO_THROW(verify(f));
  auto allocs = ops_of(f, Opcode::TileLocalAlloc);
  ASSERT_EQ(allocs.size(), 4u);  // rings of a, b and b again; q staged once
  std::int64_t end = 0;
  for (std::size_t i = 0; i < allocs.size(); ++i) {
    const SharedBuffer& s = allocs[i]->shared.at(0);
    EXPECT_EQ(s.offset % 128, 0);
    EXPECT_EQ(s.offset, end) << "buffers live together are packed in order";
    end = s.offset + s.bytes;
  }
  EXPECT_EQ(f.shared_bytes(), end + 128);  // and the loop's conversion above them
  EXPECT_NE(allocs[0]->shared[0].what.find("staged before the loop"), std::string::npos) << allocs[0]->shared[0].what;
  EXPECT_NE(allocs[1]->shared[0].what.find("cp.async stage ring of the dot's a operand (3 stages x 5120 bytes"),
            std::string::npos)
      << allocs[1]->shared[0].what;
  // Scratch inside the loop (a conversion) goes above the buffers live through it.
  const Instruction& loop = *ops_of(f, Opcode::For).at(0);
  bool inside = false;
  for (InstId id : loop.regions[0].body)
    if (f.inst(id).op == Opcode::TileConvertLayout && !f.inst(id).shared.empty()) {
      inside = true;
      EXPECT_EQ(f.inst(id).shared[0].offset, end);
    }
  EXPECT_TRUE(inside);
  expect_golden("allocate_shared_gemm.ir", print(f));
}

TEST(AllocateSharedTest, ACrossWarpReductionAsksForASlotPerWarpAndResult) {
  Function f("column_sums");
  f.set_tile_warps(4);
  Builder b(f);
  ValueId x = b.add_param(Type::pointer(Type::f32()));
  const std::array<std::int64_t, 2> shape{128, 32};
  ValueId t = b.tile_load(x, offsets_grid(b, b.tile_arange(128), b.tile_arange(32), shape, 32));
  b.tile_store(x, b.tile_arange(32), b.tile_reduce(ReduceKind::Sum, t, 0));
  f = allocated(std::move(f));
  auto reduces = ops_of(f, Opcode::TileReduce);
  ASSERT_EQ(reduces.size(), 1u);
  const Layout& l = *f.type_of(reduces[0]->operands[0]).layout();
  ASSERT_GT(l.wpc[0], 1) << l.str();
  const auto requests = shared_requests(f, *reduces[0]);
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].bytes, std::int64_t{l.wpc[0]} * 32 * 4);
  EXPECT_EQ(requests[0].what, "cross-warp reduction");
  EXPECT_EQ(reduces[0]->shared.at(0).bytes, requests[0].bytes);
}

TEST(AllocateSharedTest, IsInTheDefaultPipelineLastAndPrinted) {
  auto passes = default_pipeline();
  EXPECT_EQ(std::string_view(passes.back().name), "allocate-shared");
  const std::string text = print(run_pipeline(three_permutes(false)));
  EXPECT_NE(text.find(" shared 16384 {"), std::string::npos) << text;
  EXPECT_NE(text.find("smem(@0 16384)"), std::string::npos) << text;
}

}  // namespace
}  // namespace cutlet::ir
