// A 256-bin histogram of the top byte of 32-bit values: each block counts into its own
// histogram in shared memory with shared-memory atomics, then adds its 256 counts to the
// global histogram with one global atomic per bin.
// It compiles the kernel and prints its PTX size and register use, then runs it on random
// values (an odd count), checks every bin against the CPU and times it: on the GPU, or on the
// CPU device (fewer values) where there is no CUDA driver or CUTLET_DEVICE=cpu asks for it.
#include <cutlet/cutlet.h>

#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

using namespace cutlet;

namespace {

constexpr int kBins = 256;
constexpr int kBlock = 256;  // one thread per bin for clearing and merging
static_assert(kBlock == kBins);

auto make_histogram() {
  return kernel(
      [](Ptr<std::uint32_t> hist, Ptr<std::uint32_t> data, i32 n) {
        auto local = shared_array<std::uint32_t>(kBins);
        i32 tid = thread_idx().x;
        local[tid] = 0u;
        syncthreads();

        // Grid-stride loop: count the value's top byte in the block's histogram.
        for_range(block_idx().x * kBlock + tid, n, grid_dim().x * kBlock, [&](i32 i) {
          u32 bin = data[i] >> 24u;
          atomic_add(local[bin], 1u, Scope::Block);
        });
        syncthreads();

        // Merge: thread b adds bin b of this block to the global histogram.
        u32 count = local[tid];
        if_(count != 0u, [&] { atomic_add(hist[tid], count); });
      },
      {.name = "histogram256"});
}

}  // namespace

int main() {
  auto histogram = make_histogram();
  auto compiled = histogram.compile();
  std::printf("histogram256: PTX %zu bytes, cubin %zu bytes, %d registers, %d bytes static shared memory, "
              "%d bytes spilled\n",
              compiled->ptx.size(), compiled->cubin.size(), compiled->resources.registers,
              compiled->resources.shared_bytes, compiled->resources.spill_store_bytes);

  const bool on_cpu = Device::cpu_selected() || !driver_available();
  if (on_cpu)
    std::printf("%s: running the kernel on the CPU device (compiled for the host CPU, the GPU's execution model).\n",
                Device::cpu_selected() ? "CUTLET_DEVICE=cpu" : "No GPU found (no CUDA driver)");
  const Device device = on_cpu ? Device::cpu() : Device(0);

  std::mt19937 rng(77);
  const int n = (on_cpu ? (1 << 20) : (1 << 24)) + static_cast<int>(rng() % 4096) * 2 + 1;
  std::vector<std::uint32_t> hdata(n);
  // Skewed values, so that some bins are hot and shared atomics collide: the top byte is
  // the bitwise AND of two random bytes, mostly small.
  for (auto& v : hdata) v = static_cast<std::uint32_t>(rng()) & (rng() | 0x00ffffffu);
  std::vector<std::uint32_t> want(kBins, 0);
  for (std::uint32_t v : hdata) ++want[v >> 24];

  Stream stream(device);
  Buffer<std::uint32_t> data(stream, hdata), hist(kBins, device);
  const LaunchConfig config{.grid = device.sm_count() * (2048 / kBlock), .block = kBlock};
  auto run = [&] {
    hist.fill_bytes(stream, 0);
    histogram.launch(stream, config, hist, data, n);
  };
  run();
  std::vector<std::uint32_t> got = hist.to_host(stream);
  int bad = 0;
  for (int b = 0; b < kBins; ++b) bad += got[b] != want[b];

  Event start(device), stop(device);
  const int reps = on_cpu ? 3 : 20;
  start.record(stream);
  for (int r = 0; r < reps; ++r) run();
  stop.record(stream);
  stop.synchronize();
  const double ms = Event::elapsed_ms(start, stop) / reps;
  std::printf("%s: 256-bin histogram of %d values: %s (%d wrong bins), %.3f ms, %.1f Gelem/s\n",
              device.name().c_str(), n, bad == 0 ? "correct" : "WRONG", bad, ms, n / (ms * 1e-3) / 1e9);
  return bad == 0 ? 0 : 1;
}
