// CUDA C++ baselines built by nvcc into baseline_kernels.sm_90.cubin: the same saxpy as the
// cutlet kernel, and an empty kernel with the same parameters for launch overhead.

/// y[i] = a*x[i] + y[i] for i < n, one element per thread; written like the cutlet saxpy
/// (no __restrict__, 32-bit index) so that the two compilers get the same program.
extern "C" __global__ void saxpy(float a, const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

/// Does nothing: the GPU side of a launch-overhead measurement.
extern "C" __global__ void empty(float a, const float* x, float* y, int n) {}

// ---------------------------------------------------------------------------------------------
// The twins of the cutlet kernels in simt_kernels.h: same shapes (simt_shapes.h), same loops,
// same memory accesses. Written without __restrict__ and with 32-bit indices, as the cutlet
// kernels are. One entry point per unroll factor (and copy count): vector_saxpy_u4,
// reduce_sum_u4, histogram_atomic_c2_u4, histogram_counters_u4, ...

#include "simt_shapes.h"

using namespace cutlet_bench_shapes;

namespace {

/// Calls body(base, full) for the tiles of `tile` units this block owns (see for_each_tile
/// in simt_kernels.h).
template <int kTile, class Body>
__device__ __forceinline__ void for_each_tile(int units, Body body) {
  const int full_tiles = units / kTile;
  for (int t = blockIdx.x; t < full_tiles; t += gridDim.x) body(t * kTile, true);
  const int partial = full_tiles * kTile;
  if (partial < units && blockIdx.x == full_tiles % gridDim.x) body(partial, false);
}

__device__ __forceinline__ float warp_sum(float v) {
  for (int d = 16; d > 0; d /= 2) v += __shfl_xor_sync(0xffffffffu, v, d);
  return v;
}

__device__ __forceinline__ float block_sum(float v, float* slots) {
  const int tid = threadIdx.x;
  v = warp_sum(v);
  if ((tid & 31) == 0) slots[tid >> 5] = v;
  __syncthreads();
  float total = slots[0];
  for (int w = 1; w < kWarps; ++w) total += slots[w];
  return total;
}

template <int kUnroll>
__device__ __forceinline__ void vector_saxpy(float a, const float* x, float* y, int n) {
  const int tid = threadIdx.x;
  const int n4 = n >> 2;
  const float4* x4 = reinterpret_cast<const float4*>(x);
  float4* y4 = reinterpret_cast<float4*>(y);
  for_each_tile<kBlock * kUnroll>(n4, [&](int base, bool full) {
    const int first = base + tid;
    if (full) {
      float4 xs[kUnroll], ys[kUnroll];
#pragma unroll
      for (int k = 0; k < kUnroll; ++k) {
        xs[k] = x4[first + k * kBlock];
        ys[k] = y4[first + k * kBlock];
      }
#pragma unroll
      for (int k = 0; k < kUnroll; ++k)
        y4[first + k * kBlock] = make_float4(a * xs[k].x + ys[k].x, a * xs[k].y + ys[k].y, a * xs[k].z + ys[k].z,
                                             a * xs[k].w + ys[k].w);
    } else {
#pragma unroll
      for (int k = 0; k < kUnroll; ++k) {
        const int i = first + k * kBlock;
        if (i < n4) {
          const float4 xv = x4[i], yv = y4[i];
          y4[i] = make_float4(a * xv.x + yv.x, a * xv.y + yv.y, a * xv.z + yv.z, a * xv.w + yv.w);
        }
      }
    }
  });
  const int tail = n4 * 4 + blockIdx.x * kBlock + tid;
  if (tail < n) y[tail] = a * x[tail] + y[tail];
}

template <int kUnroll>
__device__ __forceinline__ void reduce_sum(float* out, float* partials, unsigned* ticket, const float* x, int n) {
  __shared__ float slots[kWarps];
  __shared__ float final_slots[kWarps];
  __shared__ int is_last;
  const int tid = threadIdx.x;
  const int n4 = n >> 2;
  const float4* x4 = reinterpret_cast<const float4*>(x);
  float acc[kUnroll];
#pragma unroll
  for (int k = 0; k < kUnroll; ++k) acc[k] = 0.0f;
  for_each_tile<kBlock * kUnroll>(n4, [&](int base, bool full) {
    const int first = base + tid;
    if (full) {
      float4 v[kUnroll];
#pragma unroll
      for (int k = 0; k < kUnroll; ++k) v[k] = x4[first + k * kBlock];
#pragma unroll
      for (int k = 0; k < kUnroll; ++k) acc[k] += (v[k].x + v[k].y) + (v[k].z + v[k].w);
    } else {
#pragma unroll
      for (int k = 0; k < kUnroll; ++k) {
        const int i = first + k * kBlock;
        if (i < n4) {
          const float4 v = x4[i];
          acc[k] += (v.x + v.y) + (v.z + v.w);
        }
      }
    }
  });
  const int tail = n4 * 4 + blockIdx.x * kBlock + tid;
  if (tail < n) acc[0] += x[tail];

#pragma unroll
  for (int width = 1; width < kUnroll; width *= 2)
#pragma unroll
    for (int k = 0; k + width < kUnroll; k += 2 * width) acc[k] += acc[k + width];
  const float block_total = block_sum(acc[0], slots);

  if (tid == 0) {
    partials[blockIdx.x] = block_total;
    __threadfence();
    const unsigned t = atomicAdd(ticket, 1u);
    __threadfence();
    is_last = t == gridDim.x - 1;
  }
  __syncthreads();
  if (is_last) {
    float s = 0.0f;
    for (int i = tid; i < static_cast<int>(gridDim.x); i += kBlock) s += __ldcg(partials + i);
    const float total = block_sum(s, final_slots);
    if (tid == 0) {
      out[0] = total;
      *ticket = 0;
    }
  }
}

template <int kCopies, int kUnroll>
__device__ __forceinline__ void histogram_atomic(unsigned* hist, const unsigned* data, int n) {
  constexpr int kCounters = kCopies * kAtomicStride;
  __shared__ unsigned local[kCounters];
  const int tid = threadIdx.x;
#pragma unroll
  for (int j = 0; j < kCounters; j += kBlock)
    if (j + kBlock <= kCounters || tid + j < kCounters) local[tid + j] = 0;
  __syncthreads();
  unsigned* mine = kCopies == 1 ? local : local + ((tid >> 5) & (kCopies - 1)) * kAtomicStride;
  auto count = [&](unsigned v) { atomicAdd(mine + min(v, unsigned{kBins}), 1u); };

  const int n4 = n >> 2;
  const uint4* data4 = reinterpret_cast<const uint4*>(data);
  for_each_tile<kBlock * kUnroll>(n4, [&](int base, bool full) {
    const int first = base + tid;
    if (full) {
      uint4 v[kUnroll];
#pragma unroll
      for (int k = 0; k < kUnroll; ++k) v[k] = data4[first + k * kBlock];
#pragma unroll
      for (int k = 0; k < kUnroll; ++k) {
        count(v[k].x);
        count(v[k].y);
        count(v[k].z);
        count(v[k].w);
      }
    } else {
#pragma unroll
      for (int k = 0; k < kUnroll; ++k) {
        const int i = first + k * kBlock;
        if (i < n4) {
          const uint4 v = data4[i];
          count(v.x);
          count(v.y);
          count(v.z);
          count(v.w);
        }
      }
    }
  });
  const int tail = n4 * 4 + blockIdx.x * kBlock + tid;
  if (tail < n) count(data[tail]);
  __syncthreads();

#pragma unroll
  for (int b = 0; b < kBins; b += kBlock) {
    unsigned total = local[b + tid];
#pragma unroll
    for (int c = 1; c < kCopies; ++c) total += local[c * kAtomicStride + b + tid];
    if (total != 0) atomicAdd(hist + b + tid, total);
  }
}

template <int kUnroll>
__device__ __forceinline__ void histogram_counters(unsigned* hist, const unsigned* data, int n) {
  extern __shared__ __align__(16) unsigned char dynamic_smem[];
  unsigned* words = reinterpret_cast<unsigned*>(dynamic_smem);
  unsigned char* bytes = dynamic_smem;
  const int tid = threadIdx.x;
  const int lane = tid & 31, warp = tid >> 5;
#pragma unroll
  for (int r = 0; r < kCounterRows - 1; ++r) words[r * kBlock + tid] = 0;
  __syncthreads();

  const int my_bytes = tid * 4;
  auto count = [&](unsigned v) {
    const unsigned bin = min(v, unsigned{kBins});
    const int at = static_cast<int>((bin >> 2) * unsigned{kBlock * 4} + (bin & 3u)) + my_bytes;
    bytes[at] = bytes[at] + 1;
  };
  __shared__ unsigned totals[kBins];
  totals[tid] = 0;
  auto flush = [&] {
    __syncthreads();
#pragma unroll 1
    for (int i = 0; i < kRowsPerWarp; ++i) {
      const int row = warp + kWarps * i;
      unsigned lo = 0, hi = 0;
#pragma unroll
      for (int j = 0; j < kBlock / 32; ++j) {
        const int at = row * kBlock + lane + 32 * j;
        const unsigned w = words[at];
        words[at] = 0;
        lo += w & 0x00ff00ffu;
        hi += (w >> 8) & 0x00ff00ffu;
      }
#pragma unroll
      for (int d = 16; d > 0; d /= 2) {
        lo += __shfl_xor_sync(0xffffffffu, lo, d);
        hi += __shfl_xor_sync(0xffffffffu, hi, d);
      }
      if (lane == 0) {
        const int bin = row * 4;
        totals[bin] += lo & 0xffffu;
        totals[bin + 1] += hi & 0xffffu;
        totals[bin + 2] += lo >> 16;
        totals[bin + 3] += hi >> 16;
      }
    }
    __syncthreads();
  };

  constexpr int kTile = kBlock * kUnroll;
  constexpr int kPerFlush = counter_tiles_per_flush(kUnroll);
  const int n4 = n >> 2;
  const int full_tiles = n4 / kTile;
  const int mine = max((full_tiles - static_cast<int>(blockIdx.x) + static_cast<int>(gridDim.x) - 1) /
                           static_cast<int>(gridDim.x),
                       0);
  const uint4* data4 = reinterpret_cast<const uint4*>(data);
  auto count_tile = [&](int base, bool full) {
    const int first = base + tid;
    if (full) {
      uint4 v[kUnroll];
#pragma unroll
      for (int k = 0; k < kUnroll; ++k) v[k] = data4[first + k * kBlock];
#pragma unroll
      for (int k = 0; k < kUnroll; ++k) {
        count(v[k].x);
        count(v[k].y);
        count(v[k].z);
        count(v[k].w);
      }
    } else {
#pragma unroll
      for (int k = 0; k < kUnroll; ++k) {
        const int i = first + k * kBlock;
        if (i < n4) {
          const uint4 v = data4[i];
          count(v.x);
          count(v.y);
          count(v.z);
          count(v.w);
        }
      }
    }
  };
  for (int j0 = 0; j0 < mine; j0 += kPerFlush) {
    const int end = min(j0 + kPerFlush, mine);
    for (int j = j0; j < end; ++j) count_tile((blockIdx.x + j * gridDim.x) * kTile, true);
    flush();
  }
  const int partial = full_tiles * kTile;
  if (partial < n4 && blockIdx.x == full_tiles % gridDim.x) count_tile(partial, false);
  const int tail = n4 * 4 + blockIdx.x * kBlock + tid;
  if (tail < n) count(data[tail]);
  flush();

  const unsigned total = totals[tid];
  if (total != 0) atomicAdd(hist + tid, total);
}

}  // namespace

#define CUTLET_VECTOR_SAXPY(U)                                                                     \
  extern "C" __global__ void __launch_bounds__(kBlock) vector_saxpy_u##U(float a, const float* x, float* y, int n) { \
    vector_saxpy<U>(a, x, y, n);                                                                   \
  }
CUTLET_VECTOR_SAXPY(1)
CUTLET_VECTOR_SAXPY(2)
CUTLET_VECTOR_SAXPY(4)
CUTLET_VECTOR_SAXPY(8)

#define CUTLET_REDUCE_SUM(U)                                                                       \
  extern "C" __global__ void __launch_bounds__(kBlock)                                             \
      reduce_sum_u##U(float* out, float* partials, unsigned* ticket, const float* x, int n) {      \
    reduce_sum<U>(out, partials, ticket, x, n);                                                    \
  }
CUTLET_REDUCE_SUM(1)
CUTLET_REDUCE_SUM(2)
CUTLET_REDUCE_SUM(4)
CUTLET_REDUCE_SUM(8)

#define CUTLET_HISTOGRAM_ATOMIC(C, U)                                                              \
  extern "C" __global__ void __launch_bounds__(kBlock)                                             \
      histogram_atomic_c##C##_u##U(unsigned* hist, const unsigned* data, int n) {                  \
    histogram_atomic<C, U>(hist, data, n);                                                         \
  }
CUTLET_HISTOGRAM_ATOMIC(1, 1)
CUTLET_HISTOGRAM_ATOMIC(1, 2)
CUTLET_HISTOGRAM_ATOMIC(1, 4)
CUTLET_HISTOGRAM_ATOMIC(2, 2)
CUTLET_HISTOGRAM_ATOMIC(2, 4)
CUTLET_HISTOGRAM_ATOMIC(4, 2)
CUTLET_HISTOGRAM_ATOMIC(4, 4)

#define CUTLET_HISTOGRAM_COUNTERS(U)                                                               \
  extern "C" __global__ void __launch_bounds__(kBlock)                                             \
      histogram_counters_u##U(unsigned* hist, const unsigned* data, int n) {                       \
    histogram_counters<U>(hist, data, n);                                                          \
  }
CUTLET_HISTOGRAM_COUNTERS(1)
CUTLET_HISTOGRAM_COUNTERS(2)
CUTLET_HISTOGRAM_COUNTERS(4)
