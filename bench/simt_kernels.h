// The cutlet kernels of the vector saxpy, reduction and histogram benchmarks. Each has a
// twin in CUDA C++ in baseline_kernels.cu with the same shapes (simt_shapes.h), the same
// loop structure and the same memory accesses.
//
// All of them stream over their input in tiles of kBlock * unroll 16-byte vectors: in a tile,
// thread t loads vectors t, t + kBlock, ... (coalesced), all `unroll` of them before using
// any, so that each thread has unroll independent 16-byte loads in flight. Host C++ loops
// over `unroll` are unrolled when the kernel is traced. Tiles go to blocks block-cyclically
// (block b takes tiles b, b + grid, ...): a grid of a few blocks per SM gives a grid-stride
// loop, a grid of one block per tile a loop of one iteration.
#pragma once

#include <string>
#include <type_traits>
#include <vector>

#include <cutlet/cutlet.h>

#include "simt_shapes.h"

namespace cutlet::bench {

using namespace cutlet_bench_shapes;

/// Calls body(base, full) for the tiles of `tile` units among `units` (base: the tile's first
/// unit) that this block owns: the full tiles b, b + grid, ... with full = std::true_type (no
/// bounds checks needed), then, in the one block that owns it, the last partial tile with
/// full = std::false_type.
template <class Body>
void for_each_tile(const i32& units, int tile, Body&& body) {
  i32 full_tiles = units / tile;
  for_range(block_idx().x, full_tiles, grid_dim().x, [&](i32 t) { body(t * tile, std::true_type{}); });
  i32 partial = full_tiles * tile;
  if_((partial < units) & (block_idx().x == full_tiles % grid_dim().x),
      [&] { body(partial, std::false_type{}); });
}

/// `p` advanced to its `vector`-th 16-byte vector (4 elements of 4 bytes). Loads at host
/// constant offsets from it (`tile_at(x, first).vload<4>(k * kBlock)`) get immediate offsets
/// in PTX ([%rd + 4096]); indexing with the traced `first + k * kBlock` instead computes a
/// 64-bit address per access, since cutlet does not mark i32 additions as non-wrapping.
template <class T>
Ptr<T> tile_at(const Ptr<T>& p, const i32& vector) {
  static_assert(sizeof(T) == 4, "tile_at counts vectors of 4 four-byte elements");
  return p + vector * 4;
}

/// The sum of `v` over the warp, in every lane.
inline f32 warp_sum(f32 v) {
  for (int d = 16; d > 0; d /= 2) v = v + shfl_xor_sync(full_mask, v, d);
  return v;
}

/// The sum of `v` over the block, in every thread; `slots` is kWarps floats of shared memory
/// that no other call uses.
inline f32 block_sum(f32 v, SharedPtr<float> slots) {
  i32 tid = thread_idx().x;
  v = warp_sum(v);
  if_((tid & 31) == 0, [&] { slots[tid >> 5] = v; });
  syncthreads();
  f32 total = slots[0];
  for (int w = 1; w < kWarps; ++w) total = total + slots[w];
  return total;
}

/// y = a*x + y over n floats with 16-byte loads and stores: `unroll` float4s of x and of y
/// per thread and tile, then the n % 4 last floats one by one.
inline auto make_vector_saxpy(int unroll) {
  return kernel(
      [unroll](f32 a, Ptr<float> x, Ptr<float> y, i32 n) {
        i32 tid = thread_idx().x;
        i32 n4 = n >> 2;
        for_each_tile(n4, kBlock * unroll, [&](i32 base, auto full) {
          i32 first = base + tid;
          if constexpr (decltype(full)::value) {
            // Pointers to this thread's first float4, then constant offsets (see tile_at).
            Ptr<float> xt = tile_at(x, first), yt = tile_at(y, first);
            std::vector<f32x4> xs, ys;
            for (int k = 0; k < unroll; ++k) {
              xs.push_back(xt.vload<4>(k * kBlock));
              ys.push_back(yt.vload<4>(k * kBlock));
            }
            for (int k = 0; k < unroll; ++k) yt.vstore<4>(k * kBlock, a * xs[k] + ys[k]);
          } else {
            for (int k = 0; k < unroll; ++k) {
              i32 i = first + k * kBlock;
              if_(i < n4, [&] { y.vstore<4>(i, a * x.vload<4>(i) + y.vload<4>(i)); });
            }
          }
        });
        i32 tail = n4 * 4 + block_idx().x * kBlock + tid;
        if_(tail < n, [&] { y[tail] = a * x[tail] + y[tail]; });
      },
      {.name = "vector_saxpy_u" + std::to_string(unroll)});
}

/// out[0] = the sum of x[0, n), in one launch: each thread adds `unroll` float4s per tile
/// into `unroll` accumulators, the block adds its threads' sums (warp shuffles, then one
/// shared slot per warp) and writes its sum to partials[block]; the last block to finish
/// (counted with an atomic ticket) adds the blocks' sums, writes out[0] and resets the
/// ticket to 0 for the next launch. `partials` holds at least one float per block; `ticket`
/// must be 0 before the first launch.
inline auto make_reduce_sum(int unroll) {
  return kernel(
      [unroll](Ptr<float> out, Ptr<float> partials, Ptr<std::uint32_t> ticket, Ptr<float> x, i32 n) {
        auto slots = shared_array<float>(kWarps);
        auto final_slots = shared_array<float>(kWarps);
        auto is_last = shared_array<std::int32_t>(1);
        i32 tid = thread_idx().x;
        i32 n4 = n >> 2;
        std::vector<Var<float>> acc(unroll);
        for_each_tile(n4, kBlock * unroll, [&](i32 base, auto full) {
          i32 first = base + tid;
          if constexpr (decltype(full)::value) {
            std::vector<f32x4> v;
            Ptr<float> xt = tile_at(x, first);
            for (int k = 0; k < unroll; ++k) v.push_back(xt.vload<4>(k * kBlock));
            for (int k = 0; k < unroll; ++k) acc[k] += (v[k][0] + v[k][1]) + (v[k][2] + v[k][3]);
          } else {
            for (int k = 0; k < unroll; ++k) {
              i32 i = first + k * kBlock;
              if_(i < n4, [&] {
                f32x4 v = x.vload<4>(i);
                acc[k] += (v[0] + v[1]) + (v[2] + v[3]);
              });
            }
          }
        });
        i32 tail = n4 * 4 + block_idx().x * kBlock + tid;
        if_(tail < n, [&] { acc[0] += x[tail]; });

        // The accumulators pairwise, then the block.
        std::vector<f32> sums;
        for (auto& a : acc) sums.push_back(a);
        for (std::size_t width = 1; width < sums.size(); width *= 2)
          for (std::size_t k = 0; k + width < sums.size(); k += 2 * width) sums[k] = sums[k] + sums[k + width];
        f32 block_total = block_sum(sums[0], slots);

        if_(tid == 0, [&] {
          partials[block_idx().x] = block_total;
          threadfence();  // the partial is visible to the device before the ticket is taken
          u32 t = atomic_add(ticket[0], 1u);
          threadfence();
          is_last[0] = cast<std::int32_t>(t == cast<std::uint32_t>(grid_dim().x - 1));
        });
        syncthreads();
        if_(is_last[0] != 0, [&] {
          Var<float> s = 0.0f;
          // .cg loads read L2, where the other blocks' partials are, not a stale L1 line.
          for_range(tid, grid_dim().x, kBlock, [&](i32 i) { s += partials.load(i, CacheHint::CacheGlobal); });
          f32 total = block_sum(s, final_slots);
          if_(tid == 0, [&] {
            out[0] = total;
            ticket[0] = 0u;
          });
        });
      },
      {.name = "reduce_sum_u" + std::to_string(unroll)});
}

/// 256-bin histogram, CUB's algorithm: `copies` histograms per block in shared memory (warp
/// w counts into copy w % copies) with shared-memory atomics, `unroll` 16-byte loads (4
/// values) per thread and tile, then one global atomic per nonzero bin and block. Adds to
/// hist, which must be zero before the launch for a fresh histogram.
inline auto make_histogram_atomic(int copies, int unroll) {
  return kernel(
      [copies, unroll](Ptr<std::uint32_t> hist, Ptr<std::uint32_t> data, i32 n) {
        const int counters = copies * kAtomicStride;
        auto local = shared_array<std::uint32_t>(counters);
        i32 tid = thread_idx().x;
        for (int j = 0; j < counters; j += kBlock) {
          if (j + kBlock <= counters) local[tid + j] = 0u;
          else if_(tid + j < counters, [&] { local[tid + j] = 0u; });
        }
        syncthreads();
        SharedPtr<std::uint32_t> mine = copies == 1 ? local : local + ((tid >> 5) & (copies - 1)) * kAtomicStride;
        auto count = [&](const u32& v) { atomic_add(mine[min(v, std::uint32_t{kBins})], 1u); };

        i32 n4 = n >> 2;
        for_each_tile(n4, kBlock * unroll, [&](i32 base, auto full) {
          i32 first = base + tid;
          if constexpr (decltype(full)::value) {
            std::vector<u32x4> v;
            Ptr<std::uint32_t> dt = tile_at(data, first);
            for (int k = 0; k < unroll; ++k) v.push_back(dt.vload<4>(k * kBlock));
            for (int k = 0; k < unroll; ++k)
              for (int j = 0; j < 4; ++j) count(v[k][j]);
          } else {
            for (int k = 0; k < unroll; ++k) {
              i32 i = first + k * kBlock;
              if_(i < n4, [&] {
                u32x4 v = data.vload<4>(i);
                for (int j = 0; j < 4; ++j) count(v[j]);
              });
            }
          }
        });
        i32 tail = n4 * 4 + block_idx().x * kBlock + tid;
        if_(tail < n, [&] { count(data[tail]); });
        syncthreads();

        for (int b = 0; b < kBins; b += kBlock) {
          Var<std::uint32_t> total = local[b + tid];
          for (int c = 1; c < copies; ++c) total += local[c * kAtomicStride + b + tid];
          if_(total != 0u, [&] { atomic_add(hist[b + tid], total); });
        }
      },
      {.name = "histogram_atomic_c" + std::to_string(copies) + "_u" + std::to_string(unroll)});
}

/// 256-bin histogram with per-thread 8-bit counters in shared memory (see simt_shapes.h for
/// the layout): counting a value is a byte load, add and store that no other thread touches,
/// in a bank of its own (no atomics, no bank conflicts). Every counter_tiles_per_flush(unroll)
/// tiles, before any byte can overflow, the block flushes: warp w adds up rows w, w + 8, ...
/// of every thread's counters (4 bins per 32-bit word, two at a time in 16-bit halves; over
/// its lanes with shuffles) into the block's 32-bit totals in shared memory, and zeroes them.
/// At the end, one global atomic per nonzero bin. Needs kCounterBytes of dynamic shared
/// memory (plus 1 KiB static); adds to hist, which must be zero before the launch.
inline auto make_histogram_counters(int unroll) {
  return kernel(
      [unroll](Ptr<std::uint32_t> hist, Ptr<std::uint32_t> data, i32 n) {
        auto words = dynamic_shared<std::uint32_t>();
        auto bytes = dynamic_shared<std::uint8_t>();
        i32 tid = thread_idx().x;
        i32 lane = tid & 31, warp = tid >> 5;
        for (int r = 0; r < kCounterRows - 1; ++r) words[r * kBlock + tid] = 0u;  // the last row is never read
        syncthreads();

        i32 my_bytes = tid * 4;
        auto count = [&](const u32& v) {
          u32 bin = min(v, std::uint32_t{kBins});
          i32 at = cast<std::int32_t>((bin >> 2u) * std::uint32_t{kBlock * 4} + (bin & 3u)) + my_bytes;
          bytes[at] = bytes[at] + 1;
        };
        // totals[b]: the block's count of bin b so far (rows of 4 bins are each owned by one
        // warp, so plain read-modify-writes by its lane 0 suffice).
        auto totals = shared_array<std::uint32_t>(kBins);
        totals[tid] = 0u;
        auto flush = [&] {
          syncthreads();
          for_range(0, kRowsPerWarp, [&](i32 i) {
            i32 row = warp + kWarps * i;
            u32 lo = 0u, hi = 0u;  // bytes 0 and 2, bytes 1 and 3, in 16-bit halves (at most 8 * 255)
            for (int j = 0; j < kBlock / 32; ++j) {
              i32 at = row * kBlock + lane + 32 * j;
              u32 w = words[at];
              words[at] = 0u;
              lo = lo + (w & 0x00ff00ffu);
              hi = hi + ((w >> 8u) & 0x00ff00ffu);
            }
            for (int d = 16; d > 0; d /= 2) {  // at most 32 * 8 * 255 < 2^16 per half
              lo = lo + shfl_xor_sync(full_mask, lo, d);
              hi = hi + shfl_xor_sync(full_mask, hi, d);
            }
            if_(lane == 0, [&] {
              i32 bin = row * 4;
              totals[bin] += lo & 0xffffu;
              totals[bin + 1] += hi & 0xffffu;
              totals[bin + 2] += lo >> 16u;
              totals[bin + 3] += hi >> 16u;
            });
          });
          syncthreads();
        };

        // This block's full tiles, in chunks of `per_flush` tiles with a flush after each.
        const int tile = kBlock * unroll;
        const int per_flush = counter_tiles_per_flush(unroll);
        i32 n4 = n >> 2;
        i32 full_tiles = n4 / tile;
        i32 mine = max((full_tiles - block_idx().x + grid_dim().x - 1) / grid_dim().x, 0);
        auto count_tile = [&](i32 base, auto full) {
          i32 first = base + tid;
          if constexpr (decltype(full)::value) {
            std::vector<u32x4> v;
            Ptr<std::uint32_t> dt = tile_at(data, first);
            for (int k = 0; k < unroll; ++k) v.push_back(dt.vload<4>(k * kBlock));
            for (int k = 0; k < unroll; ++k)
              for (int j = 0; j < 4; ++j) count(v[k][j]);
          } else {
            for (int k = 0; k < unroll; ++k) {
              i32 i = first + k * kBlock;
              if_(i < n4, [&] {
                u32x4 v = data.vload<4>(i);
                for (int j = 0; j < 4; ++j) count(v[j]);
              });
            }
          }
        };
        for_range(0, mine, per_flush, [&](i32 j0) {
          for_range(j0, min(j0 + per_flush, mine), [&](i32 j) {
            count_tile((block_idx().x + j * grid_dim().x) * tile, std::true_type{});
          });
          flush();
        });
        // The partial tile and the last n % 4 values (at most unroll * 4 + 1 per thread).
        i32 partial = full_tiles * tile;
        if_((partial < n4) & (block_idx().x == full_tiles % grid_dim().x),
            [&] { count_tile(partial, std::false_type{}); });
        i32 tail = n4 * 4 + block_idx().x * kBlock + tid;
        if_(tail < n, [&] { count(data[tail]); });
        flush();

        // One global atomic per nonzero bin (the last flush ended with a barrier).
        u32 total = totals[tid];
        if_(total != 0u, [&] { atomic_add(hist[tid], total); });
      },
      {.name = "histogram_counters_u" + std::to_string(unroll)});
}

}  // namespace cutlet::bench
