// C = A @ B with bf16 A and B and f32 C as a tile kernel: each program computes a 128 x 128
// tile of C, looping over K in steps of 32 with the accumulator carried in registers and dot
// on tensor cores (mma.sync; on Hopper the launch builds for sm_90a and the dot runs on wgmma).
// Sizes need not be multiples of the tiles: edges are masked.
// It compiles the kernel and prints its PTX size, registers and shared memory, then runs it and
// checks every seventh row of C against the CPU: on the GPU, or on the CPU device where there is
// no CUDA driver or CUTLET_DEVICE=cpu asks for it.
#include <cutlet/cutlet.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

using namespace cutlet;

namespace {
constexpr int BM = 128, BN = 128, BK = 32;  // the tile of C per program, and the K step
}  // namespace

int main() {
  auto matmul = tile_kernel([](Tensor<float, 2> c, Tensor<bfloat16, 2> a, Tensor<bfloat16, 2> b) {
    auto rm = program_id(0) * BM + arange(BM);
    auto rn = program_id(1) * BN + arange(BN);
    auto rk = arange(BK);
    auto row_ok = expand_dims(rm, 1) < a.shape(0);
    auto col_ok = expand_dims(rn, 0) < b.shape(1);
    auto acc = for_range(0, a.shape(1), BK, zeros<float>({BM, BN}), [&](i32 k0, Tile<float> acc) {
      auto k = k0 + rk;
      auto ta = load(a, {expand_dims(rm, 1), expand_dims(k, 0)}, row_ok & (expand_dims(k, 0) < a.shape(1)));
      auto tb = load(b, {expand_dims(k, 1), expand_dims(rn, 0)}, (expand_dims(k, 1) < b.shape(0)) & col_ok);
      return dot(ta, tb, acc);
    });
    store(c, {expand_dims(rm, 1), expand_dims(rn, 0)}, acc, row_ok & col_ok);
  }, {.name = "tile_matmul"}, 8);
  auto compiled = matmul.compile();
  std::printf("tile_matmul: %zu bytes of PTX, %d registers, %d bytes of shared memory\n", compiled->ptx.size(),
              compiled->resources.registers, compiled->resources.shared_bytes);

  const bool on_cpu = Device::cpu_selected() || !driver_available();
  if (on_cpu)
    std::printf("%s: running the kernel on the CPU device (compiled for the host CPU, the GPU's execution model).\n",
                Device::cpu_selected() ? "CUTLET_DEVICE=cpu" : "No GPU found (no CUDA driver)");
  const Device device = on_cpu ? Device::cpu() : Device(0);
  const int M = 1000, N = 777, K = 520;
  std::mt19937 rng(9);
  std::uniform_real_distribution<float> d(-1, 1);
  std::vector<bfloat16> ha(std::size_t(M) * K), hb(std::size_t(K) * N);
  for (auto& v : ha) v = bfloat16(d(rng));
  for (auto& v : hb) v = bfloat16(d(rng));
  Stream s(device);
  Buffer<bfloat16> a(s, ha), b(s, hb);
  Buffer<float> c(std::size_t(M) * N, s.device());
  matmul.launch(s, {.grid = {ceil_div(M, BM), ceil_div(N, BN)}}, tensor(c, {M, N}), tensor(a, {M, K}), tensor(b, {K, N}));
  auto r = c.to_host(s);
  if (!on_cpu) {
    const bool wgmma = matmul.last_specialization()->compiled->ptx.find("wgmma.mma_async") != std::string::npos;
    std::printf("the launch's build: dot on %s\n", wgmma ? "wgmma (Hopper)" : "mma.sync");
  }
  double worst = 0;
  for (int i = 0; i < M; i += 7)
    for (int j = 0; j < N; ++j) {
      double want = 0;
      for (int k = 0; k < K; ++k) want += double(float(ha[std::size_t(i) * K + k])) * double(float(hb[std::size_t(k) * N + j]));
      worst = std::max(worst, std::fabs(r[std::size_t(i) * N + j] - want));
    }
  std::printf("%d x %d x %d bf16 matmul: largest error %.2e\n", M, N, K, worst);
  if (worst > 1e-3) {
    std::printf("FAILED\n");
    return 1;
  }
  std::printf("OK\n");
  return 0;
}
