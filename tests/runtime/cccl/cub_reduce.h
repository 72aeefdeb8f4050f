// CUB's DeviceReduce::Sum on a cutlet stream and cutlet memory, compiled by nvcc (cub_reduce.cu).
#pragma once

#include <memory>

#include "cutlet/runtime/buffer.h"
#include "cutlet/runtime/memory_resource.h"
#include "cutlet/runtime/stream.h"

namespace cutlet::test {

/// Queues cub::DeviceReduce::Sum of `in` into out[0] on `stream` (through cuda::stream_ref),
/// with CUB's temporary storage taken from `temp` (through CcclResource and CCCL's
/// stream-ordered resource reference: cuda::mr::resource_ref from CCCL 3.1,
/// cuda::mr::async_resource_ref before) and given back on the stream. Returns the bytes of
/// temporary storage CUB asked for. Throws cutlet::Error when a CUDA runtime call fails.
std::size_t cub_sum(const Stream& stream, const Buffer<float>& in, Buffer<float>& out,
                    const std::shared_ptr<MemoryResource>& temp);

}  // namespace cutlet::test
