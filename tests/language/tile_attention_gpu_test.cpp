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

#include "gpu_test_support.h"
#include "kernel_test_support.h"
#include "tile_attention.h"

using namespace cutlet;
using namespace cutlet::test;

namespace {

using tile_attention::BLOCK_M;
using tile_attention::make_attention;

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
