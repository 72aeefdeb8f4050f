// CudaError's fields and message format (runs on every machine).
#include "cutlet/runtime/cuda_error.h"

#include <gtest/gtest.h>

#include <string>

#include "cutlet/runtime/driver.h"
#include "runtime_test_support.h"

namespace {

TEST(CudaError, CarriesCodeCallAndName) {
  const bool have_driver = cutlet::driver_available();  // loads the driver's error names
  cutlet::CudaError e(2, "cuMemAlloc(1073741824 bytes)", "free some memory");
  const std::string what = e.what();
  EXPECT_EQ(e.code(), 2);
  EXPECT_EQ(e.call(), "cuMemAlloc(1073741824 bytes)");
  EXPECT_EQ(what.rfind("cuMemAlloc(1073741824 bytes) failed: " + e.name() + ": ", 0), 0u) << what;
  EXPECT_TRUE(what.ends_with("; free some memory")) << what;
  if (have_driver) {
    EXPECT_EQ(e.name(), "CUDA_ERROR_OUT_OF_MEMORY");
    EXPECT_CONTAINS(what, "out of memory");
  } else {
    EXPECT_EQ(e.name(), "CUresult 2");
  }
}

TEST(CudaError, IsACutletErrorAndOmitsAnEmptyHint) {
  try {
    throw cutlet::CudaError(1, "cuFoo");
  } catch (const cutlet::Error& e) {
    const std::string what = e.what();
    EXPECT_TRUE(what.starts_with("cuFoo failed: ")) << what;
    EXPECT_EQ(what.find(';'), std::string::npos) << what;
  }
}

}  // namespace
