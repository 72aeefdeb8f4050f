// DLPack import of hand-made tensors: dtype, shape, strides, ownership, rejection (no GPU needed).
#include "cutlet/runtime/dlpack.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "runtime_test_support.h"

namespace {

/// A DLManagedTensor over made-up CUDA memory whose deleter counts its calls.
struct FakeTensor {
  DLManagedTensor managed = {};
  std::vector<std::int64_t> shape;
  std::vector<std::int64_t> strides;
  int* deleted;
  FakeTensor(DLDeviceType type, DLDataType dtype, std::vector<std::int64_t> sh,
             std::vector<std::int64_t> st, int* deleted_count)
      : shape(std::move(sh)), strides(std::move(st)), deleted(deleted_count) {
    DLTensor& t = managed.dl_tensor;
    t.data = reinterpret_cast<void*>(std::uintptr_t{0x7f0000000000});
    t.device = {type, 0};
    t.ndim = static_cast<int>(shape.size());
    t.dtype = dtype;
    t.shape = shape.data();
    t.strides = strides.empty() ? nullptr : strides.data();
    t.byte_offset = 256;
    managed.manager_ctx = this;
    managed.deleter = [](DLManagedTensor* m) {
      auto* self = static_cast<FakeTensor*>(m->manager_ctx);
      ++*self->deleted;
      delete self;
    };
  }
};

TEST(DLPackNoGpu, DtypesOfCppTypes) {
  constexpr DLDataType f = cutlet::dlpack_dtype<float>();
  static_assert(f.code == kDLFloat && f.bits == 32 && f.lanes == 1);
  static_assert(cutlet::dlpack_dtype<double>().bits == 64);
  static_assert(cutlet::dlpack_dtype<std::int8_t>().code == kDLInt);
  static_assert(cutlet::dlpack_dtype<std::uint16_t>().code == kDLUInt);
  static_assert(cutlet::dlpack_dtype<std::uint16_t>().bits == 16);
  static_assert(cutlet::dlpack_dtype<bool>().bits == 8);
}

TEST(DLPackNoGpu, ImportReadsShapeStridesAndCallsTheDeleterOnce) {
  int deleted = 0;
  {
    auto* fake = new FakeTensor(kDLCUDA, cutlet::dlpack_dtype<float>(), {3, 4}, {}, &deleted);
    cutlet::DLPackTensor t(&fake->managed);
    EXPECT_EQ(t.shape().size(), 2u);
    EXPECT_EQ(t.shape()[1], 4);
    ASSERT_EQ(t.strides().size(), 2u);
    EXPECT_EQ(t.strides()[0], 4);  // computed: compact row-major
    EXPECT_EQ(t.strides()[1], 1);
    EXPECT_TRUE(t.contiguous());
    EXPECT_EQ(t.size(), 12);
    EXPECT_EQ(t.data(), 0x7f0000000000u + 256u);
    EXPECT_EQ(t.device_type(), kDLCUDA);
    cutlet::DLPackTensor moved(std::move(t));
    EXPECT_EQ(moved.size(), 12);
    EXPECT_EQ(deleted, 0);
  }
  EXPECT_EQ(deleted, 1);
}

TEST(DLPackNoGpu, ViewsCheckDtypeAndContiguity) {
  int deleted = 0;
  auto* fake = new FakeTensor(kDLCUDA, cutlet::dlpack_dtype<float>(), {3, 4}, {1, 3}, &deleted);  // column-major
  cutlet::DLPackTensor t(&fake->managed);
  EXPECT_FALSE(t.contiguous());
  EXPECT_CONTAINS(cutlet::test::error_message([&] { (void)t.buffer<int>(); }), "float32");
  EXPECT_CONTAINS(cutlet::test::error_message([&] { (void)t.buffer<float>(); }), "not contiguous");
  DLManagedTensor* raw = t.release();
  EXPECT_EQ(deleted, 0);
  raw->deleter(raw);
  EXPECT_EQ(deleted, 1);
}

TEST(DLPackNoGpu, HostMemoryIsRejectedAndStillDeleted) {
  int deleted = 0;
  auto* fake = new FakeTensor(kDLCPU, cutlet::dlpack_dtype<double>(), {5}, {}, &deleted);
  const std::string msg = cutlet::test::error_message([&] { cutlet::DLPackTensor t(&fake->managed); });
  EXPECT_CONTAINS(msg, "not CUDA memory");
  EXPECT_EQ(deleted, 1);
  EXPECT_THROW(cutlet::DLPackTensor(nullptr), cutlet::Error);
}

TEST(DLPackNoGpu, ExportOfEmptyMemoryChecksTheExtent) {
  const std::string msg = cutlet::test::error_message(
      [] { (void)cutlet::to_dlpack(cutlet::DeviceMemory(), cutlet::dlpack_dtype<float>(), {2, 2}); });
  EXPECT_CONTAINS(msg, "16 bytes");
  EXPECT_CONTAINS(msg, "holds 0");
  DLManagedTensor* t = cutlet::to_dlpack(cutlet::DeviceMemory(), cutlet::dlpack_dtype<float>(), {0, 7});
  EXPECT_EQ(t->dl_tensor.ndim, 2);
  EXPECT_EQ(t->dl_tensor.strides[0], 7);
  t->deleter(t);
}

}  // namespace
