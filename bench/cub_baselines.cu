// The CUB peers of the benchmarks (see cub_baselines.h), built by nvcc into a shared library.
#include <limits>

#include <cublasLt.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cublas_v2.h>
#include <cub/device/device_histogram.cuh>
#include <cub/device/device_merge_sort.cuh>
#include <cub/device/device_partition.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_segmented_reduce.cuh>
#include <cub/device/device_select.cuh>
#include <cub/device/device_transform.cuh>
#include <cub/version.cuh>

#include <cuda/std/tuple>

#include <algorithm>

#include "cub_baselines.h"

namespace {

/// Temporary storage kept between calls; grown (synchronously) when a call needs more.
struct TempStorage {
  void* ptr = nullptr;
  size_t bytes = 0;

  cudaError_t reserve(size_t need) {
    if (need <= bytes) return cudaSuccess;
    if (ptr) {
      cudaError_t e = cudaFree(ptr);  // waits for the device: only while warming up
      if (e != cudaSuccess) return e;
      ptr = nullptr;
      bytes = 0;
    }
    cudaError_t e = cudaMalloc(&ptr, need);
    if (e == cudaSuccess) bytes = need;
    return e;
  }
};

/// A CUB device-wide call in its two-phase form: `call(temp, bytes)` asks for the bytes it
/// needs when temp is null, else runs. Asks, grows `storage` to fit, then runs.
template <class Call>
cudaError_t with_temp_storage(TempStorage& storage, Call&& call) {
  size_t need = 0;
  cudaError_t e = call(nullptr, need);
  if (e == cudaSuccess) e = storage.reserve(need);
  if (e == cudaSuccess) e = call(storage.ptr, need);
  return e;
}

TempStorage reduce_temp, scan_temp, histogram_temp, segmented_reduce_temp, select_temp, unique_temp, sort_temp,
    partition_temp, merge_sort_temp;

struct Saxpy {
  float a;
  __device__ float operator()(float x, float y) const { return a * x + y; }
};

struct Positive {
  __device__ bool operator()(float x) const { return x > 0.0f; }
};

struct AboveHalf {
  __device__ bool operator()(float x) const { return x > 0.5f; }
};

struct BelowMinusHalf {
  __device__ bool operator()(float x) const { return x < -0.5f; }
};

/// The struct of the struct reduce: a min, a max and a sum of floats, and its operator.
struct MinMaxSum {
  float lo, hi, sum;
};
struct MinMaxSumOp {
  __device__ MinMaxSum operator()(const MinMaxSum& a, const MinMaxSum& b) const {
    return MinMaxSum{fminf(a.lo, b.lo), fmaxf(a.hi, b.hi), a.sum + b.sum};
  }
};

/// The merge sorts' comparator: a user functor, as cutlet's merge sort takes a user lambda.
struct Less {
  __device__ bool operator()(unsigned a, unsigned b) const { return a < b; }
};

}  // namespace

extern "C" int cutlet_cub_saxpy(float a, const float* x, float* y, int n, void* stream) {
  return cub::DeviceTransform::Transform(::cuda::std::make_tuple(x, static_cast<const float*>(y)), y, n, Saxpy{a},
                                         static_cast<cudaStream_t>(stream));
}

extern "C" int cutlet_cub_reduce_sum(const float* x, float* out, int n, void* stream) {
  return with_temp_storage(reduce_temp, [&](void* temp, size_t& bytes) {
    return cub::DeviceReduce::Sum(temp, bytes, x, out, n, static_cast<cudaStream_t>(stream));
  });
}

extern "C" int cutlet_cub_reduce_min_max_sum(const float* triples, float* out, int n, void* stream) {
  const MinMaxSum init{std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(), 0.0f};
  return with_temp_storage(reduce_temp, [&](void* temp, size_t& bytes) {
    return cub::DeviceReduce::Reduce(temp, bytes, reinterpret_cast<const MinMaxSum*>(triples),
                                     reinterpret_cast<MinMaxSum*>(out), n, MinMaxSumOp{}, init,
                                     static_cast<cudaStream_t>(stream));
  });
}

extern "C" int cutlet_cub_inclusive_sum(const float* x, float* out, int n, void* stream) {
  return with_temp_storage(scan_temp, [&](void* temp, size_t& bytes) {
    return cub::DeviceScan::InclusiveSum(temp, bytes, x, out, n, static_cast<cudaStream_t>(stream));
  });
}

extern "C" int cutlet_cub_inclusive_sum_by_key(const int* keys, const float* x, float* out, int n, void* stream) {
  return with_temp_storage(scan_temp, [&](void* temp, size_t& bytes) {
    return cub::DeviceScan::InclusiveSumByKey(temp, bytes, keys, x, out, n, ::cuda::std::equal_to<>{},
                                              static_cast<cudaStream_t>(stream));
  });
}

extern "C" int cutlet_cub_histogram256(const unsigned* samples, unsigned* hist, int n, void* stream) {
  const int levels = 257;
  return with_temp_storage(histogram_temp, [&](void* temp, size_t& bytes) {
    return cub::DeviceHistogram::HistogramEven(temp, bytes, samples, hist, levels, 0u, 256u, n,
                                               static_cast<cudaStream_t>(stream));
  });
}

extern "C" int cutlet_cub_segmented_reduce_sum(const float* x, float* out, int num_segments, const int* offsets,
                                               void* stream) {
  return with_temp_storage(segmented_reduce_temp, [&](void* temp, size_t& bytes) {
    return cub::DeviceSegmentedReduce::Sum(temp, bytes, x, out, num_segments, offsets, offsets + 1,
                                           static_cast<cudaStream_t>(stream));
  });
}

extern "C" int cutlet_cub_select_positive(const float* x, float* out, int* num_selected, int n, void* stream) {
  return with_temp_storage(select_temp, [&](void* temp, size_t& bytes) {
    return cub::DeviceSelect::If(temp, bytes, x, out, num_selected, n, Positive{}, static_cast<cudaStream_t>(stream));
  });
}

extern "C" int cutlet_cub_unique_i32(const int* x, int* out, int* num_selected, int n, void* stream) {
  return with_temp_storage(unique_temp, [&](void* temp, size_t& bytes) {
    return cub::DeviceSelect::Unique(temp, bytes, x, out, num_selected, n, static_cast<cudaStream_t>(stream));
  });
}

extern "C" int cutlet_cub_radix_sort_keys_u32(const unsigned* keys_in, unsigned* keys_out, int n, void* stream) {
  return with_temp_storage(sort_temp, [&](void* temp, size_t& bytes) {
    return cub::DeviceRadixSort::SortKeys(temp, bytes, keys_in, keys_out, n, 0, 32, static_cast<cudaStream_t>(stream));
  });
}

extern "C" int cutlet_cub_radix_sort_keys_16(const void* keys_in, void* keys_out, int n, int is_half, void* stream) {
  return with_temp_storage(sort_temp, [&](void* temp, size_t& bytes) {
    if (is_half)
      return cub::DeviceRadixSort::SortKeys(temp, bytes, static_cast<const __half*>(keys_in),
                                            static_cast<__half*>(keys_out), n, 0, 16,
                                            static_cast<cudaStream_t>(stream));
    return cub::DeviceRadixSort::SortKeys(temp, bytes, static_cast<const unsigned short*>(keys_in),
                                          static_cast<unsigned short*>(keys_out), n, 0, 16,
                                          static_cast<cudaStream_t>(stream));
  });
}

extern "C" int cutlet_cub_radix_sort_pairs_u32(const unsigned* keys_in, unsigned* keys_out, const unsigned* values_in,
                                               unsigned* values_out, int n, void* stream) {
  return with_temp_storage(sort_temp, [&](void* temp, size_t& bytes) {
    return cub::DeviceRadixSort::SortPairs(temp, bytes, keys_in, keys_out, values_in, values_out, n, 0, 32,
                                           static_cast<cudaStream_t>(stream));
  });
}

extern "C" int cutlet_cub_three_way_partition(const float* x, float* first, float* second, float* unselected,
                                              int* num_selected, int n, void* stream) {
  return with_temp_storage(partition_temp, [&](void* temp, size_t& bytes) {
    return cub::DevicePartition::If(temp, bytes, x, first, second, unselected, num_selected, n, AboveHalf{},
                                    BelowMinusHalf{}, static_cast<cudaStream_t>(stream));
  });
}

extern "C" int cutlet_cub_merge_sort_keys_u32(const unsigned* keys_in, unsigned* keys_out, int n, void* stream) {
  return with_temp_storage(merge_sort_temp, [&](void* temp, size_t& bytes) {
    return cub::DeviceMergeSort::StableSortKeysCopy(temp, bytes, keys_in, keys_out, n, Less{},
                                              static_cast<cudaStream_t>(stream));
  });
}

extern "C" int cutlet_cub_merge_sort_pairs_u32(const unsigned* keys_in, unsigned* keys_out, const unsigned* values_in,
                                               unsigned* values_out, int n, void* stream) {
  return with_temp_storage(merge_sort_temp, [&](void* temp, size_t& bytes) {
    return cub::DeviceMergeSort::SortPairsCopy(temp, bytes, keys_in, values_in, keys_out, values_out, n, Less{},
                                               static_cast<cudaStream_t>(stream));
  });
}

extern "C" const char* cutlet_cub_error_string(int error) {
  return cudaGetErrorName(static_cast<cudaError_t>(error));
}

extern "C" int cutlet_cub_version(void) { return CUB_VERSION; }

extern "C" int cutlet_cublas_gemm_bf16(int m, int n, int k, const void* a, const void* b, float* c, void* stream) {
  static cublasHandle_t handle = [] {
    cublasHandle_t h = nullptr;
    cublasCreate(&h);
    return h;
  }();
  if (!handle) return 1000 + CUBLAS_STATUS_NOT_INITIALIZED;
  cublasSetStream(handle, static_cast<cudaStream_t>(stream));
  const float one = 1.0f, zero = 0.0f;
  // Row-major C = A B is column-major C^T = B^T A^T.
  cublasStatus_t s = cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, b, CUDA_R_16BF, n, a, CUDA_R_16BF, k,
                                  &zero, c, CUDA_R_32F, n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
  return s == CUBLAS_STATUS_SUCCESS ? 0 : 1000 + static_cast<int>(s);
}

namespace {

__device__ __nv_bfloat16 bias_gelu(float x, float bias) {
  const float v = x + bias;
  return __float2bfloat16_rn(0.5f * v * (1.0f + erff(v * 0.70710678f)));
}

__global__ void bias_gelu_bf16_kernel(const float4* __restrict__ c, const float* __restrict__ bias,
                                      uint2* __restrict__ out, int n, size_t quads) {
  for (size_t q = blockIdx.x * size_t(blockDim.x) + threadIdx.x; q < quads; q += size_t(gridDim.x) * blockDim.x) {
    const float4 v = c[q];
    const int j = static_cast<int>((q * 4) % static_cast<size_t>(n));
    __nv_bfloat162 lo, hi;
    lo.x = bias_gelu(v.x, bias[j]);
    lo.y = bias_gelu(v.y, bias[j + 1]);
    hi.x = bias_gelu(v.z, bias[j + 2]);
    hi.y = bias_gelu(v.w, bias[j + 3]);
    out[q] = make_uint2(*reinterpret_cast<unsigned*>(&lo), *reinterpret_cast<unsigned*>(&hi));
  }
}

}  // namespace

extern "C" int cutlet_bias_gelu_bf16(const float* c, const float* bias, void* out, int m, int n, void* stream) {
  if (n % 4 != 0) return cudaErrorInvalidValue;
  const size_t quads = size_t(m) * n / 4;
  int device = 0, sms = 0;
  cudaGetDevice(&device);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  const int blocks = static_cast<int>(std::min<size_t>((quads + 255) / 256, size_t(sms) * 8));
  bias_gelu_bf16_kernel<<<blocks, 256, 0, static_cast<cudaStream_t>(stream)>>>(
      reinterpret_cast<const float4*>(c), bias, static_cast<uint2*>(out), n, quads);
  return cudaGetLastError();
}

extern "C" int cutlet_cublaslt_gemm_fp8(int m, int n, int k, const void* a, const void* bt, void* c, void* stream) {
  static cublasLtHandle_t handle = [] {
    cublasLtHandle_t h = nullptr;
    cublasLtCreate(&h);
    return h;
  }();
  if (!handle) return 1000 + CUBLAS_STATUS_NOT_INITIALIZED;
  constexpr std::size_t kWorkspace = 32u << 20;
  static void* workspace = [] {
    void* w = nullptr;
    return cudaMalloc(&w, kWorkspace) == cudaSuccess ? w : nullptr;
  }();
  if (!workspace) return 1000 + CUBLAS_STATUS_ALLOC_FAILED;
  // Row-major C [m, n] = A [m, k] Bt^T is column-major C^T [n, m] = Bt A^T, where the
  // column-major views of Bt and A are [k, n] and [k, m]: op(X) = X^T, op(Y) = Y ("TN", the
  // layout FP8 needs), all three with leading dimension k (and n for C).
  cublasLtMatmulDesc_t op = nullptr;
  cublasLtMatrixLayout_t xd = nullptr, yd = nullptr, cd = nullptr;
  cublasLtMatmulPreference_t pref = nullptr;
  cublasStatus_t s = cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F);
  const cublasOperation_t transpose = CUBLAS_OP_T, none = CUBLAS_OP_N;
  if (s == CUBLAS_STATUS_SUCCESS) s = cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &transpose, sizeof transpose);
  if (s == CUBLAS_STATUS_SUCCESS) s = cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &none, sizeof none);
  if (s == CUBLAS_STATUS_SUCCESS) s = cublasLtMatrixLayoutCreate(&xd, CUDA_R_8F_E4M3, k, n, k);
  if (s == CUBLAS_STATUS_SUCCESS) s = cublasLtMatrixLayoutCreate(&yd, CUDA_R_8F_E4M3, k, m, k);
  if (s == CUBLAS_STATUS_SUCCESS) s = cublasLtMatrixLayoutCreate(&cd, CUDA_R_16BF, n, m, n);
  if (s == CUBLAS_STATUS_SUCCESS) s = cublasLtMatmulPreferenceCreate(&pref);
  if (s == CUBLAS_STATUS_SUCCESS)
    s = cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &kWorkspace, sizeof kWorkspace);
  cublasLtMatmulHeuristicResult_t best{};
  int found = 0;
  if (s == CUBLAS_STATUS_SUCCESS) s = cublasLtMatmulAlgoGetHeuristic(handle, op, xd, yd, cd, cd, pref, 1, &best, &found);
  if (s == CUBLAS_STATUS_SUCCESS && found == 0) s = CUBLAS_STATUS_NOT_SUPPORTED;
  const float one = 1.0f, zero = 0.0f;
  if (s == CUBLAS_STATUS_SUCCESS)
    s = cublasLtMatmul(handle, op, &one, bt, xd, a, yd, &zero, c, cd, c, cd, &best.algo, workspace, kWorkspace,
                       static_cast<cudaStream_t>(stream));
  if (pref) cublasLtMatmulPreferenceDestroy(pref);
  if (cd) cublasLtMatrixLayoutDestroy(cd);
  if (yd) cublasLtMatrixLayoutDestroy(yd);
  if (xd) cublasLtMatrixLayoutDestroy(xd);
  if (op) cublasLtMatmulDescDestroy(op);
  return s == CUBLAS_STATUS_SUCCESS ? 0 : 1000 + static_cast<int>(s);
}
