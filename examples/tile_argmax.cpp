// The best (largest score, then smallest id on ties) entry of each row, as a reduction with a
// user combine over a pair of tiles (score, id): a struct-like argmax.
// It compiles the kernel and prints its PTX size, then runs it and checks every row against the
// CPU: on the GPU, or on the CPU device where there is no CUDA driver or CUTLET_DEVICE=cpu asks
// for it.
#include <cutlet/cutlet.h>

#include <cstdio>
#include <random>
#include <vector>

using namespace cutlet;

int main() {
  auto best = tile_kernel([](Tensor<std::int32_t, 1> out_id, Tensor<float, 1> out_score, Tensor<float, 2> score,
                             Tensor<std::int32_t, 2> id, Const<int> BLOCK) {
    auto row = program_id(0);
    auto cols = arange(BLOCK);
    auto m = cols < score.shape(1);
    auto s = load(score, {row, cols}, m, Value<float>(-INFINITY));
    auto i = load(id, {row, cols}, m, Value<std::int32_t>(0x7fffffff));
    auto [bs, bi] = reduce(std::tuple{s, i}, 0, [](f32 s1, i32 i1, f32 s2, i32 i2) {
      Value<bool> right = (s2 > s1) | ((s2 == s1) & (i2 < i1));
      return std::tuple{select(right, s2, s1), select(right, i2, i1)};
    });
    store(out_id, {row}, bi);  // one element: bi is the row's (rank-0) result
    store(out_score, {row}, bs);
  }, {.name = "tile_argmax"});
  const int rows = 1000, cols = 700, block = 1024;
  auto compiled = best.compile(block);
  std::printf("tile_argmax: %zu bytes of PTX\n", compiled->ptx.size());

  const bool on_cpu = Device::cpu_selected() || !driver_available();
  if (on_cpu)
    std::printf("%s: running the kernel on the CPU device (compiled for the host CPU, the GPU's execution model).\n",
                Device::cpu_selected() ? "CUTLET_DEVICE=cpu" : "No GPU found (no CUDA driver)");
  const Device device = on_cpu ? Device::cpu() : Device(0);
  std::mt19937 rng(4);
  std::vector<float> hs(rows * cols);
  std::vector<std::int32_t> hi(rows * cols);
  for (auto& v : hs) v = static_cast<float>(rng() % 50);  // ties on purpose
  for (auto& v : hi) v = static_cast<std::int32_t>(rng() % 100000);
  Stream st(device);
  Buffer<float> s(st, hs), os(rows, st.device());
  Buffer<std::int32_t> ids(st, hi), oi(rows, st.device());
  best.launch(st, {.grid = rows}, tensor(oi, {rows}), tensor(os, {rows}), tensor(s, {rows, cols}), tensor(ids, {rows, cols}),
              block);
  auto ri = oi.to_host(st);
  auto rs = os.to_host(st);
  for (int r = 0; r < rows; ++r) {
    float bs = hs[r * cols];
    std::int32_t bi = hi[r * cols];
    for (int c = 1; c < cols; ++c)
      if (hs[r * cols + c] > bs || (hs[r * cols + c] == bs && hi[r * cols + c] < bi)) bs = hs[r * cols + c], bi = hi[r * cols + c];
    if (ri[r] != bi || rs[r] != bs) {
      std::printf("FAILED at row %d: got (%g, %d), want (%g, %d)\n", r, rs[r], ri[r], bs, bi);
      return 1;
    }
  }
  std::printf("%d rows: OK\n", rows);
  return 0;
}
