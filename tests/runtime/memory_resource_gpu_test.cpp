// Memory resources: pool reuse and release threshold, stream-ordered frees, pinned and
// managed memory, allocation failures and use after free (of a GPU, or of the CPU device).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <vector>

#include "../gpu_test_support.h"
#include "cutlet/runtime/buffer.h"
#include "cutlet/runtime/cuda_error.h"
#include "cutlet/runtime/launch.h"
#include "cutlet/runtime/memory_pool.h"
#include "cutlet/runtime/module.h"
#include "runtime_test_support.h"
#include "test_functions.h"

namespace {

constexpr std::size_t kMiB = std::size_t{1} << 20;

TEST(MemoryPool, SecondAllocationAfterAFreeReusesThePool) {
  CUTLET_REQUIRE_GPU();
  cutlet::Stream s(cutlet::Device(0));
  auto pool = std::make_shared<cutlet::PoolMemoryResource>(
      s.device(), cutlet::PoolOptions{.release_threshold = std::numeric_limits<std::size_t>::max()});
  EXPECT_TRUE(pool->stream_ordered());
  EXPECT_EQ(pool->usage().reserved, 0u);
  {
    cutlet::Buffer<float> a(kMiB / sizeof(float), s, pool);
    EXPECT_EQ(pool->usage().used, kMiB);
    a.fill_bytes(s, 1);
  }  // freed on s, stream-ordered
  s.synchronize();
  const cutlet::PoolUsage after_free = pool->usage();
  EXPECT_EQ(after_free.used, 0u);
  ASSERT_GE(after_free.reserved, kMiB);  // kept: the threshold is above the working set
  pool->reset_peaks();
  {
    cutlet::Buffer<float> b(kMiB / sizeof(float), s, pool);
    // Served from the reserved memory: the driver's allocator was not called, so nothing new
    // was reserved (the high-water mark did not move), and the same block came back.
    const cutlet::PoolUsage u = pool->usage();
    EXPECT_EQ(u.reserved, after_free.reserved);
    EXPECT_EQ(u.reserved_high, after_free.reserved);
    EXPECT_EQ(u.used, kMiB);
    EXPECT_NE(b.data(), 0u);
  }
  s.synchronize();
}

TEST(MemoryPool, ZeroReleaseThresholdReturnsMemoryAtSynchronization) {
  CUTLET_REQUIRE_GPU();
  cutlet::Stream s(cutlet::Device(0));
  auto pool = std::make_shared<cutlet::PoolMemoryResource>(s.device());
  EXPECT_EQ(pool->release_threshold(), 0u);
  {
    cutlet::Buffer<std::uint8_t> a(64 * kMiB, s, pool);
    EXPECT_GE(pool->usage().reserved, 64 * kMiB);
  }
  s.synchronize();  // the pool shrinks back to its threshold here
  EXPECT_EQ(pool->usage().reserved, 0u);
  pool->set_release_threshold(256 * kMiB);
  EXPECT_EQ(pool->release_threshold(), 256 * kMiB);
  {
    cutlet::Buffer<std::uint8_t> a(64 * kMiB, s, pool);
  }
  s.synchronize();
  EXPECT_GE(pool->usage().reserved, 64 * kMiB);
  pool->trim_to(0);
  EXPECT_EQ(pool->usage().reserved, 0u);
}

TEST(MemoryPool, BufferKeepsItsStreamAndResourceAlive) {
  CUTLET_REQUIRE_GPU();
  auto pool = std::make_shared<cutlet::PoolMemoryResource>(cutlet::Device(0));
  std::weak_ptr<cutlet::PoolMemoryResource> weak = pool;
  const std::vector<int> host(1000, 7);
  std::vector<int> back;
  {
    std::optional<cutlet::Buffer<int>> b;
    {
      cutlet::Stream s(cutlet::Device(0));
      b.emplace(host.size(), s, pool);
      b->copy_from_host(s, host);
      back = b->to_host(s);
    }  // the Stream object is gone; the buffer still frees on its stream later
    pool.reset();
    EXPECT_FALSE(weak.expired());  // the buffer holds the pool
    EXPECT_EQ(b->resource().get(), weak.lock().get());
  }
  EXPECT_TRUE(weak.expired());
  EXPECT_EQ(back, host);
}

TEST(MemoryPool, DefaultPoolIsStreamOrdered) {
  CUTLET_REQUIRE_GPU();
  cutlet::Stream s(cutlet::Device(0));
  const auto& pool = cutlet::PoolMemoryResource::device_default(s.device());
  EXPECT_EQ(pool.get(), cutlet::PoolMemoryResource::device_default(s.device()).get());
  cutlet::Buffer<double> b(12345, s);  // from the default pool
  EXPECT_EQ(b.resource().get(), pool.get());
  b.fill_bytes(s, 0);
  EXPECT_EQ(b.to_host(s)[12344], 0.0);
}

TEST(MemoryPool, DefaultPoolKeepsFreedMemoryAcrossSynchronizations) {
  CUTLET_REQUIRE_GPU();
  cutlet::Stream s(cutlet::Device(0));
  const auto& pool = cutlet::PoolMemoryResource::device_default(s.device());
  EXPECT_EQ(pool->release_threshold(), std::numeric_limits<std::size_t>::max());
  {
    cutlet::Buffer<std::uint8_t> a(64 * kMiB, s);
    a.fill_bytes(s, 1);
  }
  s.synchronize();  // a pool with the driver's threshold of 0 would shrink here
  EXPECT_GE(pool->usage().reserved, 64 * kMiB);
}

TEST(MemoryPool, FailureSaysAskedAndFree) {
  CUTLET_REQUIRE_GPU();
  cutlet::Stream s(cutlet::Device(0));
  auto pool = std::make_shared<cutlet::PoolMemoryResource>(s.device());
  const std::size_t huge = std::size_t{1} << 50;
  try {
    cutlet::DeviceMemory m(huge, s, pool);
    FAIL() << "allocating 1 PiB from a pool did not throw";
  } catch (const cutlet::CudaError& e) {
    EXPECT_CONTAINS(e.what(), std::to_string(huge) + " bytes were requested");
    EXPECT_CONTAINS(e.what(), "free");
    EXPECT_CONTAINS(e.what(), "memory pool");
  }
}

TEST(MemoryPool, StreamOfAnotherDeviceIsRejected) {
  CUTLET_REQUIRE_CUDA("the driver's memory pools");
  if (cutlet::Device::count() < 2) GTEST_SKIP() << "needs 2 GPUs";
  cutlet::Stream s1(cutlet::Device(1));
  auto pool0 = std::make_shared<cutlet::PoolMemoryResource>(cutlet::Device(0));
  EXPECT_CONTAINS(cutlet::test::error_message([&] { cutlet::Buffer<int> b(10, s1, pool0); }),
                  "use a stream of the resource's device");
}

TEST(Buffer, UseAfterFreeSaysFreed) {
  CUTLET_REQUIRE_GPU();
  cutlet::Stream s(cutlet::Device(0));
  cutlet::Buffer<int> b(100, s);
  b.fill_bytes(s, 0);
  b.free(s);
  EXPECT_TRUE(b.freed());
  EXPECT_TRUE(b.empty());
  std::vector<int> host(100);
  EXPECT_CONTAINS(cutlet::test::error_message([&] { b.copy_to_host(s, std::span<int>(host)); }), "freed");
  EXPECT_CONTAINS(cutlet::test::error_message([&] { b.fill_bytes(s, 1); }), "freed");
  cutlet::DeviceMemory m(64, s.device());
  m.free();
  EXPECT_CONTAINS(cutlet::test::error_message([&] { m.copy_to_host(s, host.data(), 4); }), "freed");
  b = cutlet::Buffer<int>(5, s);  // a new allocation makes it usable again
  EXPECT_FALSE(b.freed());
  b.fill_bytes(s, 0);
  s.synchronize();
}

TEST(PinnedMemory, HostWritesReachTheDeviceAndBack) {
  CUTLET_REQUIRE_GPU();
  cutlet::Stream s(cutlet::Device(0));
  auto pinned = std::make_shared<cutlet::PinnedMemoryResource>(s.device());
  EXPECT_TRUE(pinned->host_accessible());
  cutlet::Buffer<std::uint32_t> h(4099, pinned);
  std::span<std::uint32_t> hs = h.host_span();
  for (std::uint32_t i = 0; i < hs.size(); ++i) hs[i] = 3 * i + 1;
  cutlet::Buffer<std::uint32_t> d(4099, s.device());
  d.copy_from(s, h);  // pinned -> device
  const std::vector<std::uint32_t> back = d.to_host(s);
  for (std::uint32_t i = 0; i < back.size(); ++i) ASSERT_EQ(back[i], 3 * i + 1);
  const cutlet::PointerInfo info = cutlet::pointer_info(h.data());
  EXPECT_TRUE(info.known);
  EXPECT_EQ(info.kind, cutlet::MemoryKind::pinned_host);
  EXPECT_EQ(cutlet::pointer_info(d.data()).kind, cutlet::MemoryKind::device);
  EXPECT_EQ(cutlet::pointer_info(d.data()).device, s.device().ordinal());
  EXPECT_EQ(cutlet::pointer_info(d.data() + 4 * 4098).kind, cutlet::MemoryKind::device);  // inside it
  int on_stack = 0;
  EXPECT_FALSE(cutlet::pointer_info(reinterpret_cast<std::uintptr_t>(&on_stack)).known);
  cutlet::Buffer<std::uint32_t> plain(10, s.device());
  if (s.device().is_cpu())
    EXPECT_EQ(plain.host_span().data(), reinterpret_cast<std::uint32_t*>(plain.data()));  // all host memory there
  else
    EXPECT_CONTAINS(cutlet::test::error_message([&] { (void)plain.host_span(); }), "not host-accessible");
}

TEST(ManagedMemory, KernelWritesAreReadByTheHost) {
  CUTLET_REQUIRE_GPU();
  cutlet::Stream s(cutlet::Device(0));
  if (!s.device().properties().managed_memory) GTEST_SKIP() << "no managed memory";
  auto managed = std::make_shared<cutlet::ManagedMemoryResource>(s.device());
  const std::uint32_t n = 10007;
  cutlet::Buffer<std::uint32_t> m(n, managed);
  for (auto& x : m.host_span()) x = 0xffffffffu;  // poison from the host
  EXPECT_EQ(cutlet::pointer_info(m.data()).kind, cutlet::MemoryKind::managed);
  const cutlet::test::TestFunctions mod(s.device());
  std::uint64_t p = m.data();
  std::uint32_t count = n - 1;  // leave the last element alone
  void* args[] = {&p, &count};
  cutlet::launch(s, mod.function("write42"), {.grid = cutlet::ceil_div(n, 256), .block = 256}, args);
  s.synchronize();
  const std::span<std::uint32_t> hs = m.host_span();
  for (std::uint32_t i = 0; i + 1 < n; ++i) ASSERT_EQ(hs[i], 42 + i);
  EXPECT_EQ(hs[n - 1], 0xffffffffu);
}

TEST(DeviceMemoryResource, SharedInstanceAndDescription) {
  CUTLET_REQUIRE_GPU();
  const auto& r = cutlet::DeviceMemoryResource::shared(cutlet::Device(0));
  EXPECT_EQ(r.get(), cutlet::DeviceMemoryResource::shared(cutlet::Device(0)).get());
  EXPECT_FALSE(r->stream_ordered());
  EXPECT_FALSE(r->host_accessible());
  EXPECT_CONTAINS(r->describe(), cutlet::Device(0).is_cpu() ? "the host memory of the CPU device" : "cuMemAlloc");
  cutlet::Buffer<int> b(10, cutlet::Device(0));
  EXPECT_EQ(b.resource().get(), r.get());
  const std::uint64_t a = r->allocate(1000);
  EXPECT_NE(a, 0u);
  EXPECT_EQ(a % 256, 0u);
  r->deallocate(a, 1000);
}

}  // namespace
