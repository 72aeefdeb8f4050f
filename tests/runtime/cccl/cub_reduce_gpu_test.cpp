// CUB running on cutlet: DeviceReduce::Sum on a cutlet stream, buffer and memory pool
// (needs a GPU; the CUB part is compiled by nvcc).
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <random>
#include <vector>

#include "../../gpu_test_support.h"
#include "cub_reduce.h"
#include "cutlet/runtime/cccl.h"
#include "runtime_test_support.h"
#include "cutlet/runtime/memory_pool.h"

namespace {

TEST(Cub, DeviceReduceSumOnACutletStreamAndPool) {
  CUTLET_REQUIRE_GPU();
  cutlet::Stream s(cutlet::Device(0));
  auto pool = std::make_shared<cutlet::PoolMemoryResource>(s.device());
  const std::size_t n = (std::size_t{1} << 24) + 12345;  // not a multiple of any tile
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> host(n);
  double reference = 0;
  for (float& x : host) {
    x = dist(rng);
    reference += x;
  }
  cutlet::Buffer<float> in(n, s, pool);
  in.copy_from_host(s, host);
  cutlet::Buffer<float> out(1, s, pool);
  out.fill_bytes(s, 0xff);  // NaN: a sum that never ran shows
  s.synchronize();
  const std::size_t used_before = pool->usage().used;
  const std::size_t temp_bytes = cutlet::test::cub_sum(s, in, out, pool);
  EXPECT_GT(temp_bytes, 0u);
  const float sum = out.to_host(s)[0];
  EXPECT_NEAR(sum, reference, 1e-3 * std::sqrt(static_cast<double>(n)));
  // The temporary storage went back to the pool on the stream.
  EXPECT_EQ(pool->usage().used, used_before);
}

TEST(Cub, StreamRefAndResourceRefOnCutletObjects) {
  CUTLET_REQUIRE_GPU();
  cutlet::Stream s(cutlet::Device(0));
  EXPECT_EQ(static_cast<void*>(cutlet::to_stream_ref(s).get()), s.handle());
  auto pinned = std::make_shared<cutlet::PinnedMemoryResource>(s.device());
  cutlet::CcclResource<true> adapter(pinned);
#if CUTLET_CCCL_SYNCHRONOUS_RESOURCE
  cuda::mr::synchronous_resource_ref<cuda::mr::host_accessible> ref{adapter};
  auto* p = static_cast<int*>(ref.allocate_sync(4096, 256));
#else
  cuda::mr::resource_ref<cuda::mr::host_accessible> ref{adapter};
  auto* p = static_cast<int*>(ref.allocate(4096, 256));
#endif
  for (int i = 0; i < 1024; ++i) p[i] = i;  // host-accessible indeed
  EXPECT_EQ(p[1023], 1023);
#if CUTLET_CCCL_SYNCHRONOUS_RESOURCE
  ref.deallocate_sync(p, 4096, 256);
#else
  ref.deallocate(p, 4096, 256);
#endif
  EXPECT_EQ(adapter, cutlet::CcclResource<true>(pinned));
  EXPECT_CONTAINS(cutlet::test::error_message([&] {
                    cutlet::CcclResource<true> bad(cutlet::DeviceMemoryResource::shared(s.device()));
                  }),
                  "not host-accessible");
}

}  // namespace
