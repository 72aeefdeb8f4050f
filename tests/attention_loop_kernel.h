// The key loop of attention in its plainest form, for the codegen tests of each dot path:
// S = q k^T, an online softmax (running row max and sum), then P (cast to bf16) @ v into the
// rescaled accumulator. One program takes M query rows; the keys are walked N at a time.
#pragma once

#include <cutlet/cutlet.h>

#include <cmath>
#include <tuple>

namespace cutlet::test {

/// O [rows, D] = softmax(Q K^T) V over the first M rows of program_id(0)'s block, bf16 in and out.
template <int M, int N, int D>
auto attention_loop_kernel(KernelOptions options, int warps) {
  return tile_kernel([](Tensor<bfloat16, 2> o, Tensor<bfloat16, 2> q, Tensor<bfloat16, 2> k, Tensor<bfloat16, 2> v) {
    auto rows = expand_dims(program_id(0) * M + arange(M), 1), cols = expand_dims(arange(D), 0);
    auto qt = load(q, {rows, cols});
    using Carry = std::tuple<Tile<float>, Tile<float>, Tile<float>>;
    Carry init{zeros<float>({M, D}), full<float>({M}, -INFINITY), full<float>({M}, 1.0f)};
    auto [acc, m_i, l_i] = for_range(0, k.shape(0), N, init, [&](i32 n0, Tile<float> acc, Tile<float> m_i, Tile<float> l_i) {
      auto krows = expand_dims(n0 + arange(N), 1);
      auto s = dot(qt, transpose(load(k, {krows, cols})));
      auto m_ij = maximum(m_i, max(s, 1));
      auto p = exp2(s - expand_dims(m_ij, 1));
      auto alpha = exp2(m_i - m_ij);
      return Carry{dot(cast<bfloat16>(p), load(v, {krows, cols}), acc * expand_dims(alpha, 1)), m_ij, l_i * alpha + sum(p, 1)};
    });
    store(o, {rows, cols}, cast<bfloat16>(acc / expand_dims(l_i, 1)));
  }, options, warps);
}

}  // namespace cutlet::test
