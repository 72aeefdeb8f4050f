// Inclusive prefix sum in one pass with decoupled look-back (Merrill and Garland, 2016).
//
// Each block takes the next tile id from an atomic counter (so a block only ever waits for
// tiles whose blocks started earlier and are running: no deadlock whatever order the GPU
// schedules blocks in), scans its tile (a thread scan of 4 items, warp scans with shuffles,
// and the warp totals through shared memory), and publishes the tile's sum as an
// "aggregate" in a 64-bit status word per tile: flag in the high half, value in the low
// half, written with one atomic exchange so that flag and value are seen together. Its
// first warp then looks back over the preceding tiles, 32 status words at a time, read with
// atomics: it adds up aggregates until it meets a tile that has published its inclusive
// prefix, then publishes its own inclusive prefix for the tiles after it.
//
// It compiles the kernel and prints its PTX size and register use, then scans random integers
// (an odd count), checks every element against the CPU and times it: on the GPU, or on the CPU
// device (fewer integers) where there is no CUDA driver or CUTLET_DEVICE=cpu asks for it.
#include <cutlet/cutlet.h>

#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

using namespace cutlet;

namespace {

constexpr int kBlock = 256;
constexpr int kItems = 4;  // consecutive items per thread: one 16-byte load
constexpr int kTile = kBlock * kItems;
constexpr int kWarps = kBlock / warp_size;

// Status word flags (high 32 bits); the low 32 bits hold the value.
constexpr std::uint64_t kInvalid = 0;    // nothing published yet
constexpr std::uint64_t kAggregate = 1;  // the tile's own sum
constexpr std::uint64_t kPrefix = 2;     // the sum of this tile and every tile before it

u64 pack(std::uint64_t flag, const i32& value) {
  return (cast<std::uint64_t>(bitcast<std::uint32_t>(value))) | (flag << 32);
}
u64 flag_of(const u64& status) { return status >> 32u; }
i32 value_of(const u64& status) { return bitcast<std::int32_t>(cast<std::uint32_t>(status)); }

/// Inclusive scan of `v` over the lanes of the warp (Kogge-Stone with shuffles up).
i32 warp_inclusive_scan(i32 v) {
  i32 lane = lane_id();
  for (int d = 1; d < warp_size; d *= 2) {
    i32 up = shfl_up_sync(full_mask, v, d);
    v = v + select(lane >= d, up, 0);
  }
  return v;
}

auto make_scan() {
  return kernel(
      [](Ptr<std::int32_t> out, Ptr<std::int32_t> in, i32 n, Ptr<std::uint32_t> tile_counter,
         Ptr<std::uint64_t> status) {
        auto warp_totals = shared_array<std::int32_t>(kWarps);
        auto shared_tile = shared_array<std::int32_t>(1);
        auto shared_prefix = shared_array<std::int32_t>(1);
        i32 tid = thread_idx().x;
        i32 lane = lane_id(), warp = warp_id();

        // 1. This block's tile: the next one in the order blocks started.
        if_(tid == 0, [&] { shared_tile[0] = cast<std::int32_t>(atomic_add(tile_counter[0], 1u)); });
        syncthreads();
        i32 tile = shared_tile[0];

        // 2. Load kItems consecutive items (one 16-byte load in a full tile) and scan them.
        i32 first = tile * kTile + tid * kItems;
        Var<std::int32_t> item[kItems];
        if_(tile * kTile + kTile <= n,
            [&] {
              i32x4 v = in.vload<4>(tile * kBlock + tid);
              for (int j = 0; j < kItems; ++j) item[j] = v[j];
            },
            [&] {
              for (int j = 0; j < kItems; ++j) if_(first + j < n, [&] { item[j] = in[first + j]; });
            });
        for (int j = 1; j < kItems; ++j) item[j] += item[j - 1];

        // 3. Block scan of the thread totals: warp scans, then the warp totals.
        i32 thread_total = item[kItems - 1];
        i32 warp_incl = warp_inclusive_scan(thread_total);
        if_(lane == warp_size - 1, [&] { warp_totals[warp] = warp_incl; });
        syncthreads();
        Var<std::int32_t> warp_prefix = 0, aggregate = 0;
        for (int w = 0; w < kWarps; ++w) {
          i32 t = warp_totals[w];
          warp_prefix += select(warp > w, t, 0);
          aggregate += t;
        }
        i32 thread_prefix = warp_prefix + warp_incl - thread_total;  // items before this thread's, in the tile

        // 4. Publish and look back (first warp).
        if_(warp == 0, [&] {
          if_(tile == 0,
              [&] {
                if_(lane == 0, [&] {
                  atomic_exchange(status[0], pack(kPrefix, aggregate));
                  shared_prefix[0] = 0;
                });
              },
              [&] {
                if_(lane == 0, [&] { atomic_exchange(status[tile], pack(kAggregate, aggregate)); });
                Var<std::int32_t> exclusive = 0;
                Var<std::int32_t> end = tile;  // look at tiles [end - 32, end)
                Var<bool> done = false;
                while_([&] { return !done.get(); }, [&] {
                  i32 j = end - 1 - lane;  // lane 0 looks at the nearest tile
                  Var<std::uint64_t> s = pack(kPrefix, i32(0));  // before tile 0: nothing to add
                  if_(j >= 0, [&] {
                    // Spin until tile j has published something; an atomic read sees the
                    // latest value in L2, never a stale cached one.
                    s = atomic_add(status[j], std::uint64_t{0});
                    while_([&] { return flag_of(s) == kInvalid; }, [&] { s = atomic_add(status[j], std::uint64_t{0}); });
                  });
                  u32 prefixes = ballot_sync(full_mask, flag_of(s) == kPrefix);
                  // Lanes up to the nearest published prefix (all lanes when there is none).
                  i32 stop = select(prefixes != 0u, ffs(cast<std::int32_t>(prefixes)) - 1, warp_size - 1);
                  i32 add = select(lane <= stop, value_of(s), 0);
                  exclusive += reduce_add_sync(full_mask, add);
                  done = prefixes != 0u;
                  end -= warp_size;
                });
                if_(lane == 0, [&] {
                  threadfence();
                  atomic_exchange(status[tile], pack(kPrefix, exclusive + aggregate));
                  shared_prefix[0] = exclusive;
                });
              });
        });
        syncthreads();

        // 5. Add the tile's exclusive prefix and the thread's, and store.
        i32 offset = shared_prefix[0] + thread_prefix;
        if_(tile * kTile + kTile <= n,
            [&] {
              auto v = i32x4::splat(0);
              for (int j = 0; j < kItems; ++j) v = v.with(j, item[j] + offset);
              out.vstore<4>(tile * kBlock + tid, v);
            },
            [&] {
              for (int j = 0; j < kItems; ++j) if_(first + j < n, [&] { out[first + j] = item[j] + offset; });
            });
      },
      {.name = "scan_lookback"});
}

}  // namespace

int main() {
  auto scan = make_scan();
  auto compiled = scan.compile();
  std::printf("scan_lookback: PTX %zu bytes, cubin %zu bytes, %d registers, %d bytes static shared memory, "
              "%d bytes spilled\n",
              compiled->ptx.size(), compiled->cubin.size(), compiled->resources.registers,
              compiled->resources.shared_bytes, compiled->resources.spill_store_bytes);

  const bool on_cpu = Device::cpu_selected() || !driver_available();
  if (on_cpu)
    std::printf("%s: running the kernel on the CPU device (compiled for the host CPU, the GPU's execution model).\n",
                Device::cpu_selected() ? "CUTLET_DEVICE=cpu" : "No GPU found (no CUDA driver)");
  const Device device = on_cpu ? Device::cpu() : Device(0);

  std::mt19937 rng(99);
  // Odd: the last tile is partial.
  const int n = (on_cpu ? (1 << 20) : (1 << 24)) + static_cast<int>(rng() % 4096) * 2 + 1;
  std::vector<std::int32_t> hin(n);
  for (auto& v : hin) v = static_cast<std::int32_t>(rng() % 201) - 100;
  std::vector<std::int32_t> want(n);
  std::int32_t sum = 0;
  for (int i = 0; i < n; ++i) want[i] = sum += hin[i];

  Stream stream(device);
  const int tiles = static_cast<int>(ceil_div(n, kTile));
  Buffer<std::int32_t> in(stream, hin), out(n, device);
  Buffer<std::uint32_t> counter(1, device);
  Buffer<std::uint64_t> status(tiles, device);
  const LaunchConfig config{.grid = tiles, .block = kBlock};
  auto run = [&] {
    counter.fill_bytes(stream, 0);
    status.fill_bytes(stream, 0);  // every tile kInvalid
    scan.launch(stream, config, out, in, n, counter, status);
  };
  run();
  std::vector<std::int32_t> got = out.to_host(stream);
  long bad = 0, first_bad = -1;
  for (int i = 0; i < n; ++i)
    if (got[i] != want[i] && bad++ == 0) first_bad = i;
  if (bad) std::printf("first mismatch at %ld: got %d, want %d\n", first_bad, got[first_bad], want[first_bad]);

  Event start(device), stop(device);
  const int reps = on_cpu ? 3 : 20;
  start.record(stream);
  for (int r = 0; r < reps; ++r) run();
  stop.record(stream);
  stop.synchronize();
  const double ms = Event::elapsed_ms(start, stop) / reps;
  std::printf("%s: inclusive scan of %d ints in %d tiles: %s (%ld mismatches), %.3f ms, %.0f GB/s\n",
              device.name().c_str(), n, tiles, bad == 0 ? "correct" : "WRONG", bad, ms,
              2.0 * sizeof(std::int32_t) * n / (ms * 1e-3) / 1e9);
  return bad == 0 ? 0 : 1;
}
