// FlashAttention-2 forward, bf16, B = 4, H = 32, S = 4096, D 64 and 128, causal and not: the
// tile kernel of examples/tile_attention.h (Triton's fused-attention tutorial: BLOCK_M = 128,
// BLOCK_N = 64, online softmax in exp2, causal in two stages). TFLOP/s counts
// 4 * B * H * S^2 * D (two GEMMs), halved for causal. The peers (PyTorch SDPA's FlashAttention-2
// and cuDNN backends) are timed by bench/peers/attention_peer.py in the same device command;
// figures in bench/RESULTS.md.
//
// BM_tile_attention/d:D/causal:C/warps:W/stages:S.
#include <cmath>
#include <memory>
#include <tuple>
#include <utility>

#include "simt_bench_support.h"
#include "tile_attention.h"

namespace cutlet::bench {
namespace {

constexpr int kB = 4, kH = 32, kS = 4096, kMaxD = 128;
constexpr int kReps = 5;
constexpr int kIterations = 5;
using tile_attention::BLOCK_M;
using tile_attention::BLOCK_N;
using tile_attention::make_attention;

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
    ->ArgsProduct({{64, 128}, {0, 1}, {4, 8}, {2, 3}})
    ->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(kIterations);

}  // namespace cutlet::bench
