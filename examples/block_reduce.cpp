// Sum of an array of floats: a grid-stride loop with 16-byte loads, a warp-shuffle
// reduction, per-warp partial sums in shared memory, and one atomic add per block.
// It compiles the kernel and prints its PTX size and register use, then runs it on a random
// array of odd size, checks the sum against the CPU and times it: on the GPU, or on the CPU
// device (a smaller array) where there is no CUDA driver or CUTLET_DEVICE=cpu asks for it.
#include <cutlet/cutlet.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

using namespace cutlet;

namespace {

constexpr int kBlock = 256;             // threads per block (a trace-time constant)
constexpr int kWarps = kBlock / warp_size;

/// The sum of `v` over the 32 lanes of the warp, in every lane (butterfly of xor shuffles).
f32 warp_sum(f32 v) {
  for (int d = warp_size / 2; d > 0; d /= 2) v = v + shfl_xor_sync(full_mask, v, d);
  return v;
}

auto make_block_sum() {
  return kernel(
      [](Ptr<float> out, Ptr<float> x, i32 n) {
        auto partial = shared_array<float>(kWarps);
        i32 tid = thread_idx().x;
        i32 global = block_idx().x * kBlock + tid;
        i32 threads = grid_dim().x * kBlock;

        // Each thread adds up float4s [global, global + threads, ...), then the last n % 4
        // floats, which the first threads of the grid take.
        Var<float> acc = 0.0f;
        i32 n4 = n / 4;
        for_range(global, n4, threads, [&](i32 i) {
          f32x4 v = x.vload<4>(i);
          acc += (v[0] + v[1]) + (v[2] + v[3]);
        });
        i32 tail = n4 * 4 + global;
        if_(tail < n, [&] { acc += x[tail]; });

        // Warp sums, then the first warp adds the block's kWarps warp sums.
        f32 w = warp_sum(acc);
        if_(lane_id() == 0, [&] { partial[warp_id()] = w; });
        syncthreads();
        if_(tid < warp_size, [&] {
          f32 p = if_(tid < kWarps, [&] { return partial[tid].load(); }, [&] { return 0.0f; });
          f32 s = warp_sum(p);
          if_(tid == 0, [&] { atomic_add(out[0], s); });  // one global atomic per block
        });
      },
      {.name = "block_sum"});
}

}  // namespace

int main() {
  auto block_sum = make_block_sum();
  auto compiled = block_sum.compile();
  std::printf("block_sum: PTX %zu bytes, cubin %zu bytes, %d registers, %d bytes static shared memory, %d bytes spilled\n",
              compiled->ptx.size(), compiled->cubin.size(), compiled->resources.registers,
              compiled->resources.shared_bytes, compiled->resources.spill_store_bytes);

  const bool on_cpu = Device::cpu_selected() || !driver_available();
  if (on_cpu)
    std::printf("%s: running the kernel on the CPU device (compiled for the host CPU, the GPU's execution model).\n",
                Device::cpu_selected() ? "CUTLET_DEVICE=cpu" : "No GPU found (no CUDA driver)");
  const Device device = on_cpu ? Device::cpu() : Device(0);

  std::mt19937 rng(1234);
  const int n = (on_cpu ? (1 << 20) : (1 << 24)) + static_cast<int>(rng() % 4096) * 2 + 1;  // odd, not a multiple of 4
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> hx(n);
  for (auto& v : hx) v = dist(rng);
  double want = 0, magnitude = 0;
  for (float v : hx) {
    want += v;
    magnitude += std::fabs(v);
  }

  Stream stream(device);
  Buffer<float> x(stream, hx), out(1, device);
  const LaunchConfig config{.grid = device.sm_count() * (2048 / kBlock), .block = kBlock};
  auto run = [&] {
    out.fill_bytes(stream, 0);
    block_sum.launch(stream, config, out, x, n);
  };
  run();
  const float got = out.to_host(stream)[0];
  // Float sums in another order differ by rounding: allow a few ulps of the sum of |x|.
  const bool ok = std::fabs(got - want) <= 1e-6 * magnitude;

  Event start(device), stop(device);
  const int reps = on_cpu ? 3 : 20;
  start.record(stream);
  for (int r = 0; r < reps; ++r) run();
  stop.record(stream);
  stop.synchronize();
  const double ms = Event::elapsed_ms(start, stop) / reps;
  std::printf("%s: sum of %d floats = %.6g (CPU %.6g): %s, %.3f ms, %.0f GB/s\n", device.name().c_str(), n, got, want,
              ok ? "correct" : "WRONG", ms, sizeof(float) * double(n) / (ms * 1e-3) / 1e9);
  return ok ? 0 : 1;
}
