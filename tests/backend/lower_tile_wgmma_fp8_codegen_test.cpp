// FP8 dots as users write FP8 GEMMs: a [M, K] and b held as [N, K] (K-major, as cuBLASLt
// takes them) run on FP8 wgmma (m64nNk32) from swizzled cp.async stages on sm_90a, either
// format on either side; a b held as [K, N], and every target without FP8 wgmma, run as f16
// dots on operands converted exactly. Each links to a cubin.
#include <gtest/gtest.h>

#include <cutlet/cutlet.h>

#include "filecheck_support.h"

using namespace cutlet;

namespace {

KernelOptions on(const char* target, const char* name, int stages = 3) {
  KernelOptions o;
  o.name = name;
  o.target = Target::from_string(target);
  o.tile_stages = stages;
  return o;
}

/// C (bf16) = A @ B over a K loop, A [M, K] of TA; B of TB held as [N, K] (`b_nk`) or [K, N].
template <class TA, class TB>
auto fp8_matmul(KernelOptions options, int warps, int BM, int BN, int BK, bool b_nk) {
  return tile_kernel(
      [=](Tensor<bfloat16, 2> c, Tensor<TA, 2> a, Tensor<TB, 2> b) {
        auto M = a.shape(0), K = a.shape(1), N = b_nk ? b.shape(0) : b.shape(1);
        auto rm = program_id(0) * BM + arange(BM), rn = program_id(1) * BN + arange(BN), rk = arange(BK);
        auto acc = for_range(0, K, BK, zeros<float>({BM, BN}), [&](i32 k0, Tile<float> acc) {
          auto ka = k0 + rk;
          auto ta = load(a, {expand_dims(rm, 1), expand_dims(ka, 0)}, (expand_dims(rm, 1) < M) & (expand_dims(ka, 0) < K));
          Tile<TB> tb = b_nk ? transpose(load(b, {expand_dims(rn, 1), expand_dims(ka, 0)}, (expand_dims(rn, 1) < N) & (expand_dims(ka, 0) < K)))
                             : load(b, {expand_dims(ka, 1), expand_dims(rn, 0)}, (expand_dims(ka, 1) < K) & (expand_dims(rn, 0) < N));
          return dot(ta, tb, acc);
        });
        store(c, {expand_dims(rm, 1), expand_dims(rn, 0)}, cast<bfloat16>(acc), (expand_dims(rm, 1) < M) & (expand_dims(rn, 0) < N));
      },
      options, warps);
}

TEST(TileWgmmaFp8Codegen, KMajorOperandsRunOnFp8WgmmaFromSwizzledStages) {
  auto k = fp8_matmul<float8_e4m3, float8_e4m3>(on("sm_90a", "fp8_gemm"), 4, 128, 128, 128, true);
  const std::string ir = ir::print(k.trace_ir());
  EXPECT_NE(ir.find("swizzle=128"), std::string::npos) << ir;
  EXPECT_NE(ir.find("tile.async_copy"), std::string::npos) << "FP8 operands are copied into stages\n" << ir;
  auto compiled = k.compile<>();
  EXPECT_FALSE(compiled->cubin.empty());
  // 128 x 128 x 128 on one warpgroup: two bands of four k32 steps, no transpose bits.
  expect_filecheck(compiled->ptx, R"(
CHECK: .target sm_90a
CHECK: cp.async.cg.shared.global
CHECK: wgmma.fence.sync.aligned;
CHECK-COUNT-8: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3 {{.*}}, p, 1, 1;
CHECK-NOT: wgmma.mma_async
CHECK: wgmma.commit_group.sync.aligned;
)");
  EXPECT_EQ(compiled->ptx.find("k16"), std::string::npos);
  EXPECT_EQ(compiled->ptx.find("cvt.rn.f16x2.e4m3x2"), std::string::npos) << "operands are not converted";
  EXPECT_EQ(compiled->link_log.find("serialized"), std::string::npos) << compiled->link_log;
}

TEST(TileWgmmaFp8Codegen, MixedFormatsAndTwoWarpgroups) {
  auto compiled = fp8_matmul<float8_e4m3, float8_e5m2>(on("sm_90a", "fp8_mixed"), 8, 128, 256, 64, true).compile<>();
  expect_filecheck(compiled->ptx, R"(
CHECK-COUNT-2: wgmma.mma_async.sync.aligned.m64n256k32.f32.e4m3.e5m2
)");
}

TEST(TileWgmmaFp8Codegen, MnMajorBRunsAsAnF16Dot) {
  auto k = fp8_matmul<float8_e4m3, float8_e4m3>(on("sm_90a", "fp8_mn_major"), 4, 128, 128, 64, false);
  auto compiled = k.compile<>();
  EXPECT_EQ(compiled->ptx.find("e4m3.e4m3"), std::string::npos);
  expect_filecheck(compiled->ptx, R"(
CHECK: cvt.rn.f16x2.e4m3x2
CHECK: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16
)");
}

TEST(TileWgmmaFp8Codegen, Sm90WithoutFp8WgmmaRunsMmaSyncOnF16) {
  auto compiled = fp8_matmul<float8_e5m2, float8_e5m2>(on("sm_90", "fp8_sm90"), 4, 128, 128, 64, true).compile<>();
  EXPECT_EQ(compiled->ptx.find("wgmma"), std::string::npos);
  expect_filecheck(compiled->ptx, R"(
CHECK: cvt.rn.f16x2.e5m2x2
CHECK: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
)");
}

TEST(TileWgmmaFp8Codegen, AfterThePassesTheDotReadsF16) {
  const ir::Function f = fp8_matmul<float8_e4m3, float8_e4m3>(on("sm_90", "fp8_passes"), 4, 64, 64, 32, true).trace_ir();
  const std::string text = ir::print(f);
  EXPECT_NE(text.find("tile.dot"), std::string::npos) << text;
  for (std::size_t i = 0; i < f.num_insts(); ++i) {
    const ir::Instruction& inst = f.inst(static_cast<ir::InstId>(i));
    if (inst.op == ir::Opcode::TileDot) {
      EXPECT_EQ(f.type_of(inst.operands[0]).element(), ir::Type::f16()) << text;
    }
  }
}

}  // namespace
