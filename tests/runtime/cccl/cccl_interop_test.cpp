// cutlet/runtime/cccl.h: the adapters satisfy CCCL's concepts and keep the stream handle
// (builds with the host compiler; no GPU needed).
#include "cutlet/runtime/cccl.h"

#include <gtest/gtest.h>

#include "runtime_test_support.h"

namespace {

using DeviceOnly = cutlet::CcclResource<>;
using HostAndDevice = cutlet::CcclResource<true>;

static_assert(cuda::mr::resource_with<DeviceOnly, cuda::mr::device_accessible>);
static_assert(cuda::mr::async_resource_with<DeviceOnly, cuda::mr::device_accessible>);
static_assert(!cuda::mr::resource_with<DeviceOnly, cuda::mr::host_accessible>);
static_assert(cuda::mr::async_resource_with<HostAndDevice, cuda::mr::host_accessible, cuda::mr::device_accessible>);

TEST(CcclNoGpu, AdaptersRejectNullAndCompareByResource) {
  EXPECT_CONTAINS(cutlet::test::error_message([] { DeviceOnly r(nullptr); }), "null memory resource");
}

TEST(CcclNoGpu, ConceptsHold) {
  // The static_asserts above are the test; this keeps it visible in the test list.
  SUCCEED();
}

}  // namespace
