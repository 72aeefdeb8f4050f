// Hopper builds (sm_90a) of the tile kernels users write: a pipelined matmul whose dot runs on
// wgmma with its operands in swizzled stages, a transposed operand read K-major, attention's
// second dot reading P written to shared memory, and epilogues after the dot; the same
// kernels built for sm_90 keep mma.sync. Each links to a cubin (ptxas accepts the wgmma PTX).
#include <gtest/gtest.h>

#include <cutlet/cutlet.h>

#include "attention_loop_kernel.h"
#include "filecheck_support.h"

using namespace cutlet;

namespace {

KernelOptions hopper(const char* name, int stages = 0) {
  KernelOptions o;
  o.name = name;
  o.target = Target::from_string("sm_90a");
  o.tile_stages = stages;
  return o;
}

/// C = A @ B (+ bias, GELU) over a K loop, A [M, K] and B [K, N] in T, masked at the edges.
template <class T>
auto matmul(KernelOptions options, int warps, int BM, int BN, int BK, bool epilogue) {
  return tile_kernel(
      [=](Tensor<bfloat16, 2> c, Tensor<T, 2> a, Tensor<T, 2> b, Tensor<float, 1> bias) {
        auto M = a.shape(0), N = b.shape(1), K = a.shape(1);
        auto rm = program_id(0) * BM + arange(BM), rn = program_id(1) * BN + arange(BN), rk = arange(BK);
        auto acc = for_range(0, K, BK, zeros<float>({BM, BN}), [&](i32 k0, Tile<float> acc) {
          auto ka = k0 + rk;
          auto ta = load(a, {expand_dims(rm, 1), expand_dims(ka, 0)}, (expand_dims(rm, 1) < M) & (expand_dims(ka, 0) < K));
          auto tb = load(b, {expand_dims(ka, 1), expand_dims(rn, 0)}, (expand_dims(ka, 1) < K) & (expand_dims(rn, 0) < N));
          return dot(ta, tb, acc);
        });
        if (epilogue) {
          acc = acc + expand_dims(load(bias, {rn}, rn < N), 0);
          acc = acc * 0.5f * (1.0f + erf(acc * 0.70710678f));
        }
        store(c, {expand_dims(rm, 1), expand_dims(rn, 0)}, cast<bfloat16>(acc), (expand_dims(rm, 1) < M) & (expand_dims(rn, 0) < N));
      },
      options, warps);
}

TEST(TileWgmmaCodegen, PipelinedMatmulRunsOnWgmmaFromSwizzledStages) {
  auto k = matmul<bfloat16>(hopper("wgmma_matmul", 3), 4, 128, 128, 64, false);
  const std::string ir = ir::print(k.trace_ir());
  EXPECT_NE(ir.find("#wgmma<warps=[4,1]>"), std::string::npos) << ir;
  EXPECT_NE(ir.find("swizzle=128"), std::string::npos) << ir;
  EXPECT_EQ(ir.find("#dot_op"), std::string::npos) << "no mma.sync fragments on the wgmma path\n" << ir;
  auto compiled = k.compile<>();
  EXPECT_FALSE(compiled->cubin.empty());
  // In the loop: the stage has landed (and is seen by the async proxy), every warp is past the
  // previous iteration, then two bands of m64n128k16 wgmmas, four k-steps each, one group.
  expect_filecheck(compiled->ptx, R"(
CHECK: .target sm_90a
CHECK: .entry wgmma_matmul(
CHECK: cp.async.cg.shared.global
CHECK: cp.async.wait_group
CHECK: fence.proxy.async.shared::cta;
CHECK: bar.sync 0;
CHECK: wgmma.fence.sync.aligned;
CHECK-COUNT-8: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
CHECK-NOT: wgmma.mma_async
CHECK: wgmma.commit_group.sync.aligned;
CHECK: wgmma.wait_group.sync.aligned 0;
)");
  EXPECT_EQ(compiled->ptx.find("ldmatrix"), std::string::npos);
  // ptxas runs the MMAs asynchronously (it would say they are serialized otherwise).
  EXPECT_EQ(compiled->link_log.find("serialized"), std::string::npos) << compiled->link_log;
  EXPECT_EQ(compiled->ptx.find("mma.sync"), std::string::npos);
}

TEST(TileWgmmaCodegen, EightWarpsWideTilesAndAnEpilogue) {
  // Triton's largest tutorial tile, with a bias + GELU epilogue: two warpgroups, n256.
  auto k = matmul<bfloat16>(hopper("wgmma_gelu", 3), 8, 128, 256, 64, true);
  auto compiled = k.compile<>();
  expect_filecheck(compiled->ptx, R"(
CHECK: .entry wgmma_gelu(
CHECK-COUNT-4: wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16
CHECK: wgmma.wait_group.sync.aligned 0;
CHECK: st.global
)");
  EXPECT_EQ(compiled->link_log.find("serialized"), std::string::npos) << compiled->link_log;
}

TEST(TileWgmmaCodegen, HalfOperandsAndNarrowTiles) {
  // f16, 64 x 32 x 32 on 4 warps: 64-byte swizzles for b's 32-wide rows and a's 32-deep ones.
  auto k = matmul<half>(hopper("wgmma_f16", 4), 4, 64, 32, 32, false);
  const std::string ir = ir::print(k.trace_ir());
  EXPECT_NE(ir.find("swizzle=64"), std::string::npos) << ir;
  auto compiled = k.compile<>();
  expect_filecheck(compiled->ptx, R"(
CHECK: wgmma.mma_async.sync.aligned.m64n32k16.f32.f16.f16
)");
}

TEST(TileWgmmaCodegen, SameSourceForSm90KeepsMmaSync) {
  KernelOptions o = hopper("mma_matmul", 3);
  o.target = Target::from_string("sm_90");
  auto compiled = matmul<bfloat16>(o, 4, 128, 128, 64, false).compile<>();
  EXPECT_EQ(compiled->ptx.find("wgmma"), std::string::npos);
  EXPECT_NE(compiled->ptx.find("mma.sync.aligned.m16n8k16"), std::string::npos);
}

TEST(TileWgmmaCodegen, TransposedOperandAndAttentionPFromRegisters) {
  // Attention's key loop: q @ k^T reads k K-major as loaded ([N, D] rows along D); P (the
  // softmax of the scores, in the wgmma accumulator's registers) is the second dot's a,
  // straight from those registers.
  auto kern = test::attention_loop_kernel<128, 64, 64>(hopper("wgmma_attention"), 8);
  auto compiled = kern.compile<>();
  // The scores (k K-major: transpose bit 0), the row max and sum within warps, and the
  // output (P from registers, v MN-major: transpose bit 1); q alone goes to shared memory.
  expect_filecheck(compiled->ptx, R"(
CHECK: .entry wgmma_attention(
CHECK: st.shared
CHECK: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {{.*}}, p, 1, 1, 0, 0;
CHECK: wgmma.wait_group.sync.aligned 0;
CHECK-NOT: st.shared
CHECK: shfl.sync.bfly.b32
CHECK-NOT: st.shared
CHECK: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {{.*}}, {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, %rd{{[0-9]+}}, p, 1, 1, 1;
)");
  EXPECT_EQ(compiled->link_log.find("serialized"), std::string::npos) << compiled->link_log;
}

}  // namespace
