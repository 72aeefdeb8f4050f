// The CCCL concepts that the adapters of cutlet/runtime/cccl.h satisfy, checked at compile
// time under the names of the CCCL on the include path: CCCL 3.1 and later, or CCCL 2.x and
// 3.0 (CUTLET_CCCL_SYNCHRONOUS_RESOURCE). Included by cccl_interop_test.cpp, which builds
// against the toolkit's CCCL, and compiled alone by the test cccl.concepts_of_second_cccl
// against a second one (CUTLET_EXTRA_CCCL_DIR).
#pragma once

#include "cutlet/runtime/cccl.h"

// The test against a second CCCL says which version it means to compile against, so that a
// toolkit CCCL found first on the include path cannot pass in its place.
#ifdef CUTLET_TEST_EXPECTED_CCCL_VERSION
static_assert(CCCL_VERSION == CUTLET_TEST_EXPECTED_CCCL_VERSION,
              "the CCCL headers found first are not those of CUTLET_EXTRA_CCCL_DIR");
#endif

namespace cutlet::test::cccl_concepts {

using DeviceOnly = cutlet::CcclResource<>;
using HostAndDevice = cutlet::CcclResource<true>;
using cuda::mr::device_accessible;
using cuda::mr::host_accessible;

#if CUTLET_CCCL_SYNCHRONOUS_RESOURCE
static_assert(cuda::mr::synchronous_resource<DeviceOnly>);
static_assert(cuda::mr::synchronous_resource_with<DeviceOnly, device_accessible>);
static_assert(cuda::mr::resource_with<DeviceOnly, device_accessible>);  // stream-ordered
static_assert(!cuda::mr::synchronous_resource_with<DeviceOnly, host_accessible>);
static_assert(!cuda::mr::resource_with<DeviceOnly, host_accessible>);
static_assert(cuda::mr::synchronous_resource_with<HostAndDevice, host_accessible, device_accessible>);
static_assert(cuda::mr::resource_with<HostAndDevice, host_accessible, device_accessible>);

/// Never called: compiling it instantiates every member the concepts name, and the CCCL
/// resource references built from the adapters.
[[maybe_unused]] inline void use(DeviceOnly& device, HostAndDevice& host, cuda::stream_ref stream) {
  cuda::mr::resource_ref<device_accessible> ordered{device};
  ordered.deallocate(stream, ordered.allocate(stream, 512, 256), 512, 256);
  cuda::mr::synchronous_resource_ref<device_accessible> sync{device};
  sync.deallocate_sync(sync.allocate_sync(512, 256), 512, 256);
  cuda::mr::synchronous_resource_ref<host_accessible, device_accessible> both{host};
  both.deallocate_sync(both.allocate_sync(64, 64), 64, 64);
}
#else
static_assert(cuda::mr::resource<DeviceOnly>);
static_assert(cuda::mr::resource_with<DeviceOnly, device_accessible>);
static_assert(cuda::mr::async_resource_with<DeviceOnly, device_accessible>);
static_assert(!cuda::mr::resource_with<DeviceOnly, host_accessible>);
static_assert(!cuda::mr::async_resource_with<DeviceOnly, host_accessible>);
static_assert(cuda::mr::resource_with<HostAndDevice, host_accessible, device_accessible>);
static_assert(cuda::mr::async_resource_with<HostAndDevice, host_accessible, device_accessible>);

/// Never called: compiling it instantiates every member the concepts name, and the CCCL
/// resource references built from the adapters.
[[maybe_unused]] inline void use(DeviceOnly& device, HostAndDevice& host, cuda::stream_ref stream) {
  cuda::mr::async_resource_ref<device_accessible> ordered{device};
  ordered.deallocate_async(ordered.allocate_async(512, 256, stream), 512, 256, stream);
  cuda::mr::resource_ref<device_accessible> sync{device};
  sync.deallocate(sync.allocate(512, 256), 512, 256);
  cuda::mr::resource_ref<host_accessible, device_accessible> both{host};
  both.deallocate(both.allocate(64, 64), 64, 64);
}
#endif

}  // namespace cutlet::test::cccl_concepts
