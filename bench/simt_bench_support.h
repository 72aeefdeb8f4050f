// Helpers of the vector saxpy, reduction and histogram benchmarks: CUB error checks, launch
// shapes, register counts and same-run timing of several implementations.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "bench_support.h"
#include "cub_baselines.h"
#include "simt_shapes.h"

namespace cutlet::bench {

/// Throws cutlet::Error naming `what` unless the CUB call returned cudaSuccess.
inline void check_cub(int error, const char* what) {
  if (error != 0) [[unlikely]]
    throw Error(std::string("cutlet_bench: ") + what + " failed: " + cutlet_cub_error_string(error));
}

/// The grid of a streaming kernel over `units` 16-byte vectors with `unroll` of them per
/// thread and tile: `blocks_per_sm` blocks per SM (a grid-stride loop), or for 0 one block per
/// tile (at least one block).
inline long long stream_grid(const Device& device, long long units, int unroll, int blocks_per_sm) {
  if (blocks_per_sm > 0) return static_cast<long long>(device.sm_count()) * blocks_per_sm;
  const long long tile = static_cast<long long>(cutlet_bench_shapes::kBlock) * unroll;
  return units >= tile ? (units + tile - 1) / tile : 1;
}

/// Registers per thread of the specialization `k` launched last.
template <class K>
int registers_of(const K& k) {
  auto s = k.last_specialization();
  return s ? s->compiled->resources.registers : -1;
}

/// GPU times of several implementations measured in the same benchmark iterations,
/// alternating, so that their ratios are same-run ratios.
class SameRun {
 public:
  /// Adds an implementation: `run` queues one call on the stream.
  void add(const std::string& name, std::function<void()> run) { impls_.push_back({name, std::move(run), {}}); }

  /// One benchmark iteration: for each implementation in turn, the median of `reps` event-timed
  /// calls after one warm-up call. Returns the first implementation's median (ms).
  double iterate(const Stream& stream, int reps) {
    for (auto& i : impls_) i.ms.push_back(gpu_median_ms(stream, i.run, reps, 1));
    return impls_.front().ms.back();
  }

  /// Runs the benchmark's iterations, each one iterate() with its first implementation's time
  /// as the iteration's (manual) time; returns the median of those times (ms).
  double time_iterations(benchmark::State& state, const Stream& stream, int reps) {
    std::vector<double> ms;
    for (auto _ : state) {
      ms.push_back(iterate(stream, reps));
      state.SetIterationTime(ms.back() * 1e-3);
    }
    return median(ms);
  }

  /// Sets the counters of a matrix kernel of `flops` operations a call timed (the first
  /// implementation, median `ms`) against library `peer`: TFLOP/s, <peer>_TFLOP/s and vs_<peer>.
  void set_tflops_counters(benchmark::State& state, double ms, double flops, const std::string& peer) const {
    const double peer_ms = median_ms(peer);
    state.counters["TFLOP/s"] = flops / (ms * 1e-3) / 1e12;
    state.counters[peer + "_TFLOP/s"] = flops / (peer_ms * 1e-3) / 1e12;
    state.counters["vs_" + peer] = peer_ms / ms;
  }

  /// The median over iterations of implementation `name`'s times (ms); 0 if unknown.
  double median_ms(const std::string& name) const {
    for (const auto& i : impls_)
      if (i.name == name) return median(i.ms);
    return 0;
  }

 private:
  struct Impl {
    std::string name;
    std::function<void()> run;
    std::vector<double> ms;
  };
  std::vector<Impl> impls_;
};

}  // namespace cutlet::bench
