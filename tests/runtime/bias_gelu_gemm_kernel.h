// The bias + GELU GEMM tile kernel the CPU-device tests run: c = gelu(a @ b + bias) over
// BM x BN tiles of bf16 inputs with K steps of BK, masked at every edge, on 4 warps and 3
// stages, stored as Out (f32, or bf16 rounded from the f32 result).
#pragma once

#include <cutlet/cutlet.h>

#include <type_traits>

namespace cutlet::test {

/// The tile kernel named `name`: launch it with a grid of (ceil(M / BM), ceil(N / BN)) and
/// tensors c (M x N of Out), a (M x K bf16), b (K x N bf16) and bias (N f32).
template <int BM, int BN, int BK, class Out>
auto bias_gelu_gemm_kernel(const char* name) {
  return tile_kernel(
      [](Tensor<Out, 2> c, Tensor<bfloat16, 2> a, Tensor<bfloat16, 2> b, Tensor<float, 1> bias) {
        auto rm = program_id(0) * BM + arange(BM);
        auto rn = program_id(1) * BN + arange(BN);
        auto rk = arange(BK);
        auto acc = for_range(0, a.shape(1), BK, zeros<float>({BM, BN}), [&](i32 k0, Tile<float> acc) {
          auto ka = k0 + rk;
          auto ta = load(a, {expand_dims(rm, 1), expand_dims(ka, 0)},
                         (expand_dims(rm, 1) < a.shape(0)) & (expand_dims(ka, 0) < a.shape(1)));
          auto tb = load(b, {expand_dims(ka, 1), expand_dims(rn, 0)},
                         (expand_dims(ka, 1) < b.shape(0)) & (expand_dims(rn, 0) < b.shape(1)));
          return dot(ta, tb, acc);
        });
        auto x = acc + expand_dims(load(bias, {rn}, rn < bias.shape(0)), 0);
        auto mask = (expand_dims(rm, 1) < c.shape(0)) & (expand_dims(rn, 0) < c.shape(1));
        auto gelu = x * 0.5f * (1.0f + erf(x * 0.70710678f));
        if constexpr (std::is_same_v<Out, float>) store(c, {expand_dims(rm, 1), expand_dims(rn, 0)}, gelu, mask);
        else store(c, {expand_dims(rm, 1), expand_dims(rn, 0)}, cast<Out>(gelu), mask);
      },
      {.name = name, .tile_stages = 3}, 4);
}

}  // namespace cutlet::test
