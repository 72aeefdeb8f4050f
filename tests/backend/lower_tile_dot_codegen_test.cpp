// The PTX of tensor-core dots as attention uses them: a transposed operand read in place, and
// a key loop whose scores stay in whole rows per warp, whose P feeds the next dot from
// registers and whose q is written to shared memory once, before the loop.
#include <gtest/gtest.h>

#include <cutlet/cutlet.h>

#include <cmath>
#include <tuple>

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
  auto kern = tile_kernel([](Tensor<bfloat16, 2> o, Tensor<bfloat16, 2> q, Tensor<bfloat16, 2> k, Tensor<bfloat16, 2> v) {
    constexpr int M = 64, N = 64, D = 64;
    auto rows = expand_dims(arange(M), 1), cols = expand_dims(arange(D), 0);
    auto qt = load(q, {rows, cols});
    using Carry = std::tuple<Tile<float>, Tile<float>, Tile<float>>;
    Carry init{zeros<float>({M, D}), full<float>({M}, -INFINITY), full<float>({M}, 1.0f)};
    auto [acc, m_i, l_i] = for_range(0, k.shape(0), N, init, [&](i32 n0, Tile<float> acc, Tile<float> m_i, Tile<float> l_i) {
      auto krows = expand_dims(n0 + arange(N), 1);
      auto s = dot(qt, transpose(load(k, {krows, cols})));
      auto m_ij = maximum(m_i, max(s, 1));
      auto p = exp2(s - expand_dims(m_ij, 1));
      auto alpha = exp2(m_i - m_ij);
      return Carry{dot(cast<bfloat16>(p), load(v, {krows, cols}), acc * expand_dims(alpha, 1)), m_ij,
                   l_i * alpha + sum(p, 1)};
    });
    store(o, {rows, cols}, cast<bfloat16>(acc / expand_dims(l_i, 1)));
  }, {.name = "attention_loop"}, 4);
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
