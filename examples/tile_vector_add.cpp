// z = x + y as a tile kernel: each program adds one 1024-element tile, masked at the end.
// Without a GPU it compiles the kernel; with one it checks every element and times it.
#include <cutlet/cutlet.h>

#include <cstdio>
#include <random>
#include <vector>

using namespace cutlet;

int main() {
  auto add = tile_kernel([](Tensor<float, 1> z, Tensor<float, 1> x, Tensor<float, 1> y) {
    auto i = program_id(0) * 1024 + arange(1024);
    auto m = i < x.shape(0);
    store(z, {i}, load(x, {i}, m) + load(y, {i}, m), m);
  }, {.name = "tile_vector_add"});
  auto compiled = add.compile();
  std::printf("tile_vector_add: %zu bytes of PTX, %d registers\n", compiled->ptx.size(), compiled->resources.registers);
  if (!driver_available()) {
    std::printf("No GPU found (no CUDA driver): compiled only.\n");
    return 0;
  }
  const int n = (1 << 26) + 3;
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> d(-1, 1);
  std::vector<float> hx(n), hy(n);
  for (int i = 0; i < n; ++i) hx[i] = d(rng), hy[i] = d(rng);
  Stream s;
  Buffer<float> x(s, hx), y(s, hy), z(n, s.device());
  auto run = [&] { add.launch(s, {.grid = static_cast<int>(ceil_div(n, 1024))}, tensor(z, {n}), tensor(x, {n}), tensor(y, {n})); };
  run();
  auto r = z.to_host(s);
  for (int i = 0; i < n; ++i)
    if (r[i] != hx[i] + hy[i]) {
      std::printf("FAILED at %d\n", i);
      return 1;
    }
  Event a(s.device()), b(s.device());
  a.record(s);
  for (int k = 0; k < 20; ++k) run();
  b.record(s);
  b.synchronize();
  const double ms = Event::elapsed_ms(a, b) / 20;
  std::printf("%d floats: %.3f ms, %.0f GB/s\nOK\n", n, ms, 3.0 * 4 * n / (ms * 1e-3) / 1e9);
  return 0;
}
