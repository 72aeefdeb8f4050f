// DLPack import of hand-made tensors, versioned (DLPack 1.x) and not (0.x): dtypes, shape,
// strides, byte offset, flags, ownership and the deleter, and what is refused and why (no GPU
// needed: a view that passes every check needs the driver only for its Device).
#include "cutlet/runtime/dlpack.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "cutlet/language/half.h"
#include "cutlet/runtime/cuda_error.h"
#include "cutlet/runtime/driver.h"
#include "dlpack_fake_tensor.h"
#include "runtime_test_support.h"

namespace {

using cutlet::DLPackTensor;
using cutlet::dlpack_dtype;
using cutlet::test::error_message;
using cutlet::test::fake_unversioned;
using cutlet::test::fake_versioned;
using cutlet::test::kFakeAddress;

/// t.buffer<T>() (or read_only_buffer<T>() when `read_only`) passes its checks: with a
/// driver it gives the view, without one it stops at the Device, with NoDriverError.
template <class T>
void expect_view(const DLPackTensor& t, bool read_only = false) {
  const auto view = [&] { return read_only ? t.read_only_buffer<T>() : t.buffer<T>(); };
  if (cutlet::driver_available()) {
    const cutlet::Buffer<T> b = view();
    EXPECT_EQ(b.data(), t.data());
    EXPECT_EQ(b.size(), static_cast<std::size_t>(t.size()));
    EXPECT_FALSE(b.memory().owning());
  } else {
    EXPECT_THROW((void)view(), cutlet::NoDriverError);
  }
}

template <class T>
void expect_every_view_of_its_type() {
  int deleted = 0;
  {
    DLPackTensor t(fake_versioned(dlpack_dtype<T>(), {2, 3}, {}, &deleted));
    EXPECT_EQ(t.dtype().code, dlpack_dtype<T>().code);
    expect_view<T>(t);
    expect_view<T>(t, /*read_only=*/true);
    // Another type of the same size is refused, naming both.
    if constexpr (sizeof(T) == 1) {
      if constexpr (!std::is_same_v<T, std::int8_t>) {
        EXPECT_CONTAINS(error_message([&] { (void)t.buffer<std::int8_t>(); }), "not int8 (1-byte)");
      }
    } else {
      EXPECT_CONTAINS(error_message([&] { (void)t.buffer<std::uint8_t>(); }), cutlet::dlpack_dtype_name(t.dtype()));
    }
  }
  EXPECT_EQ(deleted, 1);
}

TEST(DLPackNoGpu, EveryDtypeViewsAsItsType) {
  expect_every_view_of_its_type<bool>();
  expect_every_view_of_its_type<std::int8_t>();
  expect_every_view_of_its_type<std::int16_t>();
  expect_every_view_of_its_type<std::int32_t>();
  expect_every_view_of_its_type<std::int64_t>();
  expect_every_view_of_its_type<std::uint8_t>();
  expect_every_view_of_its_type<std::uint16_t>();
  expect_every_view_of_its_type<std::uint32_t>();
  expect_every_view_of_its_type<std::uint64_t>();
  expect_every_view_of_its_type<cutlet::half>();
  expect_every_view_of_its_type<cutlet::bfloat16>();
  expect_every_view_of_its_type<float>();
  expect_every_view_of_its_type<double>();
}

TEST(DLPackNoGpu, UnversionedImportReadsShapeStridesAndCallsTheDeleterOnce) {
  int deleted = 0;
  {
    DLPackTensor t(fake_unversioned(dlpack_dtype<float>(), {3, 4}, {}, &deleted));
    EXPECT_FALSE(t.versioned());
    EXPECT_EQ(t.version().major, 0u);
    EXPECT_EQ(t.flags(), 0u);
    EXPECT_FALSE(t.read_only());
    EXPECT_NE(t.get(), nullptr);
    EXPECT_EQ(t.get_versioned(), nullptr);
    EXPECT_EQ(t.shape().size(), 2u);
    EXPECT_EQ(t.shape()[1], 4);
    ASSERT_EQ(t.strides().size(), 2u);
    EXPECT_EQ(t.strides()[0], 4);  // computed: compact row-major
    EXPECT_EQ(t.strides()[1], 1);
    EXPECT_TRUE(t.contiguous());
    EXPECT_EQ(t.size(), 12);
    EXPECT_EQ(t.data(), kFakeAddress + 256u);  // byte_offset added
    EXPECT_EQ(t.device_type(), kDLCUDA);
    DLPackTensor moved(std::move(t));
    EXPECT_EQ(moved.size(), 12);
    EXPECT_EQ(deleted, 0);
    expect_view<float>(moved);
  }
  EXPECT_EQ(deleted, 1);
}

TEST(DLPackNoGpu, VersionedImportReadsVersionFlagsAndStrides) {
  int deleted = 0;
  {
    DLPackTensor t(fake_versioned(dlpack_dtype<std::int16_t>(), {4, 5}, {10, 2}, &deleted,  // every other column
                                  DLPACK_FLAG_BITMASK_IS_COPIED));
    EXPECT_TRUE(t.versioned());
    EXPECT_EQ(t.version().major, 1u);
    EXPECT_EQ(t.version().minor, static_cast<std::uint32_t>(DLPACK_MINOR_VERSION));
    EXPECT_TRUE(t.copied());
    EXPECT_FALSE(t.read_only());
    EXPECT_EQ(t.get(), nullptr);
    EXPECT_NE(t.get_versioned(), nullptr);
    EXPECT_EQ(t.strides()[0], 10);
    EXPECT_EQ(t.strides()[1], 2);
    EXPECT_FALSE(t.contiguous());
    EXPECT_EQ(t.data(), kFakeAddress + 256u);
    EXPECT_EQ(&t.dl_tensor(), &t.get_versioned()->dl_tensor);
    EXPECT_CONTAINS(error_message([&] { (void)t.buffer<std::int16_t>(); }), "not contiguous");
    EXPECT_CONTAINS(error_message([&] { (void)t.buffer<std::int16_t>(); }), "strides [10,2]");
  }
  EXPECT_EQ(deleted, 1);
}

TEST(DLPackNoGpu, ContiguityIgnoresStridesOfUnitExtentsAndAZeroDimTensorIsOneElement) {
  int deleted = 0;
  DLPackTensor unit(fake_versioned(dlpack_dtype<float>(), {3, 1, 4}, {4, 99, 1}, &deleted));
  EXPECT_TRUE(unit.contiguous());
  DLPackTensor scalar(fake_versioned(dlpack_dtype<double>(), {}, {}, &deleted));
  EXPECT_EQ(scalar.shape().size(), 0u);
  EXPECT_EQ(scalar.size(), 1);
  EXPECT_TRUE(scalar.contiguous());
  DLPackTensor empty(fake_versioned(dlpack_dtype<double>(), {0, 5}, {}, &deleted));
  EXPECT_EQ(empty.size(), 0);
}

TEST(DLPackNoGpu, DeviceTypesCutletTakes) {
  int deleted = 0;
  DLPackTensor managed(fake_versioned(dlpack_dtype<float>(), {8}, {}, &deleted, 0, {kDLCUDAManaged, 0}));
  EXPECT_EQ(managed.device_type(), kDLCUDAManaged);
  DLPackTensor pinned(fake_versioned(dlpack_dtype<float>(), {8}, {}, &deleted, 0, {kDLCUDAHost, 0}));
  EXPECT_EQ(pinned.device_type(), kDLCUDAHost);
  DLPackTensor second(fake_unversioned(dlpack_dtype<float>(), {8}, {}, &deleted, {kDLCUDA, 1}));
  EXPECT_EQ(second.device_id(), 1);
  EXPECT_EQ(deleted, 0);
}

TEST(DLPackNoGpu, ReadOnlyTensorsViewOnlyForReading) {
  int deleted = 0;
  {
    DLPackTensor t(fake_versioned(dlpack_dtype<float>(), {16}, {}, &deleted, DLPACK_FLAG_BITMASK_READ_ONLY));
    EXPECT_TRUE(t.read_only());
    EXPECT_FALSE(t.copied());
    const std::string msg = error_message([&] { (void)t.buffer<float>(); });
    EXPECT_CONTAINS(msg, "read-only");
    EXPECT_CONTAINS(msg, "read_only_buffer()");
    expect_view<float>(t, /*read_only=*/true);
  }
  EXPECT_EQ(deleted, 1);
}

TEST(DLPackNoGpu, MoveAssignmentDeletesTheOldTensorOnce) {
  int first = 0, second = 0;
  {
    DLPackTensor a(fake_versioned(dlpack_dtype<float>(), {2}, {}, &first));
    DLPackTensor b(fake_unversioned(dlpack_dtype<float>(), {3}, {}, &second));
    a = std::move(b);
    EXPECT_EQ(first, 1);
    EXPECT_EQ(second, 0);
    EXPECT_FALSE(a.versioned());
    EXPECT_EQ(a.size(), 3);
    EXPECT_CONTAINS(error_message([&] { (void)b.size(); }), "empty");
  }
  EXPECT_EQ(first, 1);
  EXPECT_EQ(second, 1);
}

TEST(DLPackNoGpu, ReleaseHandsBackTheRightKind) {
  int deleted = 0;
  DLPackTensor v(fake_versioned(dlpack_dtype<float>(), {2}, {}, &deleted));
  EXPECT_CONTAINS(error_message([&] { (void)v.release(); }), "release_versioned()");
  DLManagedTensorVersioned* raw = v.release_versioned();
  ASSERT_NE(raw, nullptr);
  EXPECT_EQ(v.release_versioned(), nullptr);  // empty now
  EXPECT_EQ(deleted, 0);
  raw->deleter(raw);
  EXPECT_EQ(deleted, 1);
  DLPackTensor u(fake_unversioned(dlpack_dtype<float>(), {2}, {}, &deleted));
  EXPECT_CONTAINS(error_message([&] { (void)u.release_versioned(); }), "call release()");
  DLManagedTensor* raw0 = u.release();
  raw0->deleter(raw0);
  EXPECT_EQ(deleted, 2);
}

/// Constructing a DLPackTensor from `tensor` throws Error whose message contains `part`,
/// after calling the deleter exactly once.
template <class Managed>
void expect_refused(Managed* tensor, int& deleted, const std::string& part) {
  const int before = deleted;
  const std::string msg = error_message([&] { DLPackTensor t(tensor); });
  EXPECT_CONTAINS(msg, "cannot import the tensor");
  EXPECT_CONTAINS(msg, part);
  EXPECT_EQ(deleted, before + 1) << msg;
}

TEST(DLPackNoGpu, OtherMajorVersionsAreRefused) {
  int deleted = 0;
  for (std::uint32_t major : {0u, 2u}) {
    DLManagedTensorVersioned* t = fake_versioned(dlpack_dtype<float>(), {4}, {}, &deleted);
    t->version = DLPackVersion{major, 3};
    expect_refused(t, deleted, "DLPack " + std::to_string(major) + ".3");
  }
  DLManagedTensorVersioned* t = fake_versioned(dlpack_dtype<float>(), {4}, {}, &deleted);
  t->version = DLPackVersion{7, 0};
  expect_refused(t, deleted, "max_version=(1, 0)");
  // A newer minor version of 1 is fine.
  DLManagedTensorVersioned* newer = fake_versioned(dlpack_dtype<float>(), {4}, {}, &deleted);
  newer->version = DLPackVersion{1, 99};
  EXPECT_EQ(DLPackTensor(newer).version().minor, 99u);
}

TEST(DLPackNoGpu, OtherDevicesAreRefusedSayingWhatToPass) {
  int deleted = 0;
  const auto fake_on = [&](DLDeviceType type, int id = 0) {
    return fake_versioned(dlpack_dtype<float>(), {4}, {}, &deleted, 0, DLDevice{type, id});
  };
  expect_refused(fake_on(kDLROCM), deleted, "AMD ROCm memory (kDLROCM)");
  expect_refused(fake_on(kDLOpenCL), deleted, "device type 4 (kDLOpenCL), not CUDA memory");
  expect_refused(fake_on(kDLVulkan), deleted,
                 "kDLCUDA (device memory), kDLCUDAManaged (managed memory) or kDLCUDAHost");
  expect_refused(fake_on(kDLVulkan), deleted, "host memory (kDLCPU) for the CPU device");
  expect_refused(fake_on(static_cast<DLDeviceType>(99)), deleted, "device type 99, not CUDA memory");
  expect_refused(fake_on(kDLCUDA, -1), deleted, "device_id is -1");
  expect_refused(fake_on(kDLCPU, -2), deleted, "device_id is -2");
  // The same for unversioned tensors.
  expect_refused(fake_unversioned(dlpack_dtype<float>(), {4}, {}, &deleted, {kDLROCM, 0}), deleted, "kDLROCM");
  EXPECT_EQ(deleted, 8);
}

TEST(DLPackNoGpu, HostTensorsAreViewsOnTheCpuDevice) {
  int deleted = 0;
  float values[6] = {1, -2, 3, -4, 5, -6};
  DLManagedTensorVersioned* t = fake_versioned(dlpack_dtype<float>(), {2, 3}, {}, &deleted, 0, DLDevice{kDLCPU, 0});
  t->dl_tensor.data = values;
  t->dl_tensor.byte_offset = 0;
  {
    DLPackTensor imported(t);
    EXPECT_EQ(imported.device_type(), kDLCPU);
    EXPECT_TRUE(imported.device().is_cpu());
    const cutlet::Buffer<float> view = imported.buffer<float>();
    EXPECT_TRUE(view.device().is_cpu());
    EXPECT_EQ(view.data(), reinterpret_cast<std::uintptr_t>(values));
    EXPECT_EQ(view.size(), 6u);
  }
  EXPECT_EQ(deleted, 1);
}

TEST(DLPackNoGpu, DtypesCutletCannotAddressAreRefused) {
  int deleted = 0;
  expect_refused(fake_versioned(DLDataType{kDLFloat, 32, 4}, {4}, {}, &deleted), deleted, "4 vector lanes");
  expect_refused(fake_versioned(DLDataType{kDLOpaqueHandle, 64, 1}, {4}, {}, &deleted), deleted, "opaque handles");
  expect_refused(fake_versioned(DLDataType{17, 4, 1}, {4}, {}, &deleted), deleted,  // kDLFloat4_e2m1fn
                 "float4_e2m1fn) are 4 bits wide");
  expect_refused(fake_versioned(DLDataType{kDLInt, 0, 1}, {4}, {}, &deleted), deleted, "0 bits wide");
  expect_refused(fake_versioned(DLDataType{200, 8, 1}, {4}, {}, &deleted), deleted, "dtype code 200 is unknown");
  expect_refused(fake_unversioned(DLDataType{kDLUInt, 8, 2}, {4}, {}, &deleted), deleted, "uint8x2");
  EXPECT_EQ(deleted, 6);
}

TEST(DLPackNoGpu, Fp8TensorsImportButHaveNoCutletType) {
  // cutlet has no fp8 element type: the tensor is taken (data, shape, strides are usable),
  // views of it are refused by name.
  int deleted = 0;
  DLPackTensor t(fake_versioned(DLDataType{10, 8, 1}, {4, 4}, {}, &deleted));  // kDLFloat8_e4m3fn
  EXPECT_EQ(t.size(), 16);
  EXPECT_CONTAINS(error_message([&] { (void)t.buffer<std::uint8_t>(); }), "holds float8_e4m3fn elements, not uint8");
}

TEST(DLPackNoGpu, BadShapesAreRefused) {
  int deleted = 0;
  DLManagedTensorVersioned* no_shape = fake_versioned(dlpack_dtype<float>(), {4}, {}, &deleted);
  no_shape->dl_tensor.shape = nullptr;
  expect_refused(no_shape, deleted, "no shape");
  expect_refused(fake_versioned(dlpack_dtype<float>(), {3, -1}, {}, &deleted), deleted, "negative extent");
  expect_refused(fake_versioned(dlpack_dtype<float>(), {std::int64_t{1} << 40, std::int64_t{1} << 40}, {}, &deleted),
                 deleted, "more than 2^63 elements");
  DLManagedTensorVersioned* negative_ndim = fake_versioned(dlpack_dtype<float>(), {4}, {}, &deleted);
  negative_ndim->dl_tensor.ndim = -2;
  expect_refused(negative_ndim, deleted, "ndim is -2");
}

TEST(DLPackNoGpu, NullTensorsAreRefused) {
  EXPECT_CONTAINS(error_message([] { DLPackTensor t(static_cast<DLManagedTensor*>(nullptr)); }),
                  "null DLManagedTensor");
  EXPECT_CONTAINS(error_message([] { DLPackTensor t(static_cast<DLManagedTensorVersioned*>(nullptr)); }),
                  "null DLManagedTensorVersioned");
}

TEST(DLPackNoGpu, ATensorWithoutDeleterIsTakenToo) {
  int deleted = 0;
  DLManagedTensorVersioned* t = fake_versioned(dlpack_dtype<float>(), {4}, {}, &deleted);
  auto deleter = t->deleter;
  t->deleter = nullptr;  // DLPack allows a null deleter
  { DLPackTensor owner(t); }
  EXPECT_EQ(deleted, 0);
  deleter(t);
  EXPECT_EQ(deleted, 1);
}

}  // namespace
