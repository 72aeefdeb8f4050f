// FlashAttention-2 forward (tile_attention.h: Triton's fused-attention tutorial in cutlet's
// tile language) on bf16 [B, H, S, D] tensors, D 64 and 128, causal and not.
// It compiles the four kernels and prints their PTX size, registers and shared memory, then
// checks them on the GPU against a CPU reference. Where there is no CUDA driver, or
// CUTLET_DEVICE=cpu asks for it, it checks two of them on the CPU device, D 64 causal and D 128
// non-causal, which between them take every stage of the key loop (compiling a kernel for the
// host takes about a second).
#include <cutlet/cutlet.h>

#include "tile_attention.h"

#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

using namespace cutlet;

namespace {

using tile_attention::BLOCK_M;
using tile_attention::make_attention;

/// The CPU reference in float (double sums) for contiguous [B, H, S, D] inputs.
std::vector<float> reference(const std::vector<bfloat16>& q, const std::vector<bfloat16>& k,
                             const std::vector<bfloat16>& v, int BH, int S, int D, bool causal, float sm_scale) {
  std::vector<float> out(std::size_t(BH) * S * D);
  std::vector<double> s(S);
  for (int bh = 0; bh < BH; ++bh) {
    const std::size_t base = std::size_t(bh) * S * D;
    for (int i = 0; i < S; ++i) {
      const int last = causal ? i : S - 1;
      double mx = -INFINITY;
      for (int j = 0; j <= last; ++j) {
        double dotp = 0;
        for (int d = 0; d < D; ++d) dotp += double(float(q[base + std::size_t(i) * D + d])) * float(k[base + std::size_t(j) * D + d]);
        s[j] = dotp * sm_scale;
        mx = std::max(mx, s[j]);
      }
      double l = 0;
      for (int j = 0; j <= last; ++j) l += (s[j] = std::exp(s[j] - mx));
      for (int d = 0; d < D; ++d) {
        double o = 0;
        for (int j = 0; j <= last; ++j) o += s[j] * float(v[base + std::size_t(j) * D + d]);
        out[base + std::size_t(i) * D + d] = static_cast<float>(o / l);
      }
    }
  }
  return out;
}

}  // namespace

int main() {
  auto attention = make_attention();
  for (int D : {64, 128})
    for (bool causal : {false, true}) {
      auto compiled = attention.compile(D, causal);
      std::printf("tile_attention D=%d %s: %zu bytes of PTX, %d registers, %d bytes of shared memory\n", D,
                  causal ? "causal    " : "non-causal", compiled->ptx.size(), compiled->resources.registers,
                  compiled->resources.shared_bytes + compiled->resources.dynamic_shared_bytes);
    }

  const bool on_cpu = Device::cpu_selected() || !driver_available();
  if (on_cpu)
    std::printf("%s: running the kernels on the CPU device (compiled for the host CPU, the GPU's execution model).\n",
                Device::cpu_selected() ? "CUTLET_DEVICE=cpu" : "No GPU found (no CUDA driver)");
  const Device device = on_cpu ? Device::cpu() : Device(0);
  const int B = 1, H = 2, S = 383;
  Stream s(device);
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> dist(-1.5f, 1.5f);
  bool ok = true;
  for (int D : {64, 128}) {
    const std::size_t n = std::size_t(B) * H * S * D;
    std::vector<bfloat16> hq(n), hk(n), hv(n);
    for (auto* h : {&hq, &hk, &hv})
      for (auto& x : *h) x = bfloat16(dist(rng));
    Buffer<bfloat16> q(s, hq), k(s, hk), v(s, hv), o(n, s.device());
    const float sm_scale = 1.0f / std::sqrt(float(D));
    for (bool causal : {false, true}) {
      if (on_cpu && causal != (D == 64)) continue;  // two of the four on the CPU device
      o.fill_bytes(s, 0xFF);  // NaN: rows the kernel leaves unwritten show
      attention.launch(s, {.grid = {ceil_div(S, BLOCK_M), B * H}}, tensor(o, {B, H, S, D}), tensor(q, {B, H, S, D}),
                       tensor(k, {B, H, S, D}), tensor(v, {B, H, S, D}), sm_scale, D, causal);
      auto got = o.to_host(s);
      auto want = reference(hq, hk, hv, B * H, S, D, causal, sm_scale);
      double worst = 0;
      for (std::size_t i = 0; i < n; ++i) {
        const double e = std::fabs(double(float(got[i])) - want[i]);
        worst = std::isnan(e) ? INFINITY : std::max(worst, e);
      }
      const bool pass = worst <= 1e-2;
      ok = ok && pass;
      // On Hopper the launch builds for sm_90a, and both dots run on wgmma.
      const bool wgmma = attention.last_specialization()->compiled->ptx.find("wgmma.mma_async") != std::string::npos;
      std::printf("B=%d H=%d S=%d D=%d %s attention (dots on %s): largest error %.2e %s\n", B, H, S, D,
                  causal ? "causal    " : "non-causal", on_cpu ? "the CPU" : wgmma ? "wgmma" : "mma.sync", worst,
                  pass ? "" : "(above 1e-2)");
    }
  }
  std::printf(ok ? "OK\n" : "FAILED\n");
  return ok ? 0 : 1;
}
