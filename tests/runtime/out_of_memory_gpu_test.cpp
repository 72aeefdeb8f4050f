// Allocations larger than the device: the error gives the requested size and the free and
// total memory, nothing is leaked, and normal allocations go on working.
#include <gtest/gtest.h>

#include <cutlet/runtime/host_allocations.h>
#include <cutlet/runtime/runtime.h>

#include <cstdint>
#include <string>
#include <vector>

#include "gpu_test_support.h"
#include "runtime_test_support.h"

using namespace cutlet;

namespace {

constexpr std::size_t kTiB = std::size_t{1} << 40;

TEST(OutOfMemoryGpu, MessageNamesRequestedSizeAndFreeMemory) {
  CUTLET_REQUIRE_GPU();  // on the CPU device too, whose device memory is the host's
  Device device(0);
  ASSERT_LT(device.total_memory(), kTiB) << "a device with 1 TiB: pick a larger request";
  try {
    Buffer<std::uint8_t> huge(kTiB, device);
    FAIL() << "allocating 1 TiB did not throw";
  } catch (const CudaError& e) {
    EXPECT_FALSE(dynamic_cast<const ContextFaultError*>(&e)) << "running out of memory poisons nothing";
    EXPECT_EQ(e.name(), "CUDA_ERROR_OUT_OF_MEMORY");
    EXPECT_CONTAINS(e.what(), std::to_string(kTiB) + " bytes were requested (1.00 TiB)");
    EXPECT_CONTAINS(e.what(), "of device memory are free");
    EXPECT_CONTAINS(e.what(), "where ");
  }
  EXPECT_FALSE(device.poisoned());

  // The same through the stream-ordered default pool.
  Stream s(device);
  try {
    Buffer<std::uint8_t> huge(kTiB, s);
    FAIL() << "allocating 1 TiB from the pool did not throw";
  } catch (const CudaError& e) {
    EXPECT_CONTAINS(e.what(), std::to_string(kTiB) + " bytes were requested");
    EXPECT_CONTAINS(e.what(), "of device memory are free");
  }

  // Normal allocations still work, and hold what is written to them.
  std::vector<int> host(1 << 20);
  for (std::size_t i = 0; i < host.size(); ++i) host[i] = static_cast<int>(i * 3);
  Buffer<int> b(s, host);
  EXPECT_EQ(b.to_host(s), host);
}

TEST(OutOfMemoryGpu, FailedAllocationsLeakNothing) {
  CUTLET_REQUIRE_GPU();
  Device device(0);
  Stream s(device);
  { Buffer<float> warm(1 << 20, device); }  // the context's own reservations are made
  s.synchronize();
  // The free memory of a GPU; on the CPU device, whose free memory (the host's) moves with every
  // process, a count that falls as its live allocations grow.
  auto free_memory = [&] {
    return device.is_cpu() ? (std::size_t{1} << 60) - host_allocation_totals().bytes : device.free_memory();
  };
  const std::size_t before = free_memory();
  for (int i = 0; i < 50; ++i) {
    EXPECT_THROW(Buffer<std::uint8_t>(kTiB, device), CudaError);
    EXPECT_THROW(Buffer<std::uint8_t>(kTiB, s), CudaError);
    // A success in between: its memory goes back when the buffer dies.
    Buffer<float> ok(1 << 20, device);
  }
  s.synchronize();
  // The pool may keep what it released for reuse; at most the one allocation it served.
  const std::size_t after = free_memory();
  EXPECT_GE(after + (std::size_t{8} << 20), before) << "free memory fell from " << before << " to " << after;
}

}  // namespace
