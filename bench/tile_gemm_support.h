// Shared by the tile GEMM benchmarks: Triton's grouped program order, and the same-run timing
// of a cutlet GEMM against a library's.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "simt_bench_support.h"

namespace cutlet::bench {

/// The output tile (m, n) of a program in a tiles_m x tiles_n grid of tiles.
struct GemmTile {
  Value<std::int32_t> m;
  Value<std::int32_t> n;
};

/// The tile this program computes, in the order of Triton's matmul tutorial: program ids walk
/// the tiles 8 tile rows at a time, so that programs running together share the columns of
/// b in L2. Traced inside a tile kernel.
inline GemmTile grouped_gemm_tile(const Value<std::int32_t>& tiles_m, const Value<std::int32_t>& tiles_n) {
  constexpr int kGroup = 8;
  auto pid = program_id(0);
  auto in_group = kGroup * tiles_n;
  auto first_m = pid / in_group * kGroup;
  auto group_m = min(tiles_m - first_m, i32(kGroup));
  return {first_m + pid % in_group % group_m, pid % in_group / group_m};
}

/// A library a cutlet kernel is timed against: the counters' name for it, and one call.
struct Peer {
  std::string name;
  std::function<void()> run;
};

/// Times `run` (a cutlet GEMM, kernel `k`) and each of `peers` in the same iterations of
/// `state` (SameRun::time_iterations, `reps` calls each) and sets the TFLOP/s counters for
/// `flops` operations a call, <peer>_TFLOP/s and vs_<peer> for each peer, and the kernel's
/// registers.
template <class K>
void time_gemm_against(benchmark::State& state, const Stream& stream, int reps, double flops, const K& k,
                       std::function<void()> run, const std::vector<Peer>& peers) {
  SameRun runs;
  runs.add("cutlet", std::move(run));
  for (const Peer& p : peers) runs.add(p.name, p.run);
  const double med = runs.time_iterations(state, stream, reps);
  for (const Peer& p : peers) runs.set_tflops_counters(state, med, flops, p.name);
  state.counters["regs"] = registers_of(k);
}

}  // namespace cutlet::bench
