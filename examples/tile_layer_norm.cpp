// Layer norm forward as a tile kernel: each program normalizes one row (mean, variance,
// weight and bias), with rows narrower than the tile masked.
// It compiles the kernel and prints its PTX size and registers, then runs it and checks every
// element against the CPU: on the GPU, or on the CPU device (fewer rows) where there is no CUDA
// driver or CUTLET_DEVICE=cpu asks for it.
#include <cutlet/cutlet.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

using namespace cutlet;

int main() {
  auto layer_norm = tile_kernel([](Tensor<float, 2> y, Tensor<float, 2> x, Tensor<float, 1> w, Tensor<float, 1> b, f32 eps,
                                   Const<int> BLOCK) {
    auto row = program_id(0);
    auto cols = arange(BLOCK);
    auto m = cols < x.shape(1);
    auto v = load(x, {row, cols}, m);
    auto n = cast<float>(x.shape(1));
    auto mean = sum(v, 0).item() / n;
    auto d = where(m, v - mean, 0.0f);
    auto rstd = rsqrt(sum(d * d, 0).item() / n + eps);
    store(y, {row, cols}, d * rstd * load(w, {cols}, m) + load(b, {cols}, m), m);
  }, {.name = "tile_layer_norm"}, 8);
  const int cols = 3000, block = 4096;
  auto compiled = layer_norm.compile(block);
  std::printf("tile_layer_norm: %zu bytes of PTX, %d registers\n", compiled->ptx.size(), compiled->resources.registers);

  const bool on_cpu = Device::cpu_selected() || !driver_available();
  if (on_cpu)
    std::printf("%s: running the kernel on the CPU device (compiled for the host CPU, the GPU's execution model).\n",
                Device::cpu_selected() ? "CUTLET_DEVICE=cpu" : "No GPU found (no CUDA driver)");
  const Device device = on_cpu ? Device::cpu() : Device(0);
  const int rows = on_cpu ? 517 : 2053;
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> d(-2, 3);
  std::vector<float> hx(std::size_t(rows) * cols), hw(cols), hb(cols);
  for (auto& v : hx) v = d(rng);
  for (auto& v : hw) v = d(rng);
  for (auto& v : hb) v = d(rng);
  Stream s(device);
  Buffer<float> x(s, hx), w(s, hw), b(s, hb), y(std::size_t(rows) * cols, s.device());
  layer_norm.launch(s, {.grid = rows}, tensor(y, {rows, cols}), tensor(x, {rows, cols}), tensor(w, {cols}),
                    tensor(b, {cols}), 1e-5f, block);
  auto r = y.to_host(s);
  double worst = 0;
  for (int i = 0; i < rows; ++i) {
    double mean = 0, var = 0;
    for (int j = 0; j < cols; ++j) mean += hx[std::size_t(i) * cols + j];
    mean /= cols;
    for (int j = 0; j < cols; ++j) var += std::pow(hx[std::size_t(i) * cols + j] - mean, 2);
    const double rstd = 1 / std::sqrt(var / cols + 1e-5);
    for (int j = 0; j < cols; ++j)
      worst = std::max(worst, std::fabs(r[std::size_t(i) * cols + j] - ((hx[std::size_t(i) * cols + j] - mean) * rstd * hw[j] + hb[j])));
  }
  std::printf("%d x %d layer norm: largest error %.2e\n", rows, cols, worst);
  if (worst > 1e-4) {
    std::printf("FAILED\n");
    return 1;
  }
  std::printf("OK\n");
  return 0;
}
