// Cumulative sums along the rows of a matrix as a tile kernel: each program scans one row of
// up to 4096 elements in registers, warp shuffles and shared memory.
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
  if (!driver_available()) {
    std::printf("No GPU found (no CUDA driver): compiled only.\n");
    return 0;
  }
  std::mt19937 rng(2);
  std::vector<std::int64_t> h(std::size_t(rows) * cols);
  for (auto& v : h) v = static_cast<std::int64_t>(rng() % 2000001) - 1000000;
  Stream s;
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
