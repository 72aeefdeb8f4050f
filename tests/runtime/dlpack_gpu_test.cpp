// DLPack round trips of cutlet buffers: shape, strides, dtype, device type, and freeing
// through the deleter (needs a GPU).
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "../gpu_test_support.h"
#include "cutlet/runtime/dlpack.h"
#include "cutlet/runtime/memory_pool.h"
#include "runtime_test_support.h"

namespace {

TEST(DLPack, RoundTripOfAPoolBuffer) {
  CUTLET_REQUIRE_GPU();
  cutlet::Stream s(cutlet::Device(0));
  auto pool = std::make_shared<cutlet::PoolMemoryResource>(s.device());
  const std::int64_t rows = 37, cols = 129;
  std::vector<float> host(static_cast<std::size_t>(rows * cols));
  for (std::size_t i = 0; i < host.size(); ++i) host[i] = 0.5f * static_cast<float>(i) - 100.0f;
  cutlet::Buffer<float> b(host.size(), s, pool);
  b.copy_from_host(s, host);
  s.synchronize();
  const std::uint64_t address = b.data();

  DLManagedTensor* exported = cutlet::to_dlpack(std::move(b), {rows, cols});
  EXPECT_TRUE(b.empty());  // the tensor owns the memory now
  const DLTensor& t = exported->dl_tensor;
  EXPECT_EQ(t.device.device_type, kDLCUDA);
  EXPECT_EQ(t.device.device_id, 0);
  EXPECT_EQ(t.ndim, 2);
  EXPECT_EQ(t.shape[0], rows);
  EXPECT_EQ(t.strides[0], cols);
  EXPECT_EQ(t.strides[1], 1);
  EXPECT_EQ(t.dtype.code, kDLFloat);
  EXPECT_EQ(t.dtype.bits, 32);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(t.data), address);
  EXPECT_GE(pool->usage().used, host.size() * sizeof(float));
  {
    cutlet::DLPackTensor imported(exported);  // as another library would receive it
    EXPECT_EQ(imported.device(), s.device());
    EXPECT_TRUE(imported.contiguous());
    const cutlet::Buffer<float> view = imported.buffer<float>();
    EXPECT_FALSE(view.memory().owning());
    EXPECT_EQ(view.data(), address);
    EXPECT_EQ(view.to_host(s), host);
  }  // the deleter frees the memory, stream-ordered, back into the pool
  s.synchronize();
  EXPECT_EQ(pool->usage().used, 0u);
}

TEST(DLPack, StridedPinnedAndManagedExports) {
  CUTLET_REQUIRE_GPU();
  cutlet::Device d(0);
  auto pinned = std::make_shared<cutlet::PinnedMemoryResource>(d);
  cutlet::Buffer<std::int16_t> p(100, pinned);
  DLManagedTensor* t = cutlet::to_dlpack(std::move(p), {10, 5}, {10, 2});  // every other column
  EXPECT_EQ(t->dl_tensor.device.device_type, kDLCUDAHost);
  EXPECT_EQ(t->dl_tensor.dtype.code, kDLInt);
  EXPECT_EQ(t->dl_tensor.dtype.bits, 16);
  cutlet::DLPackTensor imported(t);
  EXPECT_FALSE(imported.contiguous());
  EXPECT_CONTAINS(cutlet::test::error_message([&] { (void)imported.buffer<std::int16_t>(); }), "not contiguous");
  auto managed = std::make_shared<cutlet::ManagedMemoryResource>(d);
  DLManagedTensor* m = cutlet::to_dlpack(cutlet::Buffer<double>(8, managed), {8});
  EXPECT_EQ(m->dl_tensor.device.device_type, kDLCUDAManaged);
  m->deleter(m);
  // A view that reaches past the memory is refused.
  EXPECT_CONTAINS(cutlet::test::error_message([&] { (void)cutlet::to_dlpack(cutlet::Buffer<float>(10, d), {11}); }),
                  "44 bytes");
}

}  // namespace
