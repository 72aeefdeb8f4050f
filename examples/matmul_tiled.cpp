// C = A * B in f32 with shared-memory tiles: each block computes a 32x32 tile of C, stepping
// through K in 32-wide slices of A and B that its threads stage in shared memory; each of
// its 32x8 threads keeps four outputs of one column in registers. The sizes are not
// multiples of the tile: loads outside A or B read zeros, and stores outside C are skipped.
// It compiles the kernel and prints its PTX size and register use, then multiplies random
// matrices, checks every element against the CPU and times it: on the GPU, or on the CPU
// device (smaller matrices) where there is no CUDA driver or CUTLET_DEVICE=cpu asks for it.
#include <cutlet/cutlet.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

using namespace cutlet;

namespace {

constexpr int kTile = 32;                 // C tile and K slice: kTile x kTile
constexpr int kRowsPerPass = 8;           // block is kTile x kRowsPerPass threads
constexpr int kRows = kTile / kRowsPerPass;  // outputs per thread (rows ty, ty + 8, ...)

auto make_matmul() {
  return kernel(
      [](Ptr<float> c, Ptr<float> a, Ptr<float> b, i32 m, i32 n, i32 k) {
        auto as = shared_array<float>(kTile * kTile);  // as[r * kTile + kk] = A[row0 + r][k0 + kk]
        auto bs = shared_array<float>(kTile * kTile);  // bs[kk * kTile + col] = B[k0 + kk][col0 + col]
        i32 tx = thread_idx().x, ty = thread_idx().y;
        i32 row0 = block_idx().y * kTile, col0 = block_idx().x * kTile;
        Var<float> acc[kRows];

        for_range(0, k, kTile, [&](i32 k0) {
          // Stage the two slices; each thread loads kRows elements of each, coalesced along x.
          for (int r = 0; r < kRows; ++r) {
            i32 rr = ty + r * kRowsPerPass;
            i32 ar = row0 + rr, ac = k0 + tx;
            as[rr * kTile + tx] = if_((ar < m) & (ac < k), [&] { return a[ar * k + ac].load(); }, [&] { return 0.0f; });
            i32 br = k0 + rr, bc = col0 + tx;
            bs[rr * kTile + tx] = if_((br < k) & (bc < n), [&] { return b[br * n + bc].load(); }, [&] { return 0.0f; });
          }
          syncthreads();
          // A warp reads one row of `as` (a broadcast) and 32 consecutive words of `bs`.
          for (int kk = 0; kk < kTile; ++kk) {
            f32 bv = bs[kk * kTile + tx];
            for (int r = 0; r < kRows; ++r) acc[r] += as[(ty + r * kRowsPerPass) * kTile + kk] * bv;
          }
          syncthreads();
        });

        i32 col = col0 + tx;
        for (int r = 0; r < kRows; ++r) {
          i32 row = row0 + ty + r * kRowsPerPass;
          if_((row < m) & (col < n), [&] { c[row * n + col] = acc[r]; });
        }
      },
      {.name = "matmul_tiled"});
}

}  // namespace

int main() {
  auto matmul = make_matmul();
  auto compiled = matmul.compile();
  std::printf("matmul_tiled: PTX %zu bytes, cubin %zu bytes, %d registers, %d bytes static shared memory, "
              "%d bytes spilled\n",
              compiled->ptx.size(), compiled->cubin.size(), compiled->resources.registers,
              compiled->resources.shared_bytes, compiled->resources.spill_store_bytes);

  const bool on_cpu = Device::cpu_selected() || !driver_available();
  if (on_cpu)
    std::printf("%s: running the kernel on the CPU device (compiled for the host CPU, the GPU's execution model).\n",
                Device::cpu_selected() ? "CUTLET_DEVICE=cpu" : "No GPU found (no CUDA driver)");
  const Device device = on_cpu ? Device::cpu() : Device(0);

  const int m = on_cpu ? 509 : 1021, n = on_cpu ? 389 : 777, k = on_cpu ? 259 : 515;  // none a multiple of 32
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> ha(std::size_t(m) * k), hb(std::size_t(k) * n);
  for (auto& v : ha) v = dist(rng);
  for (auto& v : hb) v = dist(rng);

  Stream stream(device);
  Buffer<float> a(stream, ha), b(stream, hb), c(std::size_t(m) * n, device);
  const LaunchConfig config{.grid = Dim3(ceil_div(n, kTile), ceil_div(m, kTile)), .block = Dim3(kTile, kRowsPerPass)};
  matmul.launch(stream, config, c, a, b, m, n, k);
  std::vector<float> hc = c.to_host(stream);

  long bad = 0;
  std::vector<double> row(n);
  for (int i = 0; i < m; ++i) {
    std::fill(row.begin(), row.end(), 0.0);
    std::vector<double> mag(n, 0.0);
    for (int p = 0; p < k; ++p) {
      const double av = ha[std::size_t(i) * k + p];
      for (int j = 0; j < n; ++j) {
        row[j] += av * hb[std::size_t(p) * n + j];
        mag[j] += std::fabs(av * hb[std::size_t(p) * n + j]);
      }
    }
    for (int j = 0; j < n; ++j)
      if (std::fabs(hc[std::size_t(i) * n + j] - row[j]) > 1e-5 * (1.0 + mag[j])) ++bad;
  }

  Event start(device), stop(device);
  const int reps = on_cpu ? 3 : 20;
  start.record(stream);
  for (int r = 0; r < reps; ++r) matmul.launch(stream, config, c, a, b, m, n, k);
  stop.record(stream);
  stop.synchronize();
  const double ms = Event::elapsed_ms(start, stop) / reps;
  std::printf("%s: C[%dx%d] = A[%dx%d] * B[%dx%d]: %s (%ld mismatches), %.3f ms, %.0f GFLOP/s\n",
              device.name().c_str(), m, n, m, k, k, n, bad == 0 ? "correct" : "WRONG", bad, ms,
              2.0 * m * n * k / (ms * 1e-3) / 1e9);
  return bad == 0 ? 0 : 1;
}
