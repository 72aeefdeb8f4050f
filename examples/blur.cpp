// A 5x5 box blur of a 2-D float image with clamp-to-edge borders. Each 32x8 block stages
// its tile plus a 2-pixel halo (36x12 pixels) in shared memory, reading clamped coordinates
// at the image's borders, then each thread averages the 25 pixels around its own.
// It compiles the kernel and prints its PTX size and register use, then blurs a random image
// of odd size, checks every pixel against the CPU and times it: on the GPU, or on the CPU
// device (a smaller image) where there is no CUDA driver or CUTLET_DEVICE=cpu asks for it.
#include <cutlet/cutlet.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

using namespace cutlet;

namespace {

constexpr int kRadius = 2;
constexpr int kBlockX = 32, kBlockY = 8;
constexpr int kTileX = kBlockX + 2 * kRadius, kTileY = kBlockY + 2 * kRadius;
constexpr int kThreads = kBlockX * kBlockY;
constexpr int kTilePixels = kTileX * kTileY;

auto make_blur() {
  return kernel(
      [](Ptr<float> out, Ptr<float> in, i32 width, i32 height) {
        auto tile = shared_array<float>(kTilePixels);
        i32 tx = thread_idx().x, ty = thread_idx().y;
        i32 x0 = block_idx().x * kBlockX - kRadius, y0 = block_idx().y * kBlockY - kRadius;

        // Stage the tile and its halo: pixel p of the tile is loaded by thread p % kThreads.
        // Every thread takes part (also those outside the image), since all reach the barrier.
        i32 linear = ty * kBlockX + tx;
        for (int p = 0; p < kTilePixels; p += kThreads) {
          i32 l = linear + p;
          auto load = [&] {
            i32 gx = min(max(x0 + l % kTileX, 0), width - 1);
            i32 gy = min(max(y0 + l / kTileX, 0), height - 1);
            tile[l] = in[gy * width + gx];
          };
          if (p + kThreads <= kTilePixels) load();
          else if_(l < kTilePixels, load);
        }
        syncthreads();

        i32 x = x0 + kRadius + tx, y = y0 + kRadius + ty;
        if_((x < width) & (y < height), [&] {
          Var<float> sum = 0.0f;
          for (int dy = 0; dy <= 2 * kRadius; ++dy)
            for (int dx = 0; dx <= 2 * kRadius; ++dx) sum += tile[(ty + dy) * kTileX + tx + dx];
          out[y * width + x] = sum * (1.0f / ((2 * kRadius + 1) * (2 * kRadius + 1)));
        });
      },
      {.name = "box_blur5"});
}

}  // namespace

int main() {
  auto blur = make_blur();
  auto compiled = blur.compile();
  std::printf("box_blur5: PTX %zu bytes, cubin %zu bytes, %d registers, %d bytes static shared memory, "
              "%d bytes spilled\n",
              compiled->ptx.size(), compiled->cubin.size(), compiled->resources.registers,
              compiled->resources.shared_bytes, compiled->resources.spill_store_bytes);

  const bool on_cpu = Device::cpu_selected() || !driver_available();
  if (on_cpu)
    std::printf("%s: running the kernel on the CPU device (compiled for the host CPU, the GPU's execution model).\n",
                Device::cpu_selected() ? "CUTLET_DEVICE=cpu" : "No GPU found (no CUDA driver)");
  const Device device = on_cpu ? Device::cpu() : Device(0);

  const int width = on_cpu ? 1001 : 3001, height = on_cpu ? 503 : 2003;  // neither a multiple of the block
  std::mt19937 rng(8);
  std::uniform_real_distribution<float> dist(0.0f, 1.0f);
  std::vector<float> himg(std::size_t(width) * height);
  for (auto& v : himg) v = dist(rng);

  Stream stream(device);
  Buffer<float> in(stream, himg), out(himg.size(), device);
  const LaunchConfig config{.grid = Dim3(ceil_div(width, kBlockX), ceil_div(height, kBlockY)),
                            .block = Dim3(kBlockX, kBlockY)};
  blur.launch(stream, config, out, in, width, height);
  std::vector<float> got = out.to_host(stream);

  long bad = 0;
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      double sum = 0;
      for (int dy = -kRadius; dy <= kRadius; ++dy)
        for (int dx = -kRadius; dx <= kRadius; ++dx)
          sum += himg[std::size_t(std::clamp(y + dy, 0, height - 1)) * width + std::clamp(x + dx, 0, width - 1)];
      const double want = sum / ((2 * kRadius + 1) * (2 * kRadius + 1));
      if (std::fabs(got[std::size_t(y) * width + x] - want) > 1e-5) ++bad;
    }

  Event start(device), stop(device);
  const int reps = on_cpu ? 3 : 20;
  start.record(stream);
  for (int r = 0; r < reps; ++r) blur.launch(stream, config, out, in, width, height);
  stop.record(stream);
  stop.synchronize();
  const double ms = Event::elapsed_ms(start, stop) / reps;
  std::printf("%s: 5x5 box blur of a %dx%d image: %s (%ld mismatches), %.3f ms, %.0f GB/s\n", device.name().c_str(),
              width, height, bad == 0 ? "correct" : "WRONG", bad, ms,
              2.0 * sizeof(float) * himg.size() / (ms * 1e-3) / 1e9);
  return bad == 0 ? 0 : 1;
}
