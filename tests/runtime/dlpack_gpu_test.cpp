// DLPack round trips of cutlet buffers, unversioned (0.x) and versioned (1.x): shape, strides,
// dtype (f16 and bf16 too), device type, read-only flags, and freeing through the deleter
// (on a GPU, or on the CPU device, whose memory is all host memory: kDLCPU).
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "../gpu_test_support.h"
#include "cutlet/language/half.h"
#include "cutlet/runtime/dlpack.h"
#include "cutlet/runtime/memory_pool.h"
#include "runtime_test_support.h"

namespace {

/// The DLPack device type of memory of `device` that a GPU's memory of type `gpu_type` has:
/// on the CPU device, all memory is host memory.
DLDeviceType memory_type(const cutlet::Device& device, DLDeviceType gpu_type) {
  return device.is_cpu() ? kDLCPU : gpu_type;
}

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
  EXPECT_EQ(t.device.device_type, memory_type(s.device(), kDLCUDA));
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
  EXPECT_EQ(t->dl_tensor.device.device_type, memory_type(d, kDLCUDAHost));
  EXPECT_EQ(t->dl_tensor.device.device_id, 0);
  EXPECT_EQ(t->dl_tensor.dtype.code, kDLInt);
  EXPECT_EQ(t->dl_tensor.dtype.bits, 16);
  cutlet::DLPackTensor imported(t);
  EXPECT_FALSE(imported.contiguous());
  EXPECT_CONTAINS(cutlet::test::error_message([&] { (void)imported.buffer<std::int16_t>(); }), "not contiguous");
  auto managed = std::make_shared<cutlet::ManagedMemoryResource>(d);
  DLManagedTensor* m = cutlet::to_dlpack(cutlet::Buffer<double>(8, managed), {8});
  EXPECT_EQ(m->dl_tensor.device.device_type, memory_type(d, kDLCUDAManaged));
  EXPECT_EQ(m->dl_tensor.device.device_id, 0);  // as DLPack prescribes for managed memory
  m->deleter(m);
  // A view that reaches past the memory is refused.
  EXPECT_CONTAINS(cutlet::test::error_message([&] { (void)cutlet::to_dlpack(cutlet::Buffer<float>(10, d), {11}); }),
                  "44 bytes");
}

TEST(DLPack, VersionedRoundTripOfAPoolBuffer) {
  CUTLET_REQUIRE_GPU();
  cutlet::Stream s(cutlet::Device(0));
  auto pool = std::make_shared<cutlet::PoolMemoryResource>(s.device());
  const std::int64_t rows = 19, cols = 77;
  std::vector<float> host(static_cast<std::size_t>(rows * cols));
  for (std::size_t i = 0; i < host.size(); ++i) host[i] = 0.25f * static_cast<float>(i) - 7.0f;
  cutlet::Buffer<float> b(host.size(), s, pool);
  b.copy_from_host(s, host);
  s.synchronize();
  const std::uint64_t address = b.data();

  DLManagedTensorVersioned* exported = cutlet::to_dlpack_versioned(std::move(b), {rows, cols});
  EXPECT_TRUE(b.empty());
  EXPECT_EQ(exported->version.major, 1u);
  EXPECT_EQ(exported->flags, 0u);
  EXPECT_EQ(exported->dl_tensor.device.device_type, memory_type(s.device(), kDLCUDA));
  EXPECT_EQ(exported->dl_tensor.strides[0], cols);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(exported->dl_tensor.data), address);
  {
    cutlet::DLPackTensor imported(exported);
    EXPECT_TRUE(imported.versioned());
    EXPECT_FALSE(imported.read_only());
    EXPECT_EQ(imported.device(), s.device());
    const cutlet::Buffer<float> view = imported.buffer<float>();
    EXPECT_EQ(view.data(), address);
    EXPECT_EQ(view.to_host(s), host);
  }  // the deleter, called once, frees the memory into the pool, stream-ordered
  s.synchronize();
  EXPECT_EQ(pool->usage().used, 0u);
}

/// Exports `values` as a versioned tensor of T, imports it, and reads it back through a view.
template <class T>
void expect_16_bit_round_trip(const cutlet::Stream& s, const std::vector<T>& values, DLDataTypeCode code) {
  cutlet::Buffer<T> b(s, values);
  const auto n = static_cast<std::int64_t>(values.size());
  DLManagedTensorVersioned* exported = cutlet::to_dlpack_versioned(std::move(b), {n});
  EXPECT_EQ(exported->dl_tensor.dtype.code, code);
  EXPECT_EQ(exported->dl_tensor.dtype.bits, 16);
  cutlet::DLPackTensor imported(exported);
  const std::vector<T> back = imported.buffer<T>().to_host(s);
  ASSERT_EQ(back.size(), values.size());
  for (std::size_t i = 0; i < values.size(); ++i) EXPECT_EQ(back[i].bits, values[i].bits) << i;
}

TEST(DLPack, HalfAndBfloat16RoundTrips) {
  CUTLET_REQUIRE_GPU();
  cutlet::Stream s(cutlet::Device(0));
  std::vector<cutlet::half> h;
  std::vector<cutlet::bfloat16> bf;
  for (int i = 0; i < 300; ++i) {
    h.emplace_back(0.125f * static_cast<float>(i) - 3.0f);
    bf.emplace_back(-1.5f * static_cast<float>(i) + 11.0f);
  }
  expect_16_bit_round_trip(s, h, kDLFloat);
  expect_16_bit_round_trip(s, bf, kDLBfloat);
}

TEST(DLPack, ReadOnlyExportsViewOnlyForReading) {
  CUTLET_REQUIRE_GPU();
  cutlet::Stream s(cutlet::Device(0));
  const std::vector<std::int32_t> host = {5, -4, 3, -2, 1};
  DLManagedTensorVersioned* exported = cutlet::to_dlpack_versioned(
      cutlet::Buffer<std::int32_t>(s, host), {5}, {}, DLPACK_FLAG_BITMASK_READ_ONLY | DLPACK_FLAG_BITMASK_IS_COPIED);
  s.synchronize();
  cutlet::DLPackTensor imported(exported);
  EXPECT_TRUE(imported.read_only());
  EXPECT_TRUE(imported.copied());
  EXPECT_CONTAINS(cutlet::test::error_message([&] { (void)imported.buffer<std::int32_t>(); }), "read-only");
  EXPECT_EQ(imported.read_only_buffer<std::int32_t>().to_host(s), host);
}

TEST(DLPack, CudaDeviceMemoryIsRefusedWhereKernelsRunOnTheCpu) {
  CUTLET_REQUIRE_GPU();
  if (!cutlet::Device::cpu_selected()) GTEST_SKIP() << "a check of CUTLET_DEVICE=cpu (this run has CUDA devices)";
  DLManagedTensor managed = {};
  std::int64_t shape = 4;
  managed.dl_tensor.device = {kDLCUDA, 0};
  managed.dl_tensor.ndim = 1;
  managed.dl_tensor.shape = &shape;
  managed.dl_tensor.dtype = cutlet::dlpack_dtype<float>();
  EXPECT_CONTAINS(cutlet::test::error_message([&] { cutlet::DLPackTensor t(&managed); }),
                  "CUDA device memory, and CUTLET_DEVICE=cpu");
}

}  // namespace
