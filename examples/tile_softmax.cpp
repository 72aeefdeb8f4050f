// Row softmax as a tile kernel: each program (block) loads one row as a tile, masked to the
// row's width, and computes exp(x - max) / sum on whole tiles; cutlet spreads the tile over
// the block's threads, vectorizes the loads and stores, and reduces with warp shuffles.
// It compiles the kernel and prints its PTX size and registers, then runs it on a random matrix
// whose width is not the tile's, checks every element and times it: on the GPU, or on the CPU
// device (fewer rows) where there is no CUDA driver or CUTLET_DEVICE=cpu asks for it.
#include <cutlet/cutlet.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

using namespace cutlet;

int main() {
  auto softmax = tile_kernel([](Tensor<float, 2> out, Tensor<float, 2> in, Const<int> BLOCK) {
    auto row = program_id(0);
    auto cols = arange(BLOCK);
    auto mask = cols < in.shape(1);
    auto x = load(in, {row, cols}, mask, Value<float>(-INFINITY));
    auto e = exp(x - max(x, 0));
    store(out, {row, cols}, e / sum(e, 0), mask);
  }, {.name = "tile_softmax"});

  const int cols = 3000, block = 4096;
  auto compiled = softmax.compile(block);
  std::printf("tile_softmax: %zu bytes of PTX, %d registers per thread\n", compiled->ptx.size(),
              compiled->resources.registers);

  const bool on_cpu = Device::cpu_selected() || !driver_available();
  if (on_cpu)
    std::printf("%s: running the kernel on the CPU device (compiled for the host CPU, the GPU's execution model).\n",
                Device::cpu_selected() ? "CUTLET_DEVICE=cpu" : "No GPU found (no CUDA driver)");
  const Device device = on_cpu ? Device::cpu() : Device(0);
  const int rows = on_cpu ? 1031 : 4099;
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-5.0f, 5.0f);
  std::vector<float> h(std::size_t(rows) * cols);
  for (auto& v : h) v = dist(rng);
  Stream s(device);
  Buffer<float> in(s, h), out(std::size_t(rows) * cols, s.device());
  auto launch = [&] { softmax.launch(s, {.grid = rows}, tensor(out, {rows, cols}), tensor(in, {rows, cols}), block); };
  launch();
  auto r = out.to_host(s);
  double worst = 0;
  for (int i = 0; i < rows; ++i) {
    double m = -INFINITY, sum = 0;
    for (int j = 0; j < cols; ++j) m = std::max<double>(m, h[std::size_t(i) * cols + j]);
    for (int j = 0; j < cols; ++j) sum += std::exp(h[std::size_t(i) * cols + j] - m);
    for (int j = 0; j < cols; ++j)
      worst = std::max(worst, std::fabs(r[std::size_t(i) * cols + j] - std::exp(h[std::size_t(i) * cols + j] - m) / sum));
  }
  Event start(device), stop(device);
  const int reps = on_cpu ? 3 : 20;
  start.record(s);
  for (int k = 0; k < reps; ++k) launch();
  stop.record(s);
  stop.synchronize();
  const double ms = Event::elapsed_ms(start, stop) / reps;
  std::printf("%d x %d softmax: largest error %.2e, %.3f ms, %.0f GB/s\n", rows, cols, worst, ms,
              2.0 * 4 * rows * cols / (ms * 1e-3) / 1e9);
  if (worst > 1e-6) {
    std::printf("FAILED: error above 1e-6\n");
    return 1;
  }
  std::printf("OK\n");
  return 0;
}
