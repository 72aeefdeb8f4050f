// Row-wise softmax, y[r][c] = exp(x[r][c] - max_r) / sum_c' exp(x[r][c'] - max_r), one block
// per row: the block's threads stride over the row, then combine their maxima and their sums
// with warp shuffles and one shared-memory slot per warp.
// It compiles the kernel and prints its PTX size and register use, then runs it on a random
// matrix of odd shape, checks every element against the CPU and times it: on the GPU, or on
// the CPU device (fewer rows) where there is no CUDA driver or CUTLET_DEVICE=cpu asks for it.
#include <cutlet/cutlet.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

using namespace cutlet;

namespace {

constexpr int kBlock = 256;
constexpr int kWarps = kBlock / warp_size;

/// `op` of `v` over the block's threads, returned to every thread. `slots` holds kWarps
/// floats of shared memory used by this call only.
template <class Op>
f32 block_allreduce(f32 v, SharedPtr<float> slots, Op op) {
  for (int d = warp_size / 2; d > 0; d /= 2) v = op(v, shfl_xor_sync(full_mask, v, d));
  if_(lane_id() == 0, [&] { slots[warp_id()] = v; });
  syncthreads();
  f32 r = slots[0];
  for (int w = 1; w < kWarps; ++w) r = op(r, slots[w]);  // every thread reads the kWarps slots
  return r;
}

auto make_softmax() {
  return kernel(
      [](Ptr<float> y, Ptr<float> x, i32 cols) {
        auto max_slots = shared_array<float>(kWarps);
        auto sum_slots = shared_array<float>(kWarps);
        i32 tid = thread_idx().x;
        i64 row_start = cast<std::int64_t>(block_idx().x) * cols;  // rows * cols may pass 2^31
        Ptr<float> in = x + row_start;
        Ptr<float> out = y + row_start;

        Var<float> m = -INFINITY;
        for_range(tid, cols, kBlock, [&](i32 c) { m = max(m, in[c]); });
        f32 row_max = block_allreduce(m, max_slots, [](f32 a, f32 b) { return max(a, b); });

        Var<float> s = 0.0f;
        for_range(tid, cols, kBlock, [&](i32 c) { s += exp(in[c] - row_max); });
        f32 row_sum = block_allreduce(s, sum_slots, [](f32 a, f32 b) { return a + b; });

        f32 scale = 1.0f / row_sum;
        for_range(tid, cols, kBlock, [&](i32 c) { out[c] = exp(in[c] - row_max) * scale; });
      },
      {.name = "softmax_rows"});
}

}  // namespace

int main() {
  auto softmax = make_softmax();
  auto compiled = softmax.compile();
  std::printf("softmax_rows: PTX %zu bytes, cubin %zu bytes, %d registers, %d bytes static shared memory, "
              "%d bytes spilled\n",
              compiled->ptx.size(), compiled->cubin.size(), compiled->resources.registers,
              compiled->resources.shared_bytes, compiled->resources.spill_store_bytes);

  const bool on_cpu = Device::cpu_selected() || !driver_available();
  if (on_cpu)
    std::printf("%s: running the kernel on the CPU device (compiled for the host CPU, the GPU's execution model).\n",
                Device::cpu_selected() ? "CUTLET_DEVICE=cpu" : "No GPU found (no CUDA driver)");
  const Device device = on_cpu ? Device::cpu() : Device(0);

  const int rows = on_cpu ? 1031 : 4099, cols = 1999;
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> dist(-8.0f, 8.0f);
  std::vector<float> hx(std::size_t(rows) * cols);
  for (auto& v : hx) v = dist(rng);

  Stream stream(device);
  Buffer<float> x(stream, hx), y(hx.size(), device);
  const LaunchConfig config{.grid = rows, .block = kBlock};
  softmax.launch(stream, config, y, x, cols);
  std::vector<float> hy = y.to_host(stream);

  long bad = 0;
  for (int r = 0; r < rows; ++r) {
    const float* xr = &hx[std::size_t(r) * cols];
    const double mx = *std::max_element(xr, xr + cols);
    double sum = 0;
    for (int c = 0; c < cols; ++c) sum += std::exp(double(xr[c]) - mx);
    for (int c = 0; c < cols; ++c) {
      const double want = std::exp(double(xr[c]) - mx) / sum;
      if (std::fabs(hy[std::size_t(r) * cols + c] - want) > 1e-5 * want + 1e-9) ++bad;
    }
  }

  Event start(device), stop(device);
  const int reps = on_cpu ? 3 : 20;
  start.record(stream);
  for (int r = 0; r < reps; ++r) softmax.launch(stream, config, y, x, cols);
  stop.record(stream);
  stop.synchronize();
  const double ms = Event::elapsed_ms(start, stop) / reps;
  std::printf("%s: softmax of %d rows x %d columns: %s (%ld mismatches), %.3f ms, %.0f GB/s\n",
              device.name().c_str(), rows, cols, bad == 0 ? "correct" : "WRONG", bad, ms,
              2.0 * sizeof(float) * hx.size() / (ms * 1e-3) / 1e9);
  return bad == 0 ? 0 : 1;
}
