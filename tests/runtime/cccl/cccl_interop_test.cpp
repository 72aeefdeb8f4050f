// cutlet/runtime/cccl.h: the adapters satisfy CCCL's concepts and keep the stream handle
// (builds with the host compiler; no GPU needed).
#include "cutlet/runtime/cccl.h"

#include <gtest/gtest.h>

#include <iostream>

#include "cccl_concepts.h"
#include "runtime_test_support.h"

namespace {

using DeviceOnly = cutlet::CcclResource<>;

TEST(CcclNoGpu, AdaptersRejectNullAndCompareByResource) {
  EXPECT_CONTAINS(cutlet::test::error_message([] { DeviceOnly r(nullptr); }), "null memory resource");
}

TEST(CcclNoGpu, ConceptsHold) {
  // The static_asserts of cccl_concepts.h are the test; this keeps it visible in the test
  // list, with the CCCL version it held for.
  std::cout << "CCCL " << CCCL_MAJOR_VERSION << "." << CCCL_MINOR_VERSION << "." << CCCL_PATCH_VERSION
            << (CUTLET_CCCL_SYNCHRONOUS_RESOURCE ? ": 3.1 concept names\n" : ": 3.0 concept names\n");
  SUCCEED();
}

}  // namespace
