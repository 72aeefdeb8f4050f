// The CUB peers of the benchmarks, built by nvcc into libcutlet_cub_baselines.so (with the
// CUDA runtime linked statically inside it). Raw device pointers and a CUstream passed as
// void*: cutlet Buffers' data() and Stream::handle() work as they are, since the CUDA
// runtime uses the device's primary context, as cutlet's runtime does. Each function queues
// its work on the stream and returns a cudaError_t value (0 on success); temporary storage is
// allocated at the first call and kept.
#pragma once

#ifdef __cplusplus
extern "C" {
#endif

/// y[i] = a * x[i] + y[i] for i < n with cub::DeviceTransform::Transform (x and y as its two
/// inputs, y as its output).
int cutlet_cub_saxpy(float a, const float* x, float* y, int n, void* stream);

/// out[0] = the sum of x[0, n) with cub::DeviceReduce::Sum.
int cutlet_cub_reduce_sum(const float* x, float* out, int n, void* stream);

/// out[0..2] = the min, the max and the sum of the n structs {lo, hi, sum} of 3 floats at
/// `triples` (the min of the lo, the max of the hi, the sum of the sum) with
/// cub::DeviceReduce::Reduce and a struct functor, from {+inf, -inf, 0}.
int cutlet_cub_reduce_min_max_sum(const float* triples, float* out, int n, void* stream);

/// out[i] = x[0] + ... + x[i] for i < n with cub::DeviceScan::InclusiveSum.
int cutlet_cub_inclusive_sum(const float* x, float* out, int n, void* stream);

/// out[i] = x[s] + ... + x[i] for i < n, s the first index of i's run of equal keys, with
/// cub::DeviceScan::InclusiveSumByKey.
int cutlet_cub_inclusive_sum_by_key(const int* keys, const float* x, float* out, int n, void* stream);

/// hist[b] = the number of samples[i] == b (b < 256; others not counted) with
/// cub::DeviceHistogram::HistogramEven over levels 0, 1, ..., 256. Overwrites hist.
int cutlet_cub_histogram256(const unsigned* samples, unsigned* hist, int n, void* stream);

/// out[s] = x[offsets[s]] + ... + x[offsets[s + 1] - 1] for s < num_segments with
/// cub::DeviceSegmentedReduce::Sum (offsets holds num_segments + 1 entries).
int cutlet_cub_segmented_reduce_sum(const float* x, float* out, int num_segments, const int* offsets, void* stream);

/// The x[i] > 0 of x[0, n), in order, to out[0, m), and m to num_selected[0], with
/// cub::DeviceSelect::If.
int cutlet_cub_select_positive(const float* x, float* out, int* num_selected, int n, void* stream);

/// The first of each run of equal consecutive x[i] to out[0, m), and m to num_selected[0],
/// with cub::DeviceSelect::Unique.
int cutlet_cub_unique_i32(const int* x, int* out, int* num_selected, int n, void* stream);

/// The x[i] > 0.5 of x[0, n) to first[0, a), of the rest the x[i] < -0.5 to second[0, b),
/// the others to unselected[0, n - a - b), each in order, and a, b to num_selected[0, 2),
/// with cub::DevicePartition::If (two predicates).
int cutlet_cub_three_way_partition(const float* x, float* first, float* second, float* unselected, int* num_selected,
                                   int n, void* stream);

/// keys_out[0, n) = keys_in[0, n) sorted ascending by a comparator functor (a < b) with
/// cub::DeviceMergeSort::StableSortKeysCopy.
int cutlet_cub_merge_sort_keys_u32(const unsigned* keys_in, unsigned* keys_out, int n, void* stream);

/// As cutlet_cub_merge_sort_keys_u32 with values carried along, with
/// cub::DeviceMergeSort::SortPairsCopy (the same stable merge sort, copying).
int cutlet_cub_merge_sort_pairs_u32(const unsigned* keys_in, unsigned* keys_out, const unsigned* values_in,
                                    unsigned* values_out, int n, void* stream);

/// keys_out[0, n) = keys_in[0, n) sorted ascending (all 32 bits) with
/// cub::DeviceRadixSort::SortKeys.
int cutlet_cub_radix_sort_keys_u32(const unsigned* keys_in, unsigned* keys_out, int n, void* stream);

/// keys_out[0, n) = the 2-byte keys_in[0, n) sorted ascending with
/// cub::DeviceRadixSort::SortKeys: as __half when `is_half`, else as unsigned short.
int cutlet_cub_radix_sort_keys_16(const void* keys_in, void* keys_out, int n, int is_half, void* stream);

/// keys_out and values_out = keys_in and values_in sorted by key, ascending (all 32 bits),
/// with cub::DeviceRadixSort::SortPairs.
int cutlet_cub_radix_sort_pairs_u32(const unsigned* keys_in, unsigned* keys_out, const unsigned* values_in,
                                    unsigned* values_out, int n, void* stream);

/// c = a @ b for row-major bf16 a [m, k] and b [k, n] and f32 c [m, n], with cublasGemmEx
/// (f32 compute, tensor cores). Returns a cublasStatus_t value plus 1000 (0 on success).
int cutlet_cublas_gemm_bf16(int m, int n, int k, const void* a, const void* b, float* c, void* stream);
/// out[i, j] = bf16(gelu(c[i, j] + bias[j])) for f32 c [m, n] (row-major, n a multiple of 4),
/// exact GELU (x / 2 * (1 + erf(x / sqrt 2))): the epilogue a user without a fused kernel runs
/// after cutlet_cublas_gemm_bf16, as one nvcc-built kernel (16-byte loads, 8-byte stores).
int cutlet_bias_gelu_bf16(const float* c, const float* bias, void* out, int m, int n, void* stream);
/// c = a @ bt^T for row-major FP8 e4m3 a [m, k] and bt [n, k] and bf16 c [m, n], with
/// cuBLASLt's FP8 matmul (f32 compute, scales 1, the best algorithm of its heuristic for a
/// 32 MiB workspace). Descriptors are made per call (their cost is host time, before the
/// asynchronous launch). Returns a cublasStatus_t value plus 1000 (0 on success).
int cutlet_cublaslt_gemm_fp8(int m, int n, int k, const void* a, const void* bt, void* c, void* stream);

/// The name of a cudaError_t value returned above.
const char* cutlet_cub_error_string(int error);

/// CUB_VERSION of the CUB these were built with (e.g. 300001 for 3.0.1).
int cutlet_cub_version(void);

#ifdef __cplusplus
}
#endif
