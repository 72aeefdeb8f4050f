// Device discovery, properties, cached limits and contexts (of a GPU, or of the CPU device).
#include <gtest/gtest.h>

#include <string>
#include <thread>

#include "../gpu_test_support.h"
#include "cutlet/error.h"
#include "cutlet/runtime/device.h"
#include "runtime_test_support.h"

namespace {

// CUdevice_attribute values from cuda.h, which the tests do not include.
constexpr int kAttrMaxThreadsPerBlock = 1;
constexpr int kAttrWarpSize = 10;
constexpr int kAttrMultiprocessorCount = 16;
constexpr int kAttrMaxThreadsPerSm = 39;
constexpr int kAttrL2PersistingMax = 108;  // CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE

TEST(Device, CountAndProperties) {
  CUTLET_REQUIRE_GPU();
  ASSERT_GE(cutlet::Device::count(), 1);
  cutlet::Device d(0);
  EXPECT_FALSE(d.name().empty());
  const cutlet::ComputeCapability cc = d.compute_capability();
  if (d.is_cpu()) {
    EXPECT_EQ(cutlet::Device::count(), 1);
    EXPECT_EQ(d, cutlet::Device::cpu());
    EXPECT_CONTAINS(d.name(), "CPU");
    EXPECT_EQ(cc, (cutlet::ComputeCapability{0, 0}));  // no GPU architecture
    EXPECT_CONTAINS(cutlet::test::error_message([&] { (void)d.attribute(kAttrL2PersistingMax); }),
                    "does not model CUDA device attribute");
  } else {
    EXPECT_EQ(d.ordinal(), 0);
    EXPECT_GE(cc, (cutlet::ComputeCapability{7, 0})) << "sm_" << cc.sm();
  }
  EXPECT_EQ(cc.sm(), cc.major * 10 + cc.minor);
  EXPECT_GT(d.sm_count(), 0);
  EXPECT_EQ(d.sm_count(), d.attribute(kAttrMultiprocessorCount));
  EXPECT_GT(d.total_memory(), std::size_t{1} << 30);
}

TEST(Device, LimitsAreSaneAndCached) {
  CUTLET_REQUIRE_GPU();
  cutlet::Device d(0);
  const cutlet::DeviceLimits& l = d.limits();
  EXPECT_EQ(&l, &cutlet::Device(0).limits());  // one cached copy per device
  EXPECT_EQ(l.max_threads_per_block, d.attribute(kAttrMaxThreadsPerBlock));
  EXPECT_EQ(l.max_threads_per_block, 1024);
  EXPECT_EQ(l.warp_size, 32);
  EXPECT_EQ(l.warp_size, d.attribute(kAttrWarpSize));
  EXPECT_EQ(l.max_block[0], 1024);
  EXPECT_EQ(l.max_block[1], 1024);
  EXPECT_EQ(l.max_block[2], 64);
  EXPECT_EQ(l.max_grid[0], 2147483647);
  EXPECT_EQ(l.max_grid[1], 65535);
  EXPECT_EQ(l.max_grid[2], 65535);
  EXPECT_EQ(l.max_shared_per_block, 48u * 1024);
  EXPECT_GE(l.max_shared_per_block_optin, l.max_shared_per_block);
  EXPECT_EQ(l.sm_count, d.sm_count());
}

TEST(Device, OutOfRangeOrdinalNamesTheCount) {
  CUTLET_REQUIRE_GPU();
  const int n = cutlet::Device::count();
  const std::string msg = cutlet::test::error_message([&] { cutlet::Device bad(n); });
  EXPECT_CONTAINS(msg, "device " + std::to_string(n) + " requested but " + std::to_string(n));
  EXPECT_CONTAINS(msg, "present");
  EXPECT_THROW(cutlet::Device(-1), cutlet::Error);
}

TEST(Device, PrimaryContextBecomesCurrent) {
  CUTLET_REQUIRE_GPU();
  cutlet::Device d(0);
  EXPECT_EQ(d.context(), cutlet::Device(0).context());
  if (d.is_cpu())
    EXPECT_EQ(d.context(), nullptr);  // the CPU device has no CUDA context
  else
    EXPECT_NE(d.context(), nullptr);
  d.set_current();
  EXPECT_EQ(cutlet::Device::current(), d);
  d.synchronize();
  // A new thread has no current context: current() falls back to device 0.
  cutlet::Device other_thread_device = cutlet::Device::cpu();
  std::thread([&] { other_thread_device = cutlet::Device::current(); }).join();
  EXPECT_EQ(other_thread_device, cutlet::Device(0));
}

TEST(Device, Equality) {
  CUTLET_REQUIRE_GPU();
  EXPECT_EQ(cutlet::Device(0), cutlet::Device());
  if (cutlet::Device::count() > 1) {
    EXPECT_NE(cutlet::Device(0), cutlet::Device(1));
  }
}

TEST(Device, PropertiesForTuners) {
  CUTLET_REQUIRE_GPU();
  cutlet::Device d(0);
  const cutlet::DeviceProperties& p = d.properties();
  EXPECT_EQ(&p, &cutlet::Device(0).properties());  // cached
  EXPECT_EQ(p.name, d.name());
  EXPECT_EQ(p.sm_count, d.sm_count());
  EXPECT_EQ(p.compute_capability, d.compute_capability());
  EXPECT_GE(p.max_threads_per_sm, p.max_threads_per_block);
  EXPECT_GE(p.max_blocks_per_sm, 16);
  EXPECT_GE(p.shared_per_sm, p.shared_per_block_optin);
  EXPECT_EQ(p.shared_per_block, 48u * 1024);
  EXPECT_EQ(p.total_memory, d.total_memory());
  EXPECT_TRUE(p.unified_addressing);
  EXPECT_TRUE(p.memory_pools);
  EXPECT_TRUE(p.cooperative_launch);
  EXPECT_EQ(p.cluster_launch, p.compute_capability.major >= 9);
  EXPECT_EQ(p.max_threads_per_sm, d.attribute(kAttrMaxThreadsPerSm));
  if (d.is_cpu()) {
    // Host memory and the host's threads: no registers, PCI address or copy engines of a GPU.
    EXPECT_TRUE(p.integrated);
    EXPECT_TRUE(p.managed_memory);
    EXPECT_TRUE(p.pci_bus_id.empty());
    EXPECT_EQ(p.async_engine_count, 0);
  } else {
    EXPECT_GE(p.registers_per_sm, 65536);
    EXPECT_GE(p.registers_per_block, 65536);
    EXPECT_GT(p.l2_cache_bytes, std::size_t{1} << 20);
    EXPECT_FALSE(p.pci_bus_id.empty());
    EXPECT_GT(p.async_engine_count, 0);
  }
  const std::size_t free_bytes = d.free_memory();
  EXPECT_GT(free_bytes, 0u);
  EXPECT_LE(free_bytes, d.total_memory());
  EXPECT_EQ(cutlet::Device::all().size(), static_cast<std::size_t>(cutlet::Device::count()));
  EXPECT_FALSE(d.can_access_peer(d));
  EXPECT_CONTAINS(cutlet::test::error_message([&] { d.enable_peer_access(d); }), "its own peer");
}

}  // namespace
