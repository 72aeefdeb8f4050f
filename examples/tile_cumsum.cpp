// Cumulative sums along the rows of a matrix as a tile kernel: each program scans one row of
// up to 4096 elements in registers, warp shuffles and shared memory.
// It compiles the kernel and prints its PTX size, then runs it and checks every element against
// the CPU: on the GPU, or on the CPU device where there is no CUDA driver or CUTLET_DEVICE=cpu
// asks for it.
#include <cutlet/cutlet.h>

#include <cstdio>
#include <random>
#include <vector>

using namespace cutlet;

int main() {
  auto cumsum_rows = tile_kernel([](Tensor<std::int64_t, 2> y, Tensor<std::int64_t, 2> x, Const<int> BLOCK) {
    auto row = program_id(0);
    auto cols = arange(BLOCK);
    auto m = cols < x.shape(1);
    store(y, {row, cols}, cumsum(load(x, {row, cols}, m), 0), m);
  }, {.name = "tile_cumsum"});
  const int rows = 513, cols = 3001, block = 4096;
  auto compiled = cumsum_rows.compile(block);
  std::printf("tile_cumsum: %zu bytes of PTX\n", compiled->ptx.size());

  const bool on_cpu = Device::cpu_selected() || !driver_available();
  if (on_cpu)
    std::printf("%s: running the kernel on the CPU device (compiled for the host CPU, the GPU's execution model).\n",
                Device::cpu_selected() ? "CUTLET_DEVICE=cpu" : "No GPU found (no CUDA driver)");
  const Device device = on_cpu ? Device::cpu() : Device(0);
  std::mt19937 rng(2);
  std::vector<std::int64_t> h(std::size_t(rows) * cols);
  for (auto& v : h) v = static_cast<std::int64_t>(rng() % 2000001) - 1000000;
  Stream s(device);
  Buffer<std::int64_t> x(s, h), y(std::size_t(rows) * cols, s.device());
  cumsum_rows.launch(s, {.grid = rows}, tensor(y, {rows, cols}), tensor(x, {rows, cols}), block);
  auto r = y.to_host(s);
  for (int i = 0; i < rows; ++i) {
    std::int64_t acc = 0;
    for (int j = 0; j < cols; ++j) {
      acc += h[std::size_t(i) * cols + j];
      if (r[std::size_t(i) * cols + j] != acc) {
        std::printf("FAILED at (%d, %d)\n", i, j);
        return 1;
      }
    }
  }
  std::printf("%d x %d: OK\n", rows, cols);
  return 0;
}
