// A GEMM with the epilogue users write after a dot (bias + exact GELU + cast to bf16) on
// Triton's 128x256x32 tiles over 8 warps: with its straight-line code ordered for registers,
// the epilogue runs element by element and ptxas spills nothing (op by op over the 128
// accumulator registers it needed 255 registers and spilled 204 bytes).
#include <gtest/gtest.h>

#include <cutlet/cutlet.h>

#include "filecheck_support.h"

using namespace cutlet;

namespace {

auto gelu_gemm() {
  return tile_kernel([](Tensor<bfloat16, 2> c, Tensor<bfloat16, 2> a, Tensor<bfloat16, 2> b, Tensor<float, 1> bias) {
    constexpr int BM = 128, BN = 256, BK = 32;
    auto rm = program_id(0) * BM + arange(BM);
    auto rn = program_id(1) * BN + arange(BN);
    auto rk = arange(BK);
    auto acc = for_range(0, a.shape(1), BK, zeros<float>({BM, BN}), [&](i32 k0, Tile<float> acc) {
      auto ka = k0 + rk;
      return dot(load(a, {expand_dims(rm, 1), expand_dims(ka, 0)}), load(b, {expand_dims(ka, 1), expand_dims(rn, 0)}), acc);
    });
    auto x = acc + expand_dims(load(bias, {rn}), 0);
    store(c, {expand_dims(rm, 1), expand_dims(rn, 0)}, cast<bfloat16>(x * 0.5f * (1.0f + erf(x * 0.70710678f))));
  }, {.name = "gelu_gemm", .tile_stages = 3}, 8);
}

TEST(OrderForRegistersCodegen, AGeluEpilogueAfterAWideDotDoesNotSpill) {
  auto k = gelu_gemm();
  auto compiled = k.compile<TensorArg<bfloat16, 2>, TensorArg<bfloat16, 2>, TensorArg<bfloat16, 2>, TensorArg<float, 1>>();
  EXPECT_EQ(compiled->resources.spill_store_bytes, 0) << compiled->link_log;
  EXPECT_EQ(compiled->resources.spill_load_bytes, 0) << compiled->link_log;
  EXPECT_LT(compiled->resources.registers, 255) << compiled->link_log;
  // erf's polynomial and the store of each element pair follow one another: the first
  // bf16 pair is stored before the last erf is evaluated.
  expect_filecheck(compiled->ptx, R"(
CHECK: mma.sync.aligned.m16n8k16
CHECK: cvt.rn.bf16.f32
CHECK: st.global.b32
CHECK: ex2.approx
)");
}

}  // namespace
