// CUB's DeviceReduce::Sum on a cutlet stream, with temporary storage from a cutlet resource.
#include "cub_reduce.h"

#include <cub/device/device_reduce.cuh>

#include <string>

#include "cutlet/runtime/cccl.h"

namespace cutlet::test {
namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess)
    throw Error(std::string("cub_sum: ") + what + " failed: " + cudaGetErrorName(e) + ": " + cudaGetErrorString(e));
}

}  // namespace

std::size_t cub_sum(const Stream& stream, const Buffer<float>& in, Buffer<float>& out,
                    const std::shared_ptr<MemoryResource>& temp) {
  const cuda::stream_ref ref = to_stream_ref(stream);
  CcclResource<> adapter(temp);
#if CUTLET_CCCL_SYNCHRONOUS_RESOURCE
  cuda::mr::resource_ref<cuda::mr::device_accessible> mr{adapter};  // stream-ordered from CCCL 3.1
#else
  cuda::mr::async_resource_ref<cuda::mr::device_accessible> mr{adapter};
#endif
  const auto* d_in = reinterpret_cast<const float*>(static_cast<std::uintptr_t>(in.data()));
  auto* d_out = reinterpret_cast<float*>(static_cast<std::uintptr_t>(out.data()));
  const int n = static_cast<int>(in.size());
  std::size_t temp_bytes = 0;
  check(cub::DeviceReduce::Sum(nullptr, temp_bytes, d_in, d_out, n, ref.get()), "DeviceReduce::Sum (size query)");
#if CUTLET_CCCL_SYNCHRONOUS_RESOURCE
  void* storage = mr.allocate(ref, temp_bytes, 256);
#else
  void* storage = mr.allocate_async(temp_bytes, 256, ref);
#endif
  check(cub::DeviceReduce::Sum(storage, temp_bytes, d_in, d_out, n, ref.get()), "DeviceReduce::Sum");
#if CUTLET_CCCL_SYNCHRONOUS_RESOURCE
  mr.deallocate(ref, storage, temp_bytes, 256);
#else
  mr.deallocate_async(storage, temp_bytes, 256, ref);
#endif
  return temp_bytes;
}

}  // namespace cutlet::test
