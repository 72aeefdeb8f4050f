// Kernels run on the CPU (HostKernel) against the same machine's memcpy and the same
// computation written as plain C++ loops with OpenMP, timed in the same iterations; needs no
// GPU. BM_host_saxpy and BM_host_tile_softmax report bandwidth against memcpy's (bytes read
// and written); BM_host_block_reduce and BM_host_histogram against OpenMP's time on the same
// data. Each kernel is checked against the C++ first.
#include <benchmark/benchmark.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include <cutlet/backend/host_kernel.h>
#include <cutlet/cutlet.h>

namespace cutlet::bench {
namespace {

constexpr int kBlock = 256;
constexpr int kWarps = kBlock / warp_size;
constexpr int kReps = 5;

/// The median over `reps` calls of `fn`'s wall time in ms, after one warm-up call.
double median_ms(const std::function<void()>& fn, int reps = kReps) {
  fn();
  std::vector<double> ms;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    fn();
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

/// Times `cutlet_run` and `peer_run` in the same iterations of `state` and sets GB/s for
/// `bytes` and `peer_bytes` moved per call, and vs_<peer>: the ratio of the two (for the same
/// work, the peer's time over cutlet's).
void time_against(benchmark::State& state, const std::function<void()>& cutlet_run, const std::function<void()>& peer_run,
                  const std::string& peer, double bytes, double peer_bytes) {
  std::vector<double> mine, theirs;
  for (auto _ : state) {
    mine.push_back(median_ms(cutlet_run));
    theirs.push_back(median_ms(peer_run));
    state.SetIterationTime(mine.back() * 1e-3);
  }
  std::sort(mine.begin(), mine.end());
  std::sort(theirs.begin(), theirs.end());
  const double gbs = bytes / (mine[mine.size() / 2] * 1e-3) / 1e9;
  const double peer_gbs = peer_bytes / (theirs[theirs.size() / 2] * 1e-3) / 1e9;
  state.counters["GB/s"] = gbs;
  state.counters[peer + "_GB/s"] = peer_gbs;
  state.counters["vs_" + peer] = gbs / peer_gbs;
}

std::vector<float> random_floats(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

/// memcpy of `bytes` bytes from `src` to `dst`, split over the OpenMP threads.
void parallel_memcpy(void* dst, const void* src, std::size_t bytes) {
  const int threads = omp_get_max_threads();
#pragma omp parallel for
  for (int t = 0; t < threads; ++t) {
    const std::size_t lo = bytes * t / threads, hi = bytes * (t + 1) / threads;
    std::memcpy(static_cast<char*>(dst) + lo, static_cast<const char*>(src) + lo, hi - lo);
  }
}

void BM_host_saxpy(benchmark::State& state) {
  const int n = 1 << 26;
  auto k = kernel([](Ptr<float> y, Ptr<float> x, f32 a, i32 n) {
    i32 i = block_idx().x * kBlock + thread_idx().x;
    if_(i < n, [&] { y[i] = a * x[i] + y[i]; });
  }, {.name = "host_bench_saxpy"});
  const HostKernel host = HostKernel::compile(k.trace_ir<Ptr<float>, Ptr<float>, f32, i32>());
  std::vector<float> x = random_floats(n, 1), y = random_floats(n, 2), y0 = y, copy(n);
  float a = 1.5f;
  int count = n;
  float* py = y.data();
  float* px = x.data();
  void* args[] = {&py, &px, &a, &count};
  const HostDim grid{static_cast<std::uint32_t>((n + kBlock - 1) / kBlock)};
  host.run(grid, {kBlock}, args);
  for (int i = 0; i < n; i += 9973)
    if (std::fabs(y[i] - (a * x[i] + y0[i])) > 1e-5f * (1 + std::fabs(y[i])))
      state.SkipWithError(("saxpy on the CPU is wrong at " + std::to_string(i)).c_str());
  // saxpy reads x and y and writes y (12 bytes an element); the copy reads and writes 8.
  time_against(state, [&] { host.run(grid, {kBlock}, args); },
               [&] { parallel_memcpy(copy.data(), x.data(), sizeof(float) * n); }, "memcpy", 12.0 * n, 8.0 * n);
}

/// The sum of `v` over the warp's lanes, in every lane.
f32 warp_sum(f32 v) {
  for (int d = warp_size / 2; d > 0; d /= 2) v = v + shfl_xor_sync(full_mask, v, d);
  return v;
}

/// The block reduction of the block_reduce example: a grid-stride loop, warp shuffles, per-warp
/// sums in shared memory, a barrier, one atomic per block.
void BM_host_block_reduce(benchmark::State& state) {
  const int n = 1 << 26;
  auto k = kernel([](Ptr<float> out, Ptr<float> x, i32 n) {
    auto partial = shared_array<float>(kWarps);
    i32 tid = thread_idx().x;
    Var<float> acc = 0.0f;
    for_range(block_idx().x * kBlock + tid, n, grid_dim().x * kBlock, [&](i32 i) { acc += x[i]; });
    f32 w = warp_sum(acc);
    if_(lane_id() == 0, [&] { partial[warp_id()] = w; });
    syncthreads();
    if_(tid < warp_size, [&] {
      f32 p = if_(tid < kWarps, [&] { return partial[tid].load(); }, [&] { return 0.0f; });
      f32 s = warp_sum(p);
      if_(tid == 0, [&] { atomic_add(out[0], s); });
    });
  }, {.name = "host_bench_block_reduce"});
  const HostKernel host = HostKernel::compile(k.trace_ir<Ptr<float>, Ptr<float>, i32>());
  std::vector<float> x = random_floats(n, 3);
  float out = 0.0f, omp_out = 0.0f;
  float* po = &out;
  float* px = x.data();
  int count = n;
  void* args[] = {&po, &px, &count};
  const HostDim grid{static_cast<std::uint32_t>(4 * omp_get_max_threads())};
  auto run = [&] {
    out = 0.0f;
    host.run(grid, {kBlock}, args);
  };
  auto omp = [&] {
    float s = 0.0f;
#pragma omp parallel for simd reduction(+ : s)
    for (int i = 0; i < n; ++i) s += x[i];
    omp_out = s;
  };
  run();
  omp();
  if (std::fabs(out - omp_out) > 1e-3f * n / 1000) state.SkipWithError("the block reduction on the CPU is wrong");
  time_against(state, run, omp, "openmp", 4.0 * n, 4.0 * n);
}

/// A 256-bin histogram through shared memory: bins zeroed, shared atomics, a barrier, one
/// global atomic per bin and block.
void BM_host_histogram(benchmark::State& state) {
  const int n = 1 << 26;
  auto k = kernel([](Ptr<std::uint32_t> hist, Ptr<std::uint32_t> x, i32 n) {
    auto bins = shared_array<std::uint32_t>(256);
    i32 tid = thread_idx().x;
    bins[tid] = std::uint32_t{0};
    syncthreads();
    for_range(block_idx().x * kBlock + tid, n, grid_dim().x * kBlock,
              [&](i32 i) { atomic_add(bins[cast<int>(x[i] & 255u)], std::uint32_t{1}); });
    syncthreads();
    atomic_add(hist[tid], bins[tid].load());
  }, {.name = "host_bench_histogram"});
  const HostKernel host = HostKernel::compile(k.trace_ir<Ptr<std::uint32_t>, Ptr<std::uint32_t>, i32>());
  std::mt19937 rng(4);
  std::vector<std::uint32_t> x(n), hist(256), omp_hist(256);
  for (auto& v : x) v = rng();
  std::uint32_t* ph = hist.data();
  std::uint32_t* px = x.data();
  int count = n;
  void* args[] = {&ph, &px, &count};
  const HostDim grid{static_cast<std::uint32_t>(4 * omp_get_max_threads())};
  auto run = [&] {
    std::fill(hist.begin(), hist.end(), 0u);
    host.run(grid, {kBlock}, args);
  };
  auto omp = [&] {
    std::fill(omp_hist.begin(), omp_hist.end(), 0u);
#pragma omp parallel
    {
      std::uint32_t local[256] = {};
#pragma omp for nowait
      for (int i = 0; i < n; ++i) ++local[x[i] & 255u];
#pragma omp critical
      for (int b = 0; b < 256; ++b) omp_hist[b] += local[b];
    }
  };
  run();
  omp();
  if (hist != omp_hist) state.SkipWithError("the histogram on the CPU is wrong");
  time_against(state, run, omp, "openmp", 4.0 * n, 4.0 * n);
}

void BM_host_tile_softmax(benchmark::State& state) {
  const int rows = 4096, cols = 1024;
  auto softmax = tile_kernel([](Tensor<float, 2> out, Tensor<float, 2> in, Const<int> BLOCK) {
    auto row = program_id(0);
    auto c = arange(BLOCK);
    auto mask = c < in.shape(1);
    auto x = load(in, {row, c}, mask, Value<float>(-INFINITY));
    auto e = exp(x - max(x, 0));
    store(out, {row, c}, e / sum(e, 0), mask);
  }, {.name = "host_bench_tile_softmax", .target = Target::host_cpu()}, 4);
  const HostKernel host = HostKernel::compile(softmax.trace_ir<Tensor<float, 2>, Tensor<float, 2>, Const<int>>(cols));
  std::vector<float> in = random_floats(std::size_t(rows) * cols, 5), out(in.size()), copy(in.size());
  auto as_tensor = [&](std::vector<float>& v) {
    TensorArg<float, 2> t;
    t.data = reinterpret_cast<std::uint64_t>(v.data());
    t.shape[0] = rows;
    t.shape[1] = cols;
    t.strides[0] = cols;
    t.strides[1] = 1;
    return t.generic();
  };
  auto to = as_tensor(out), ti = as_tensor(in);
  void* args[] = {&to, &ti};
  host.run({rows}, {128}, args);
  for (int r = 0; r < rows; r += 511) {
    double m = -INFINITY, s = 0;
    for (int c = 0; c < cols; ++c) m = std::max<double>(m, in[std::size_t(r) * cols + c]);
    for (int c = 0; c < cols; ++c) s += std::exp(in[std::size_t(r) * cols + c] - m);
    const double want = std::exp(in[std::size_t(r) * cols] - m) / s;
    if (std::fabs(out[std::size_t(r) * cols] - want) > 1e-6) state.SkipWithError("the softmax on the CPU is wrong");
  }
  time_against(state, [&] { host.run({rows}, {128}, args); },
               [&] { parallel_memcpy(copy.data(), in.data(), sizeof(float) * in.size()); }, "memcpy", 8.0 * in.size(),
               8.0 * in.size());
}

}  // namespace

BENCHMARK(BM_host_saxpy)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(BM_host_block_reduce)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(BM_host_histogram)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(BM_host_tile_softmax)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(3);

}  // namespace cutlet::bench
