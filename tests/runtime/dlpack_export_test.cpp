// DLPack export, versioned and not, of memory that needs no GPU (empty memory): the fields a
// consumer reads, flags, layout checks, and the deleter; and the round trip through import.
#include "cutlet/runtime/dlpack.h"

#include <gtest/gtest.h>

#include <cstdint>

#include "cutlet/language/half.h"
#include "runtime_test_support.h"

namespace {

using cutlet::DeviceMemory;
using cutlet::dlpack_dtype;
using cutlet::test::error_message;

TEST(DLPackNoGpu, UnversionedExportOfEmptyMemoryChecksTheExtent) {
  const std::string msg = error_message([] { (void)cutlet::to_dlpack(DeviceMemory(), dlpack_dtype<float>(), {2, 2}); });
  EXPECT_CONTAINS(msg, "to_dlpack: ");
  EXPECT_CONTAINS(msg, "16 bytes");
  EXPECT_CONTAINS(msg, "holds 0");
  DLManagedTensor* t = cutlet::to_dlpack(DeviceMemory(), dlpack_dtype<float>(), {0, 7});
  EXPECT_EQ(t->dl_tensor.ndim, 2);
  EXPECT_EQ(t->dl_tensor.strides[0], 7);
  EXPECT_EQ(t->dl_tensor.device.device_type, kDLCUDA);
  t->deleter(t);
}

TEST(DLPackNoGpu, VersionedExportCarriesVersionFlagsAndStrides) {
  DLManagedTensorVersioned* t = cutlet::to_dlpack_versioned(DeviceMemory(), dlpack_dtype<cutlet::bfloat16>(), {3, 0, 5},
                                                            {}, DLPACK_FLAG_BITMASK_READ_ONLY);
  EXPECT_EQ(t->version.major, 1u);
  EXPECT_EQ(t->version.minor, static_cast<std::uint32_t>(DLPACK_MINOR_VERSION));
  EXPECT_EQ(t->flags, DLPACK_FLAG_BITMASK_READ_ONLY);
  const DLTensor& d = t->dl_tensor;
  EXPECT_EQ(d.device.device_type, kDLCUDA);
  EXPECT_EQ(d.device.device_id, 0);
  EXPECT_EQ(d.ndim, 3);
  ASSERT_NE(d.strides, nullptr);  // always explicit, as DLPack 1.2 requires
  EXPECT_EQ(d.strides[0], 0);
  EXPECT_EQ(d.strides[1], 5);
  EXPECT_EQ(d.strides[2], 1);
  EXPECT_EQ(d.dtype.code, kDLBfloat);
  EXPECT_EQ(d.dtype.bits, 16);
  EXPECT_EQ(d.byte_offset, 0u);
  t->deleter(t);
}

TEST(DLPackNoGpu, VersionedExportRefusesUnknownFlagsAndBadLayouts) {
  EXPECT_CONTAINS(error_message([] {
                    (void)cutlet::to_dlpack_versioned(DeviceMemory(), dlpack_dtype<float>(), {0}, {}, 1u << 5);
                  }),
                  "bits other than DLPACK_FLAG_BITMASK_READ_ONLY and DLPACK_FLAG_BITMASK_IS_COPIED");
  EXPECT_CONTAINS(error_message([] {
                    (void)cutlet::to_dlpack_versioned(DeviceMemory(), dlpack_dtype<float>(), {0, 2}, {1});
                  }),
                  "to_dlpack_versioned: shape [0,2] has 2 extents but strides [1] have 1");
  EXPECT_CONTAINS(error_message([] {
                    (void)cutlet::to_dlpack_versioned(DeviceMemory(), dlpack_dtype<float>(), {0, 2}, {2, -1});
                  }),
                  "negative stride");
  EXPECT_CONTAINS(error_message([] {
                    (void)cutlet::to_dlpack_versioned(DeviceMemory(), dlpack_dtype<double>(), {1});
                  }),
                  "reaches 8 bytes");
}

TEST(DLPackNoGpu, AVersionedExportImportsWithItsFlags) {
  DLManagedTensorVersioned* t =
      cutlet::to_dlpack_versioned(DeviceMemory(), dlpack_dtype<cutlet::half>(), {0, 3}, {},
                                  DLPACK_FLAG_BITMASK_READ_ONLY | DLPACK_FLAG_BITMASK_IS_COPIED);
  cutlet::DLPackTensor imported(t);  // its destructor calls the exporter's deleter
  EXPECT_TRUE(imported.versioned());
  EXPECT_TRUE(imported.read_only());
  EXPECT_TRUE(imported.copied());
  EXPECT_EQ(imported.size(), 0);
  EXPECT_EQ(imported.dtype().code, kDLFloat);
  EXPECT_EQ(imported.dtype().bits, 16);
  EXPECT_EQ(imported.strides()[0], 3);
  EXPECT_CONTAINS(error_message([&] { (void)imported.buffer<cutlet::half>(); }), "read-only");
}

}  // namespace
