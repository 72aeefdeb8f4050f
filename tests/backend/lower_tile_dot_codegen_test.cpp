// The PTX of tensor-core dots as attention uses them: a transposed operand read in place, and
// a key loop whose scores stay in whole rows per warp, whose P feeds the next dot from
// registers and whose q is written to shared memory once, before the loop.
#include <gtest/gtest.h>

#include <cutlet/cutlet.h>

#include "attention_loop_kernel.h"
#include "filecheck_support.h"

using namespace cutlet;

namespace {

TEST(TileDotCodegen, ATransposedOperandIsReadInPlace) {
  // q [64, 32] @ transpose(k [64, 32]): k is read with ldmatrix as it is (no .trans, no
  // permute through shared memory, no shared stores but the dot's own operand buffers).
  auto kern = tile_kernel([](Tensor<float, 2> s, Tensor<half, 2> q, Tensor<half, 2> k) {
    auto r = expand_dims(arange(64), 1), d = expand_dims(arange(32), 0);
    auto qt = load(q, {r, d}), kt = load(k, {r, d});
    store(s, {r, expand_dims(arange(64), 0)}, dot(qt, transpose(kt)));
  }, {.name = "dot_transposed_b"});
  auto ir = ir::print(kern.trace_ir());
  const std::string ptx = kern.compile<>()->ptx;
  expect_filecheck(ptx, R"(
CHECK: .entry dot_transposed_b(
CHECK: ld.global.v4
CHECK: bar.sync 0;
CHECK: st.shared
CHECK: bar.sync 0;
CHECK-NOT: bar.sync
CHECK: ldmatrix.sync.aligned.m8n8.x4.shared.b16
CHECK: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
)");
  EXPECT_EQ(ptx.find(".trans"), std::string::npos) << "a transposed b is read without .trans";
  // The kernel's IR after the passes: the dot reads k marked transposed, the permute is gone.
  EXPECT_EQ(ir.find("tile.permute"), std::string::npos) << ir;
  EXPECT_NE(ir.find("tile.dot 0 2 "), std::string::npos) << ir;
}

TEST(TileDotCodegen, AttentionLoopKeepsRowsInWarpsAndPInRegisters) {
  auto kern = test::attention_loop_kernel<64, 64, 64>({.name = "attention_loop"}, 4);
  const std::string ptx = kern.compile<>()->ptx;
  // In the loop: one barrier (this iteration's k and v have landed), then the scores, row max
  // and sum by shuffles within each warp, P straight into the second dot: no shared stores
  // and no other barrier. q goes to shared memory before the loop, and the result is stored
  // from the accumulator's registers.
  expect_filecheck(ptx, R"(
CHECK: .entry attention_loop(
CHECK: st.shared
CHECK: cp.async.cg.shared.global
CHECK: cp.async.wait_group
CHECK-NEXT: bar.sync 0;
CHECK-NOT: st.shared
CHECK-NOT: bar.sync
CHECK: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
CHECK-NOT: st.shared
CHECK-NOT: bar.sync
CHECK: shfl.sync.bfly.b32
CHECK-NOT: st.shared
CHECK-NOT: bar.sync
CHECK: ex2.approx
CHECK-NOT: st.shared
CHECK-NOT: bar.sync
CHECK: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
CHECK: cp.async.cg.shared.global
CHECK: cp.async.wait_group 0;
CHECK-NOT: ld.shared
CHECK: st.global
)");
}

}  // namespace
