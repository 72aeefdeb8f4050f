// FlashAttention-2 forward as a tile kernel (the kernel of examples/tile_attention.cpp, as
// Triton's fused-attention tutorial writes it) against a CPU reference: D 64 and 128, causal
// and not, sequence lengths that are and are not multiples of the 128-query and 64-key
// blocks (one row, one past a block, odd), several batches and heads, a strided (B, S, H, D)
// layout, and 4 as well as 8 warps. Outputs are poisoned first, and elements past the end
// must stay poisoned.
#include <cmath>
#include <cstring>
#include <tuple>
#include <utility>

#include "dsl/kernel_test_support.h"
#include "gpu_test_support.h"

using namespace cutlet;
using namespace cutlet::test;

namespace {

constexpr int BLOCK_M = 128, BLOCK_N = 64;

/// acc [BLOCK_M, D], m_i and l_i [BLOCK_M] (log2 domain).
using Carry = std::tuple<Tile<float>, Tile<float>, Tile<float>>;

/// One loop over key blocks (Triton's _attn_fwd_inner). STAGE 1: the blocks before the
/// diagonal, no masks; 2: the diagonal blocks, causal mask; 3: every full key block, no masks;
/// 4: the last, partial key block (keys past S masked).
Carry attn_fwd_inner(Carry carry, const Tile<bfloat16>& q, const Tensor<bfloat16, 4>& K, const Tensor<bfloat16, 4>& V,
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
    auto qk = dot(q, transpose(k));
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

auto make_attention(int warps) {
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
    auto qk_scale = sm_scale * 1.44269504f;
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
  }, {.name = "tile_attention"}, warps);
}

struct Case {
  int B, H, S, D;
  bool bshd = false;  ///< memory laid out as (B, S, H, D) (torch's usual), passed with strides
  float sm_scale = 0;  ///< 0: 1 / sqrt(D)
  int warps = 8;
};

std::string str(const Case& c, bool causal) {
  return "B=" + std::to_string(c.B) + " H=" + std::to_string(c.H) + " S=" + std::to_string(c.S) + " D=" +
         std::to_string(c.D) + (c.bshd ? " (B,S,H,D) layout" : "") + (causal ? " causal" : " non-causal") + ", " +
         std::to_string(c.warps) + " warps";
}

void check_attention(const Case& c) {
  const int B = c.B, H = c.H, S = c.S, D = c.D;
  const float sm_scale = c.sm_scale != 0 ? c.sm_scale : 1.0f / std::sqrt(float(D));
  const std::size_t n = std::size_t(B) * H * S * D;
  // Element (b, h, s, d) is at b * sb + h * sh + s * ss + d.
  const std::int64_t sb = std::int64_t(H) * S * D, sh = c.bshd ? D : std::int64_t(S) * D, ss = c.bshd ? std::int64_t(H) * D : D;
  auto at = [&](int b, int h, int s, int d) { return std::size_t(b * sb + h * sh + s * ss + d); };
  auto to_bf16 = [](const std::vector<float>& v) {
    std::vector<bfloat16> r;
    for (float x : v) r.push_back(bfloat16(x));
    return r;
  };
  auto hq = to_bf16(random_vector<float>(n, 31 + S, -2.0f, 2.0f));
  auto hk = to_bf16(random_vector<float>(n, 32 + S, -2.0f, 2.0f));
  auto hv = to_bf16(random_vector<float>(n, 33 + S, -1.0f, 1.0f));
  Stream st;
  Buffer<bfloat16> q(st, hq), k(st, hk), v(st, hv);
  auto kernel = make_attention(c.warps);
  const std::uint16_t poison = [&] {
    auto p = poisoned<bfloat16>(st, 1).to_host(st)[0];
    std::uint16_t bits;
    std::memcpy(&bits, &p, 2);
    return bits;
  }();
  auto as_tensor = [&](const Buffer<bfloat16>& buf) {
    return tensor<bfloat16>(buf.data(), {B, H, S, D}, {sb, sh, ss, 1});
  };
  std::vector<double> s(S);
  for (bool causal : {false, true}) {
    auto o = poisoned<bfloat16>(st, n + 64);  // the 64 past the end must stay poisoned
    kernel.launch(st, {.grid = {static_cast<int>(ceil_div(S, BLOCK_M)), B * H}}, as_tensor(o), as_tensor(q), as_tensor(k),
                  as_tensor(v), sm_scale, D, causal);
    auto got = o.to_host(st);
    for (int b = 0; b < B; ++b)
      for (int h = 0; h < H; ++h)
        for (int i = 0; i < S; ++i) {
          const int last = causal ? i : S - 1;
          double mx = -INFINITY;
          for (int j = 0; j <= last; ++j) {
            double dot = 0;
            for (int d = 0; d < D; ++d) dot += double(float(hq[at(b, h, i, d)])) * double(float(hk[at(b, h, j, d)]));
            s[j] = dot * sm_scale;
            mx = std::max(mx, s[j]);
          }
          double l = 0;
          for (int j = 0; j <= last; ++j) l += (s[j] = std::exp(s[j] - mx));
          for (int d = 0; d < D; ++d) {
            double want = 0;
            for (int j = 0; j <= last; ++j) want += s[j] * double(float(hv[at(b, h, j, d)]));
            want /= l;
            ASSERT_NEAR(float(got[at(b, h, i, d)]), want, 4e-3 + 1e-2 * std::fabs(want))
                << str(c, causal) << ": b=" << b << " h=" << h << " row " << i << " column " << d;
          }
        }
    for (std::size_t i = n; i < n + 64; ++i) {
      std::uint16_t bits;
      std::memcpy(&bits, &got[i], 2);
      ASSERT_EQ(bits, poison) << str(c, causal) << ": element " << i << " past the end was written";
    }
  }
}

TEST(TileAttentionGpu, OddSequenceLengthD64) {
  CUTLET_REQUIRE_GPU();
  check_attention({1, 2, 383, 64});
}
TEST(TileAttentionGpu, OddSequenceLengthD128) {
  CUTLET_REQUIRE_GPU();
  check_attention({1, 2, 383, 128});
}
TEST(TileAttentionGpu, SequenceOfWholeBlocks) {
  CUTLET_REQUIRE_GPU();
  check_attention({1, 2, 256, 64});
  check_attention({1, 1, 384, 128});
}
TEST(TileAttentionGpu, OneRowAndOnePastABlock) {
  CUTLET_REQUIRE_GPU();
  check_attention({1, 1, 1, 64});
  check_attention({2, 3, 129, 128});
  check_attention({1, 2, 65, 64});
}
TEST(TileAttentionGpu, BatchesAndHeadsInTheBSHDLayout) {
  CUTLET_REQUIRE_GPU();
  check_attention({2, 3, 100, 64, true});
  check_attention({2, 2, 200, 128, true, 0.25f});
}
TEST(TileAttentionGpu, FourWarps) {
  CUTLET_REQUIRE_GPU();
  check_attention({1, 2, 300, 64, false, 0, 4});
  check_attention({1, 2, 300, 128, false, 0, 4});
}

}  // namespace
