// Shapes shared by the cutlet kernels of the vector saxpy, reduction and histogram benchmarks
// (simt_kernels.h) and their CUDA C++ twins (baseline_kernels.cu), so that both compilers get
// the same program. Plain C++: included by g++ and by nvcc.
#pragma once

#ifdef __CUDACC__
#define CUTLET_BENCH_HOST_DEVICE __host__ __device__
#else
#define CUTLET_BENCH_HOST_DEVICE
#endif

namespace cutlet_bench_shapes {

/// Threads per block of the streaming kernels (vector saxpy, reduction, histograms).
constexpr int kBlock = 256;
/// Warps per block.
constexpr int kWarps = kBlock / 32;

/// Histogram bins; values v < kBins go to bin v, others are not counted (HistogramEven with
/// levels 0, 1, ..., 256).
constexpr int kBins = 256;
static_assert(kBins == kBlock, "the histogram kernels give thread t bin t when clearing and merging");

/// Shared-atomic histogram: each copy of the block's histogram has kBins + 1 counters, the
/// last one taking the values >= kBins (never merged), so that counting needs no branch;
/// the odd stride also puts the copies' counters of one bin in different banks.
constexpr int kAtomicStride = kBins + 1;

/// Per-thread byte-counter histogram: thread t's 8-bit counter of bin b is byte b % 4 of
/// 32-bit word (b / 4) * kBlock + t of the block's dynamic shared memory, so that a warp's
/// 32 threads always hit 32 different banks, whatever their bins. kCounterRows rows of kBlock
/// words: 64 for the bins and one for the values >= kBins (never read).
constexpr int kCounterRows = kBins / 4 + 1;
/// Dynamic shared memory of the byte-counter histogram, in bytes.
constexpr int kCounterBytes = kCounterRows * kBlock * 4;
/// Rows of bins each warp adds up when it flushes the byte counters.
constexpr int kRowsPerWarp = (kBins / 4) / kWarps;

/// Tiles a thread may count into its byte counters between two flushes, for `unroll` 16-byte
/// loads (4 values each) per tile: at most 255 values, so that no 8-bit counter overflows.
CUTLET_BENCH_HOST_DEVICE constexpr int counter_tiles_per_flush(int unroll) { return 255 / (4 * unroll); }

}  // namespace cutlet_bench_shapes
