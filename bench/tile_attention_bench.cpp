// FlashAttention-2 forward, bf16, B = 4, H = 32, S = 4096, D 64 and 128, causal and not: the
// cutlet tile kernel of examples/tile_attention.cpp (Triton's fused-attention tutorial:
// BLOCK_M = 128, BLOCK_N = 64, online softmax in exp2, causal in two stages).
// TFLOP/s counts 4 * B * H * S^2 * D (two GEMMs), halved for causal. Peers on the H200
// (PyTorch SDPA, GPU.md, 2026-12-01; bench/peers/attention_peer.py measures them): D64 cuDNN /
// FA2 476 / 298 full, 420 / 279 causal; D128 cuDNN / FA2 669 / 346 full, 550 / 295 causal.
// First run (H200, 2026-12-01, 8 warps, 3 stages): D64 129 full / 115 causal, D128 111 / 105
// TFLOP/s; the peer script in the same session: FA2 299 / 265 and 348 / 305, cuDNN 451 / 403
// and 664 / 565. 2 to 4 stages and 4 warps changed the figures by a few percent at most.
//
// BM_tile_attention/d:D/causal:C/warps:W/stages:S.
#include <cmath>
#include <memory>
#include <tuple>
#include <utility>

#include "simt_bench_support.h"

namespace cutlet::bench {
namespace {

constexpr int kB = 4, kH = 32, kS = 4096, kMaxD = 128;
constexpr int BLOCK_M = 128, BLOCK_N = 64;
constexpr int kReps = 5;
constexpr int kIterations = 5;

using Carry = std::tuple<Tile<float>, Tile<float>, Tile<float>>;  ///< acc, m_i, l_i

/// Triton's _attn_fwd_inner (see examples/tile_attention.cpp): STAGE 1 the key blocks before
/// the diagonal, 2 the diagonal blocks (causal mask), 3 every full key block, 4 the last,
/// partial one (keys past S masked; no iterations when S is a multiple of BLOCK_N).
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

auto make_attention(int warps, int stages) {
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
  }, {.name = "bench_tile_attention", .tile_stages = stages}, warps);
}

/// A value in [-1, 1) from the index alone (a splitmix64 hash): fast for 2^26 elements.
float hashed_uniform(std::uint64_t i) {
  std::uint64_t x = i + 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  x ^= x >> 31;
  return static_cast<float>(x >> 40) * (2.0f / 16777216.0f) - 1.0f;
}

struct Env {
  static constexpr std::size_t kElems = std::size_t(kB) * kH * kS * kMaxD;
  Device device{0};
  Stream stream{device};
  std::vector<bfloat16> hq, hk, hv;
  Buffer<bfloat16> q, k, v, o{kElems, device};

  Env() {
    for (auto [h, seed] : {std::pair{&hq, 1ull}, std::pair{&hk, 2ull}, std::pair{&hv, 3ull}}) {
      h->resize(kElems);
      for (std::size_t i = 0; i < kElems; ++i) (*h)[i] = bfloat16(hashed_uniform(seed * kElems + i));
    }
    q = Buffer<bfloat16>(stream, hq);
    k = Buffer<bfloat16>(stream, hk);
    v = Buffer<bfloat16>(stream, hv);
  }
  /// Checks 12 rows of o (the first and last of a head among them) against the CPU, for the
  /// inputs viewed as [B, H, S, D].
  void verify(int D, bool causal, float sm_scale) {
    const std::size_t head = std::size_t(kS) * D;
    const std::pair<int, int> picks[] = {{0, 0},      {0, 1},    {0, kS - 1}, {5, 127}, {17, 128}, {31, 2047},
                                         {64, 2048}, {77, 4000}, {100, 63},   {127, 64}, {127, kS - 2}, {127, kS - 1}};
    std::vector<double> s(kS);
    std::vector<bfloat16> got(D);
    for (auto [bh, i] : picks) {
      const std::size_t base = bh * head;
      o.memory().copy_to_host(stream, got.data(), D * sizeof(bfloat16), (base + std::size_t(i) * D) * sizeof(bfloat16));
      stream.synchronize();
      const int last = causal ? i : kS - 1;
      double mx = -INFINITY, l = 0;
      for (int j = 0; j <= last; ++j) {
        double dot = 0;
        for (int d = 0; d < D; ++d) dot += double(float(hq[base + std::size_t(i) * D + d])) * float(hk[base + std::size_t(j) * D + d]);
        mx = std::max(mx, s[j] = dot * sm_scale);
      }
      for (int j = 0; j <= last; ++j) l += (s[j] = std::exp(s[j] - mx));
      for (int d = 0; d < D; ++d) {
        double want = 0;
        for (int j = 0; j <= last; ++j) want += s[j] * float(hv[base + std::size_t(j) * D + d]);
        want /= l;
        if (!(std::fabs(float(got[d]) - want) <= 4e-3 + 1e-2 * std::fabs(want)))
          throw Error("cutlet_bench: tile attention (D " + std::to_string(D) + (causal ? ", causal" : "") +
                      ") is wrong at head " + std::to_string(bh) + " row " + std::to_string(i) + " column " +
                      std::to_string(d) + ": got " + std::to_string(float(got[d])) + ", want " + std::to_string(want));
      }
    }
  }
};

Env& env() {
  static auto e = std::make_unique<Env>();
  return *e;
}

void BM_tile_attention(benchmark::State& state) {
  if (!require_gpu(state)) return;
  guarded(state, [](benchmark::State& state) {
    Env& e = env();
    const int D = static_cast<int>(state.range(0));
    const bool causal = state.range(1) != 0;
    const float sm_scale = 1.0f / std::sqrt(float(D));
    const double flops = 4.0 * kB * kH * double(kS) * kS * D * (causal ? 0.5 : 1.0);
    auto k = make_attention(static_cast<int>(state.range(2)), static_cast<int>(state.range(3)));
    auto run = [&] {
      k.launch(e.stream, {.grid = {kS / BLOCK_M, kB * kH}}, tensor(e.o, {kB, kH, kS, D}), tensor(e.q, {kB, kH, kS, D}),
               tensor(e.k, {kB, kH, kS, D}), tensor(e.v, {kB, kH, kS, D}), sm_scale, D, causal);
    };
    e.o.fill_bytes(e.stream, 0xFF);
    run();
    e.verify(D, causal, sm_scale);
    std::vector<double> ms;
    for (auto _ : state) {
      ms.push_back(gpu_median_ms(e.stream, run, kReps, 1));
      state.SetIterationTime(ms.back() * 1e-3);
    }
    state.counters["TFLOP/s"] = flops / (median(ms) * 1e-3) / 1e12;
    state.counters["regs"] = registers_of(k);
  });
}

}  // namespace

BENCHMARK(BM_tile_attention)->Name("BM_tile_attention")->ArgNames({"d", "causal", "warps", "stages"})
    ->ArgsProduct({{64, 128}, {0, 1}, {8}, {3}})
    ->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(kIterations);

}  // namespace cutlet::bench
