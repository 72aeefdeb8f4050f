// The host side of the algorithms: BM_algorithms_first_call, the host time of an algorithm's
// first call with a user lambda no cache has seen in a warm process (trace, LLVM, PTX,
// nvJitLink and load of its two kernels, to the launches queued; target < 30 ms; each of
// kFirstCalls operators, made distinct by a constant in their IR, is called once), and
// BM_algorithms_host_cost, the host time of a cached call of reduce (two kernels, and its
// workspace from the stream's pool) and of inclusive_scan (a memset of its tile status and
// one kernel) against two raw cuLaunchKernel of nvcc's empty kernel (four parameters), batch against batch in
// the same iterations (target: <= 1.2x one raw launch per
// kernel or memset the call queues).
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include <cutlet/algorithms.h>

#include "simt_bench_support.h"

namespace cutlet::bench {
namespace {

namespace alg = cutlet::algorithms;

constexpr int kCalls = 200;      // calls per timed batch
constexpr int kFirstCalls = 8;   // distinct operators for the first-call figure
constexpr int kHostN = 1 << 20;  // small: the GPU keeps up with the host

/// a + b, made distinct per N by a constant that adds nothing (its IR differs, so no cache
/// shares its kernels with another N's).
template <int N>
struct DistinctPlus {
  f32 operator()(const f32& a, const f32& b) const { return a + b + cast<float>(i32(N) & i32(0)); }
};

struct HostEnv {
  Device device{0};
  Stream stream{device};
  Buffer<float> x{kHostN, device}, y{kHostN, device}, out{1, device};
  PFN_cuLaunchKernel_v4000 cu_launch = driver_fn<PFN_cuLaunchKernel_v4000>("cuLaunchKernel");

  HostEnv() {
    fill_random(stream, x, 5);
    alg::reduce(stream, x, out, alg::plus{}, 0.0f);  // compiles and loads: later calls hit
    alg::inclusive_scan(stream, x, y, alg::plus{});
    stream.synchronize();
    device.set_current();  // raw cuLaunchKernel needs the context current on this thread
  }

  /// One raw cuLaunchKernel of nvcc's empty(a, x, y, n) `f`, one block of 256 threads.
  void raw_launch(CUfunction f) {
    float a = 2.0f;
    CUdeviceptr xp = x.data(), yp = y.data();
    int n = kHostN;
    void* args[] = {&a, &xp, &yp, &n};
    check_cu(cu_launch(f, 1, 1, 1, 256, 1, 1, 0, static_cast<CUstream>(stream.handle()), args, nullptr),
             "cuLaunchKernel");
  }
};

HostEnv& host_env() {
  static auto e = std::make_unique<HostEnv>();
  return *e;
}

template <int... N>
std::vector<double> first_calls_ms(HostEnv& e, std::integer_sequence<int, N...>) {
  std::vector<double> ms;
  auto one = [&]<int M>(std::integral_constant<int, M>) {
    e.stream.synchronize();
    const auto t0 = std::chrono::steady_clock::now();
    alg::reduce(e.stream, e.x, e.out, DistinctPlus<M>{}, 0.0f);
    ms.push_back(ms_since(t0));
  };
  (one(std::integral_constant<int, N>{}), ...);
  return ms;
}

void BM_algorithms_first_call(benchmark::State& state) {
  if (!require_gpu(state)) return;
  guarded(state, [](benchmark::State& state) {
    HostEnv& e = host_env();
    std::vector<double> ms;
    for (auto _ : state) {
      ms = first_calls_ms(e, std::make_integer_sequence<int, kFirstCalls>{});
      state.SetIterationTime(median(ms) * 1e-3);
    }
    e.stream.synchronize();
    const float want = alg::reduce_value(e.stream, e.x, alg::plus{}, 0.0f);
    const float got = e.out.to_host(e.stream)[0];
    if (got != want) throw Error("cutlet_bench: reduce with a distinct operator gave a different sum");
    state.counters["median_ms"] = median(ms);
    state.counters["max_ms"] = *std::max_element(ms.begin(), ms.end());
  });
}

/// Host cost of a cached reduce (two launches) and inclusive_scan (a memset and a launch),
/// each against as many raw launches of its own first kernel.
void BM_algorithms_host_cost(benchmark::State& state) {
  if (!require_gpu(state)) return;
  guarded(state, [](benchmark::State& state) {
    HostEnv& e = host_env();
    const bool scan = state.range(0) != 0;
    // The raw baseline: two cuLaunchKernel of nvcc's empty kernel (four parameters), the
    // number of launches (or launch and memset) each call queues.
    Module baseline = load_baseline_module(e.device);
    Function empty = baseline.function("empty");
    auto empty_f = static_cast<CUfunction>(empty.handle());
    std::vector<double> cutlet_us, raw_us;
    for (auto _ : state) {
      const double c =
          scan ? host_us_per_call(e.stream, kCalls, [&] { alg::inclusive_scan(e.stream, e.x, e.y, alg::plus{}); })
               : host_us_per_call(e.stream, kCalls, [&] { alg::reduce(e.stream, e.x, e.out, alg::plus{}, 0.0f); });
      const double r = host_us_per_call(e.stream, kCalls, [&] {
        e.raw_launch(empty_f);
        e.raw_launch(empty_f);
      });
      state.SetIterationTime(c * 1e-6);
      cutlet_us.push_back(c);
      raw_us.push_back(r);
    }
    const double c = median(cutlet_us), r = median(raw_us);
    state.counters["us_per_call"] = c;
    state.counters["raw_us_per_2_launches"] = r;
    state.counters["vs_raw"] = c / r;
  });
}

}  // namespace

BENCHMARK(BM_algorithms_first_call)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK(BM_algorithms_host_cost)->Arg(0)->Arg(1)->UseManualTime()->Unit(benchmark::kMicrosecond)->Iterations(20);

}  // namespace cutlet::bench
