// z = x + y as a tile kernel: each program adds one 1024-element tile, masked at the end.
// It compiles the kernel, then runs it, checks every element and times it: on the GPU, or on
// the CPU device (fewer elements) where there is no CUDA driver or CUTLET_DEVICE=cpu asks for it.
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

  const bool on_cpu = Device::cpu_selected() || !driver_available();
  if (on_cpu)
    std::printf("%s: running the kernel on the CPU device (compiled for the host CPU, the GPU's execution model).\n",
                Device::cpu_selected() ? "CUTLET_DEVICE=cpu" : "No GPU found (no CUDA driver)");
  const Device device = on_cpu ? Device::cpu() : Device(0);
  const int n = on_cpu ? (1 << 22) + 3 : (1 << 26) + 3;
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> d(-1, 1);
  std::vector<float> hx(n), hy(n);
  for (int i = 0; i < n; ++i) hx[i] = d(rng), hy[i] = d(rng);
  Stream s(device);
  Buffer<float> x(s, hx), y(s, hy), z(n, s.device());
  auto run = [&] { add.launch(s, {.grid = static_cast<int>(ceil_div(n, 1024))}, tensor(z, {n}), tensor(x, {n}), tensor(y, {n})); };
  run();
  auto r = z.to_host(s);
  for (int i = 0; i < n; ++i)
    if (r[i] != hx[i] + hy[i]) {
      std::printf("FAILED at %d\n", i);
      return 1;
    }
  Event a(device), b(device);
  const int reps = on_cpu ? 3 : 20;
  a.record(s);
  for (int k = 0; k < reps; ++k) run();
  b.record(s);
  b.synchronize();
  const double ms = Event::elapsed_ms(a, b) / reps;
  std::printf("%d floats: %.3f ms, %.0f GB/s\nOK\n", n, ms, 3.0 * 4 * n / (ms * 1e-3) / 1e9);
  return 0;
}
