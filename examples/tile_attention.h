// FlashAttention-2 forward as a tile kernel, written as Triton's fused-attention tutorial
// writes it: each program takes BLOCK_M = 128 queries of one (batch, head), loads them once,
// and walks the keys in blocks of BLOCK_N = 64 with an online softmax (running max m_i and sum
// l_i, the accumulator rescaled by alpha = exp2(m_old - m_new), scores scaled by
// sm_scale * log2(e) so that exp2 does the exponentials). Causal attention takes the
// tutorial's two stages: the key blocks before the diagonal without masks, then the diagonal
// blocks with the causal mask. Q, K, V and O are bf16 [B, H, S, D] tensors (any strides with a
// unit last one); D is 64 or 128; S need not be a multiple of the blocks (query rows and the
// last key block are masked). Shared by examples/tile_attention.cpp, its GPU test and its
// benchmark.
#pragma once

#include <cutlet/cutlet.h>

#include <cmath>
#include <tuple>
#include <utility>

namespace tile_attention {

using namespace cutlet;

constexpr int BLOCK_M = 128, BLOCK_N = 64;

/// What the key loops carry: the f32 accumulator [BLOCK_M, D], the running row max m_i and
/// the running row sum l_i (both [BLOCK_M], in the log2 domain).
using Carry = std::tuple<Tile<float>, Tile<float>, Tile<float>>;

/// The tutorial's _attn_fwd_inner: one loop over key blocks. STAGE 1: the blocks before the
/// diagonal (no masks); 2: the diagonal blocks (causal mask, keys past S masked on load);
/// 3: all full key blocks (non-causal, no masks); 4 (not in the tutorial, whose sequence length
/// is a multiple of BLOCK_N): the last, partial key block of a non-causal program, with the
/// keys past S masked.
inline Carry attn_fwd_inner(Carry carry, const Tile<bfloat16>& q, const Tensor<bfloat16, 4>& K, const Tensor<bfloat16, 4>& V,
                     i32 z, i32 h, i32 start_m, const Tile<std::int32_t>& offs_m, int D, f32 qk_scale, int STAGE) {
  auto S = K.shape(2);
  auto offs_n = arange(BLOCK_N);
  auto offs_d = arange(D);
  auto [lo, hi] = [&]() -> std::pair<i32, i32> {
    switch (STAGE) {
      case 1: return {i32(0), start_m * BLOCK_M};
      case 2: return {start_m * BLOCK_M, min((start_m + 1) * BLOCK_M, S)};
      case 3: return {i32(0), S / BLOCK_N * BLOCK_N};
      default: return {S / BLOCK_N * BLOCK_N, S};
    }
  }();
  const bool masked = STAGE == 2 || STAGE == 4;
  return for_range(lo, hi, BLOCK_N, carry, [&](i32 start_n, Tile<float> acc, Tile<float> m_i, Tile<float> l_i) {
    auto offs_kn = start_n + offs_n;
    auto krows = expand_dims(offs_kn, 1), cols = expand_dims(offs_d, 0);
    Tile<bfloat16> k = masked ? load(K, {z, h, krows, cols}, krows < S) : load(K, {z, h, krows, cols});
    auto qk = dot(q, transpose(k));  // [BLOCK_M, BLOCK_N], f32
    Tile<float> m_ij = m_i;
    if (masked) {
      // Stage 2: the causal mask offs_m[:, None] >= offs_n[None, :]; stage 4: the keys < S.
      // Added as a bias, as the tutorial does: where(mask, qk, -1e6) with the [1, BLOCK_N]
      // mask of stage 4 currently compiles to 16 times the exp2s and spills.
      auto mask = STAGE == 2 ? expand_dims(offs_m, 1) >= expand_dims(offs_kn, 0) : expand_dims(offs_kn, 0) < S;
      qk = qk * qk_scale + where(mask, zeros<float>(mask.shape()), -1.0e6f);
      m_ij = maximum(m_i, max(qk, 1));
      qk = qk - expand_dims(m_ij, 1);
    } else {
      m_ij = maximum(m_i, max(qk, 1) * qk_scale);
      qk = qk * qk_scale - expand_dims(m_ij, 1);
    }
    auto p = exp2(qk);
    auto l_ij = sum(p, 1);
    auto alpha = exp2(m_i - m_ij);
    l_i = l_i * alpha + l_ij;
    acc = acc * expand_dims(alpha, 1);
    Tile<bfloat16> v = masked ? load(V, {z, h, krows, cols}, krows < S) : load(V, {z, h, krows, cols});
    acc = dot(cast<bfloat16>(p), v, acc);
    return Carry{acc, m_ij, l_i};
  });
}

/// O = softmax(Q K^T * sm_scale) V for Q, K, V, O of [B, H, S, D]; grid (ceil(S / BLOCK_M), B * H).
inline auto make_attention(int warps = 8, int stages = 0) {
  return tile_kernel([](Tensor<bfloat16, 4> O, Tensor<bfloat16, 4> Q, Tensor<bfloat16, 4> K, Tensor<bfloat16, 4> V,
                        f32 sm_scale, Const<int> HEAD_DIM, Const<bool> CAUSAL) {
    const int D = HEAD_DIM;
    auto start_m = program_id(0);
    auto off_hz = program_id(1);
    auto H = Q.shape(1), S = Q.shape(2);
    auto z = off_hz / H, h = off_hz % H;
    auto offs_m = start_m * BLOCK_M + arange(BLOCK_M);
    auto rows = expand_dims(offs_m, 1), cols = expand_dims(arange(D), 0);
    auto row_ok = rows < S;
    auto qk_scale = sm_scale * 1.44269504f;  // 1 / ln(2)
    auto q = load(Q, {z, h, rows, cols}, row_ok);
    Carry carry{zeros<float>({BLOCK_M, D}), full<float>({BLOCK_M}, -INFINITY), full<float>({BLOCK_M}, 1.0f)};
    if (CAUSAL) {
      carry = attn_fwd_inner(carry, q, K, V, z, h, start_m, offs_m, D, qk_scale, 1);
      carry = attn_fwd_inner(carry, q, K, V, z, h, start_m, offs_m, D, qk_scale, 2);
    } else {
      carry = attn_fwd_inner(carry, q, K, V, z, h, start_m, offs_m, D, qk_scale, 3);
      carry = attn_fwd_inner(carry, q, K, V, z, h, start_m, offs_m, D, qk_scale, 4);
    }
    auto [acc, m_i, l_i] = carry;
    store(O, {z, h, rows, cols}, cast<bfloat16>(acc / expand_dims(l_i, 1)), row_ok);
  }, {.name = "tile_attention", .tile_stages = stages}, warps);
}

}  // namespace tile_attention
