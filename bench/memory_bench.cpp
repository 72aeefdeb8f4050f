// Stream-ordered allocation: a 1 MiB allocate + free pair from cutlet's pool resource (and as
// a Buffer) against cuMemAllocAsync/cuMemFreeAsync called directly, in one run; plus
// synchronous cuMemAlloc/cuMemFree for scale.
#include <cstddef>
#include <limits>
#include <memory>
#include <utility>
#include <vector>

#include "bench_support.h"

namespace cutlet::bench {
namespace {

constexpr std::size_t kBytes = std::size_t{1} << 20;  ///< 1 MiB per allocation
constexpr int kBatch = 1000;                           ///< allocate+free pairs per timed batch
constexpr int kIterations = 50;

/// A stream, a pool of cutlet's own (release threshold: keep everything) and the raw entry
/// points, made once per process; the device's default pool keeps everything too, so that
/// both sides reuse memory alike.
struct MemoryEnv {
  Device device{0};
  Stream stream{device};
  std::shared_ptr<PoolMemoryResource> pool = std::make_shared<PoolMemoryResource>(
      device, PoolOptions{.release_threshold = std::numeric_limits<std::size_t>::max()});
  PFN_cuMemAllocAsync_v11020 alloc_async = driver_fn<PFN_cuMemAllocAsync_v11020>("cuMemAllocAsync");
  PFN_cuMemAllocFromPoolAsync_v11020 alloc_from_pool =
      driver_fn<PFN_cuMemAllocFromPoolAsync_v11020>("cuMemAllocFromPoolAsync");
  PFN_cuMemFreeAsync_v11020 free_async = driver_fn<PFN_cuMemFreeAsync_v11020>("cuMemFreeAsync");
  PFN_cuMemAlloc_v3020 mem_alloc = driver_fn<PFN_cuMemAlloc_v3020>("cuMemAlloc");
  PFN_cuMemFree_v3020 mem_free = driver_fn<PFN_cuMemFree_v3020>("cuMemFree");

  MemoryEnv() {
    PoolMemoryResource::device_default(device)->set_release_threshold(std::numeric_limits<std::size_t>::max());
    // Warm both pools so that no timed batch pays for growing them.
    for (int i = 0; i < 4; ++i) {
      pool->deallocate(pool->allocate(kBytes, stream), kBytes, stream);
      raw_pair();
    }
    stream.synchronize();
  }

  CUstream cu_stream() const { return static_cast<CUstream>(stream.handle()); }

  void raw_pair() {
    device.set_current();
    CUdeviceptr p = 0;
    check_cu(alloc_async(&p, kBytes, cu_stream()), "cuMemAllocAsync");
    check_cu(free_async(p, cu_stream()), "cuMemFreeAsync");
  }
};

MemoryEnv& env() {
  static auto e = std::make_unique<MemoryEnv>();
  return *e;
}

/// Host microseconds per allocate+free pair over a batch of kBatch (host_us_per_call).
template <class F>
double us_per_pair(const Stream& stream, F&& pair) {
  return host_us_per_call(stream, kBatch, std::forward<F>(pair));
}

/// PoolMemoryResource::allocate + deallocate of 1 MiB on a stream. Each iteration also times
/// a batch of cuMemAllocAsync + cuMemFreeAsync called directly, so "vs_raw" is a same-run ratio.
void BM_pool_alloc_free_1MiB(benchmark::State& state) {
  if (!require_gpu(state)) return;
  guarded(state, [](benchmark::State& state) {
    MemoryEnv& e = env();
    std::vector<double> ours, raw;
    for (auto _ : state) {
      const double c = us_per_pair(e.stream, [&] { e.pool->deallocate(e.pool->allocate(kBytes, e.stream), kBytes, e.stream); });
      state.SetIterationTime(c * 1e-6);
      ours.push_back(c);
      raw.push_back(us_per_pair(e.stream, [&] { e.raw_pair(); }));
    }
    const double c = median(ours), r = median(raw);
    state.counters["us_per_pair"] = c;
    state.counters["raw_us_per_pair"] = r;
    state.counters["vs_raw"] = r > 0 ? c / r : 0;
  });
}

/// A Buffer<std::byte> of 1 MiB made on a stream from the pool and destroyed (freed on the
/// stream): the resource call plus the Buffer's bookkeeping (shared resource and stream).
void BM_pool_buffer_1MiB(benchmark::State& state) {
  if (!require_gpu(state)) return;
  guarded(state, [](benchmark::State& state) {
    MemoryEnv& e = env();
    std::vector<double> us;
    for (auto _ : state) {
      us.push_back(us_per_pair(e.stream, [&] { Buffer<std::byte> b(kBytes, e.stream, e.pool); benchmark::DoNotOptimize(b.data()); }));
      state.SetIterationTime(us.back() * 1e-6);
    }
    state.counters["us_per_pair"] = median(us);
  });
}

/// cuMemAllocFromPoolAsync + cuMemFreeAsync on cutlet's pool, called directly (the floor for
/// BM_pool_alloc_free_1MiB on the same pool).
void BM_raw_pool_alloc_free_1MiB(benchmark::State& state) {
  if (!require_gpu(state)) return;
  guarded(state, [](benchmark::State& state) {
    MemoryEnv& e = env();
    const auto pool = static_cast<CUmemoryPool>(e.pool->handle());
    std::vector<double> us;
    for (auto _ : state) {
      us.push_back(us_per_pair(e.stream, [&] {
        CUdeviceptr p = 0;
        check_cu(e.alloc_from_pool(&p, kBytes, pool, e.cu_stream()), "cuMemAllocFromPoolAsync");
        check_cu(e.free_async(p, e.cu_stream()), "cuMemFreeAsync");
      }));
      state.SetIterationTime(us.back() * 1e-6);
    }
    state.counters["us_per_pair"] = median(us);
  });
}

/// cuMemAllocAsync + cuMemFreeAsync (the device's default pool) called directly.
void BM_cuMemAllocAsync_free_1MiB(benchmark::State& state) {
  if (!require_gpu(state)) return;
  guarded(state, [](benchmark::State& state) {
    MemoryEnv& e = env();
    std::vector<double> us;
    for (auto _ : state) {
      us.push_back(us_per_pair(e.stream, [&] { e.raw_pair(); }));
      state.SetIterationTime(us.back() * 1e-6);
    }
    state.counters["us_per_pair"] = median(us);
  });
}

/// Synchronous cuMemAlloc + cuMemFree of 1 MiB, for scale.
void BM_cuMemAlloc_free_1MiB(benchmark::State& state) {
  if (!require_gpu(state)) return;
  guarded(state, [](benchmark::State& state) {
    MemoryEnv& e = env();
    std::vector<double> us;
    for (auto _ : state) {
      e.device.set_current();
      us.push_back(us_per_pair(e.stream, [&] {
        CUdeviceptr p = 0;
        check_cu(e.mem_alloc(&p, kBytes), "cuMemAlloc");
        check_cu(e.mem_free(p), "cuMemFree");
      }));
      state.SetIterationTime(us.back() * 1e-6);
    }
    state.counters["us_per_pair"] = median(us);
  });
}

}  // namespace

BENCHMARK(BM_pool_alloc_free_1MiB)->UseManualTime()->Unit(benchmark::kMicrosecond)->Iterations(kIterations);
BENCHMARK(BM_pool_buffer_1MiB)->UseManualTime()->Unit(benchmark::kMicrosecond)->Iterations(kIterations);
BENCHMARK(BM_raw_pool_alloc_free_1MiB)->UseManualTime()->Unit(benchmark::kMicrosecond)->Iterations(kIterations);
BENCHMARK(BM_cuMemAllocAsync_free_1MiB)->UseManualTime()->Unit(benchmark::kMicrosecond)->Iterations(kIterations);
BENCHMARK(BM_cuMemAlloc_free_1MiB)->UseManualTime()->Unit(benchmark::kMicrosecond)->Iterations(kIterations);

}  // namespace cutlet::bench
