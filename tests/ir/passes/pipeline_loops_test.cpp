// Tests of pipeline_loops on golden IR: loads feeding dots become asynchronous copies into
// rings of stages, other loads are issued an iteration ahead, dot operands from before the
// loop are staged once.
#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>

#include "cutlet/ir/ops.h"
#include "cutlet/ir/passes/passes.h"
#include "cutlet/ir/printer.h"
#include "cutlet/ir/verifier.h"
#include "golden_support.h"
#include "tile_kernels.h"

namespace cutlet::ir {
namespace {

using namespace test;

Function pipelined(Function f) {
  return dead_code_elimination(rematerialize_conversions(pipeline_loops(assign_layouts(std::move(f)))));
}

InstId loop_id(const Function& f) {
  for (InstId id : f.body().body)
    if (f.inst(id).op == Opcode::For) return id;
  throw std::runtime_error("no loop");
}

const Instruction& the_loop(const Function& f) { return f.inst(loop_id(f)); }

TEST(PipelineLoopsTest, AGemmLoopCopiesItsDotOperandsIntoRingsOfStages) {
  Function f = pipelined(pipelined_gemm());
  EXPECT_NO_THROW(verify(f));
  const int stages = pipeline_stages(f);
  ASSERT_EQ(stages, 3);
  // Three rings (a, b and b again), q staged once: four buffers, all released after the loop.
  EXPECT_EQ(count_ops(f, f.body(), Opcode::TileLocalAlloc), 4);
  EXPECT_EQ(count_ops(f, f.body(), Opcode::TileLocalDealloc), 4);
  EXPECT_EQ(count_ops(f, f.body(), Opcode::TileLocalStore), 1);
  // The first stages - 1 iterations' copies before the loop, one refill per iteration.
  const Instruction& loop = the_loop(f);
  EXPECT_EQ(count_ops(f, f.body(), Opcode::TileAsyncCopy), 3 * stages);
  EXPECT_EQ(count_ops(f, loop.regions[0], Opcode::TileAsyncCopy), 3);
  EXPECT_EQ(count_ops(f, loop.regions[0], Opcode::TileAsyncCommit), 1);
  EXPECT_EQ(count_ops(f, f.body(), Opcode::TileAsyncCommit), stages);
  // No dot operand is loaded in the loop; the scales are (one iteration ahead).
  EXPECT_EQ(count_ops(f, loop.regions[0], Opcode::TileLoad), 1);
  // The loop carries its accumulators, the sums, the stage and the next scales.
  EXPECT_EQ(loop.results.size(), 5u);
  for (InstId id : loop.regions[0].body)
    if (f.inst(id).op == Opcode::TileDot) {
      for (int k = 0; k < 2; ++k) EXPECT_TRUE(f.type_of(f.inst(id).operands[k]).layout()->is_shared());
    }
  expect_golden("pipeline_loops_gemm.ir", print(f));
}

TEST(PipelineLoopsTest, ADotOfTwoCopiesIsPipelinedKStepByKStep) {
  Function f = pipelined(pipelined_plain_gemm());
  EXPECT_NO_THROW(verify(f));
  const int stages = pipeline_stages(f);
  const Instruction& loop = the_loop(f);
  // Every stage filled before the loop, then the first stage's first fragments read.
  EXPECT_EQ(count_ops(f, f.body(), Opcode::TileAsyncCopy), 2 * stages + 2);
  EXPECT_EQ(count_ops(f, loop.regions[0], Opcode::TileAsyncCopy), 2);
  EXPECT_EQ(count_ops(f, f.body(), Opcode::TileLocalLoad) - count_ops(f, loop.regions[0], Opcode::TileLocalLoad), 2);
  // K = 32: two k-steps, so two dots; in the loop the second k-step's fragments of this
  // stage and the first ones of the next.
  EXPECT_EQ(count_ops(f, loop.regions[0], Opcode::TileDot), 2);
  EXPECT_EQ(count_ops(f, loop.regions[0], Opcode::TileLocalLoad), 4);
  // One wait in the loop, at the turn, before the refill and the last dot.
  std::vector<Opcode> order;
  for (InstId id : loop.regions[0].body) {
    const Opcode op = f.inst(id).op;
    if (op == Opcode::TileAsyncWait) {
      EXPECT_EQ(f.inst(id).int_attr(), stages - 2);
    }
    if (op == Opcode::TileAsyncWait || op == Opcode::TileDot || op == Opcode::TileAsyncCommit) order.push_back(op);
  }
  EXPECT_EQ(order, (std::vector<Opcode>{Opcode::TileDot, Opcode::TileAsyncWait, Opcode::TileAsyncCommit, Opcode::TileDot}));
  // The loop carries the accumulator, the stage and the first fragments of a and b.
  ASSERT_EQ(loop.results.size(), 4u);
  for (InstId id : loop.regions[0].body)
    if (f.inst(id).op == Opcode::TileDot)
      for (int k = 0; k < 2; ++k) {
        const Layout& l = *f.type_of(f.inst(id).operands[k]).layout();
        EXPECT_TRUE(l.is_dot_operand());
        EXPECT_EQ(l.operand, k);
        EXPECT_EQ(f.type_of(f.inst(id).operands[k]).shape()[k == 0 ? 1 : 0], 16);
      }
  expect_golden("pipeline_loops_plain_gemm.ir", print(f));
}

/// The opcodes of a region's instructions, in order.
std::vector<Opcode> opcodes(const Function& f, const Region& r) {
  std::vector<Opcode> order;
  for (InstId id : r.body) order.push_back(f.inst(id).op);
  return order;
}

std::ptrdiff_t position(const std::vector<Opcode>& order, Opcode op) {
  return std::find(order.begin(), order.end(), op) - order.begin();
}

TEST(PipelineLoopsTest, AWgmmaDotReadsSwizzledStagesAndItsAccumulatorStaysInFlight) {
  Function g = pipelined_plain_gemm();
  g.set_tile_wgmma(true);
  Function f = pipelined(std::move(g));
  EXPECT_NO_THROW(verify(f));
  ASSERT_EQ(pipeline_stages(f), 3);
  const Instruction& loop = the_loop(f);
  // No fragments: the dot reads its two stages where they are, swizzled (64-byte rows of a's
  // 32 bf16 along K, 128-byte rows of b's 64 along N), into a wgmma accumulator.
  EXPECT_EQ(count_ops(f, f.body(), Opcode::TileLocalLoad), 0);
  for (InstId id : loop.regions[0].body) {
    const Instruction& inst = f.inst(id);
    if (inst.op != Opcode::TileDot) continue;
    EXPECT_TRUE(f.type_of(inst.results[0]).layout()->is_wgmma());
    EXPECT_EQ(f.type_of(inst.operands[0]).layout()->swizzle, 64);
    EXPECT_EQ(f.type_of(inst.operands[1]).layout()->swizzle, 128);
  }
  // Copies two iterations ahead. In the loop: the dot; the wait for the previous iteration's
  // MMAs (one group left in flight); a barrier, after which every warpgroup's are done; the
  // refill of the stage they read. The accumulator goes to the next iteration still in flight.
  EXPECT_EQ(count_ops(f, f.body(), Opcode::TileAsyncCopy), 6);
  const std::vector<Opcode> order = opcodes(f, loop.regions[0]);
  const std::ptrdiff_t wait = position(order, Opcode::TileDotWait);
  EXPECT_LT(position(order, Opcode::TileDot), wait);
  EXPECT_EQ(order[static_cast<std::size_t>(wait + 1)], Opcode::Barrier);
  EXPECT_LT(wait, position(order, Opcode::TileAsyncCopy));
  const Instruction& yield = f.inst(loop.regions[0].body.back());
  const Instruction* carried = f.def_of(yield.operands[0]);
  ASSERT_EQ(carried->op, Opcode::TileDotWait);
  EXPECT_EQ(ops::TileDotWait(*carried).pending(), 1);
  // After the loop, before the rings are released and the store reads the accumulator: the
  // wait for the last MMAs.
  const auto after = std::find(f.body().body.begin(), f.body().body.end(), loop_id(f)) + 1;
  ASSERT_NE(after, f.body().body.end());
  const Instruction& last_wait = f.inst(*after);
  ASSERT_EQ(last_wait.op, Opcode::TileDotWait);
  EXPECT_EQ(ops::TileDotWait(last_wait).pending(), 0);
  EXPECT_EQ(last_wait.operands[0], loop.results[0]);
  EXPECT_EQ(f.inst(f.body().body.back()).operands[2], last_wait.results[0]);
  expect_golden("pipeline_loops_wgmma_gemm.ir", print(f));
}

TEST(PipelineLoopsTest, WithTwoStagesAWgmmaDotStillRefillsBehindItsMmas) {
  Function g = pipelined_plain_gemm();
  g.set_tile_wgmma(true);
  g.set_tile_stages(2);
  Function f = pipelined(std::move(g));
  EXPECT_NO_THROW(verify(f));
  // Not right after the wait, as mma.sync's two-stage loops do: the refill would race the
  // previous iteration's MMAs otherwise.
  const std::vector<Opcode> order = opcodes(f, the_loop(f).regions[0]);
  EXPECT_LT(position(order, Opcode::TileDot), position(order, Opcode::TileDotWait));
  EXPECT_LT(position(order, Opcode::TileDotWait), position(order, Opcode::TileAsyncCopy));
}

TEST(PipelineLoopsTest, TheVerifierRefusesFragmentsWhereOtherOpsRead) {
  Function f = pipelined(pipelined_plain_gemm());
  InstId loop = kNone;
  for (InstId id : f.body().body)
    if (f.inst(id).op == Opcode::For) loop = id;
  ASSERT_NE(loop, kNone);
  std::vector<InstId>& body = f.inst(loop).regions[0].body;
  auto dot = std::find_if(body.begin(), body.end(), [&](InstId i) { return f.inst(i).op == Opcode::TileDot; });
  ASSERT_NE(dot, body.end());
  const ValueId frags = f.inst(*dot).operands[0];
  Instruction add;
  add.op = Opcode::Add;
  add.operands = {frags, frags};
  const InstId id = f.add_inst(add);
  f.inst(id).results = {f.add_value(f.type_of(frags), id, 0)};
  body.insert(dot, id);
  try {
    verify(f);
    FAIL() << "an add of mma fragments verified";
  } catch (const IRError& e) {
    EXPECT_NE(std::string(e.what()).find("mma fragments"), std::string::npos) << e.what();
  }
}

TEST(PipelineLoopsTest, StagesFollowTheFunctionsOption) {
  Function g = pipelined_gemm();
  g.set_tile_stages(5);
  Function f = pipelined(std::move(g));
  EXPECT_NO_THROW(verify(f));
  EXPECT_EQ(count_ops(f, f.body(), Opcode::TileAsyncCopy), 3 * 5);
  bool waits_for_three = false;
  for (InstId id : the_loop(f).regions[0].body)
    if (f.inst(id).op == Opcode::TileAsyncWait) waits_for_three = f.inst(id).int_attr() == 3;
  EXPECT_TRUE(waits_for_three);
  for (InstId id : f.body().body)
    if (f.inst(id).op == Opcode::TileLocalAlloc && f.type_of(f.inst(id).results[0]).shape().size() == 3) {
      EXPECT_EQ(f.type_of(f.inst(id).results[0]).shape()[0], 5);
    }
}

TEST(PipelineLoopsTest, AnOperandTwoLoopsReadIsStagedOnceForBoth) {
  Function f = pipelined(two_loops_one_operand());
  EXPECT_NO_THROW(verify(f));
  // q's buffer and a ring per loop; q written to shared memory once.
  EXPECT_EQ(count_ops(f, f.body(), Opcode::TileLocalStore), 1);
  EXPECT_EQ(count_ops(f, f.body(), Opcode::TileLocalAlloc), 3) << print(f);
  EXPECT_EQ(count_ops(f, f.body(), Opcode::TileLocalDealloc), 3);
  // Both loops' dots read the same buffer, released after the second loop.
  std::vector<ValueId> read;
  std::size_t second_loop = 0, released = 0;
  const auto& body = f.body().body;
  for (std::size_t k = 0; k < body.size(); ++k) {
    const Instruction& inst = f.inst(body[k]);
    if (inst.op == Opcode::For) {
      second_loop = k;
      for (InstId id : inst.regions[0].body)
        if (f.inst(id).op == Opcode::TileDot) read.push_back(f.inst(id).operands[0]);
    }
    if (inst.op == Opcode::TileLocalDealloc && !read.empty() && inst.operands[0] == read[0]) released = k;
  }
  ASSERT_EQ(read.size(), 2u);
  EXPECT_EQ(read[0], read[1]);
  EXPECT_GT(released, second_loop);
}

TEST(PipelineLoopsTest, WithTwoStagesTheRefillComesBeforeTheMath) {
  for (int stages : {2, 3}) {
    Function g = two_loops_one_operand();
    g.set_tile_stages(stages);
    Function f = pipelined(std::move(g));
    EXPECT_NO_THROW(verify(f));
    const Instruction& loop = the_loop(f);
    std::size_t copy = 0, dot = 0;
    const auto& body = loop.regions[0].body;
    for (std::size_t k = 0; k < body.size(); ++k) {
      if (f.inst(body[k]).op == Opcode::TileAsyncCopy) copy = k;
      if (f.inst(body[k]).op == Opcode::TileDot) dot = k;
    }
    ASSERT_GT(copy, 0u);
    if (stages == 2) EXPECT_LT(copy, dot) << print(f);
    else EXPECT_GT(copy, dot) << print(f);
  }
}

TEST(PipelineLoopsTest, PerThreadKernelsAndLoopsWithoutLoadsAreLeftAlone) {
  Function f = assign_layouts(one_load_two_layouts());
  const std::string text = print(f);
  EXPECT_EQ(print(pipeline_loops(std::move(f))), text);
}

TEST(PipelineLoopsTest, TheVerifierRefusesSharedTilesWhereRegistersAreRead) {
  Function f = pipelined(pipelined_gemm());
  // An add of a stage (a tile in shared memory) before the first dot of the loop.
  InstId loop = kNone;
  for (InstId id : f.body().body)
    if (f.inst(id).op == Opcode::For) loop = id;
  ASSERT_NE(loop, kNone);
  auto first_dot = [&] {
    std::vector<InstId>& body = f.inst(loop).regions[0].body;
    return std::find_if(body.begin(), body.end(), [&](InstId i) { return f.inst(i).op == Opcode::TileDot; });
  };
  ASSERT_NE(first_dot(), f.inst(loop).regions[0].body.end());
  const ValueId stage = f.inst(*first_dot()).operands[0];
  Instruction add;
  add.op = Opcode::Add;
  add.operands = {stage, stage};
  const InstId id = f.add_inst(add);
  f.inst(id).results = {f.add_value(f.type_of(stage), id, 0)};
  f.inst(loop).regions[0].body.insert(first_dot(), id);
  try {
    verify(f);
    FAIL() << "an add of a tile in shared memory verified";
  } catch (const IRError& e) {
    EXPECT_NE(std::string(e.what()).find("shared memory"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace cutlet::ir
