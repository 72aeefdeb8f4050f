// The CUB peers of the benchmarks (see cub_baselines.h), built by nvcc into a shared library.
#include <cublas_v2.h>
#include <cub/device/device_histogram.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_transform.cuh>
#include <cub/version.cuh>

#include <cuda/std/tuple>

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

TempStorage reduce_temp, scan_temp, histogram_temp;

struct Saxpy {
  float a;
  __device__ float operator()(float x, float y) const { return a * x + y; }
};

}  // namespace

extern "C" int cutlet_cub_saxpy(float a, const float* x, float* y, int n, void* stream) {
  return cub::DeviceTransform::Transform(::cuda::std::make_tuple(x, static_cast<const float*>(y)), y, n, Saxpy{a},
                                         static_cast<cudaStream_t>(stream));
}

extern "C" int cutlet_cub_reduce_sum(const float* x, float* out, int n, void* stream) {
  size_t need = 0;
  cudaError_t e = cub::DeviceReduce::Sum(nullptr, need, x, out, n, static_cast<cudaStream_t>(stream));
  if (e == cudaSuccess) e = reduce_temp.reserve(need);
  if (e == cudaSuccess)
    e = cub::DeviceReduce::Sum(reduce_temp.ptr, need, x, out, n, static_cast<cudaStream_t>(stream));
  return e;
}

extern "C" int cutlet_cub_inclusive_sum(const float* x, float* out, int n, void* stream) {
  size_t need = 0;
  cudaError_t e = cub::DeviceScan::InclusiveSum(nullptr, need, x, out, n, static_cast<cudaStream_t>(stream));
  if (e == cudaSuccess) e = scan_temp.reserve(need);
  if (e == cudaSuccess)
    e = cub::DeviceScan::InclusiveSum(scan_temp.ptr, need, x, out, n, static_cast<cudaStream_t>(stream));
  return e;
}

extern "C" int cutlet_cub_histogram256(const unsigned* samples, unsigned* hist, int n, void* stream) {
  size_t need = 0;
  const int levels = 257;
  cudaError_t e = cub::DeviceHistogram::HistogramEven(nullptr, need, samples, hist, levels, 0u, 256u, n,
                                                      static_cast<cudaStream_t>(stream));
  if (e == cudaSuccess) e = histogram_temp.reserve(need);
  if (e == cudaSuccess)
    e = cub::DeviceHistogram::HistogramEven(histogram_temp.ptr, need, samples, hist, levels, 0u, 256u, n,
                                            static_cast<cudaStream_t>(stream));
  return e;
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
