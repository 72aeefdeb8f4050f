// Driver loading, with and without a CUDA driver present (runs on every machine).
#include "cutlet/runtime/driver.h"

#include <gtest/gtest.h>

#include <string>

#include "cutlet/runtime/cuda_error.h"
#include "cutlet/runtime/device.h"
#include "cutlet/runtime/stream.h"
#include "runtime_test_support.h"

namespace {

TEST(Driver, AvailabilityIsStable) {
  const bool first = cutlet::driver_available();
  EXPECT_EQ(first, cutlet::driver_available());
}

TEST(Driver, WithoutDriverEverythingThrowsNoDriverError) {
  if (cutlet::driver_available()) GTEST_SKIP() << "a CUDA driver is present";
  try {
    (void)cutlet::Device::count();
    FAIL() << "Device::count() did not throw";
  } catch (const cutlet::NoDriverError& e) {
    EXPECT_CONTAINS(e.what(), "no CUDA driver found");
    EXPECT_CONTAINS(e.what(), "libcuda.so.1");
    EXPECT_CONTAINS(e.what(), "trace and compile");
  }
  try {
    cutlet::Stream s;
    FAIL() << "Stream() did not throw";
  } catch (const cutlet::NoDriverError& e) {
    EXPECT_CONTAINS(e.what(), "no CUDA driver found");
  }
  EXPECT_THROW((void)cutlet::Device(0), cutlet::NoDriverError);
  EXPECT_THROW((void)cutlet::Device::current(), cutlet::NoDriverError);
  EXPECT_THROW((void)cutlet::driver_version(), cutlet::NoDriverError);
  EXPECT_THROW((void)cutlet::driver_entry_point("cuInit"), cutlet::NoDriverError);
  // A NoDriverError is a cutlet::Error, so one catch clause covers all runtime failures.
  EXPECT_THROW((void)cutlet::Device::count(), cutlet::Error);
}

TEST(Driver, WithDriverReportsVersionAndEntryPoints) {
  if (!cutlet::driver_available()) GTEST_SKIP() << "no CUDA driver";
  EXPECT_GE(cutlet::driver_version(), 12000);
  EXPECT_GE(cutlet::Device::count(), 1);
  EXPECT_NE(cutlet::driver_entry_point("cuLaunchKernel"), nullptr);
  EXPECT_NE(cutlet::driver_entry_point("cuMemAlloc"), nullptr);
  try {
    (void)cutlet::driver_entry_point("cuNoSuchFunctionAnywhere");
    FAIL() << "driver_entry_point of an unknown name did not throw";
  } catch (const cutlet::NoDriverError&) {
    FAIL() << "threw NoDriverError although the driver is present";
  } catch (const cutlet::Error& e) {
    EXPECT_CONTAINS(e.what(), "cuNoSuchFunctionAnywhere");
  }
}

}  // namespace
