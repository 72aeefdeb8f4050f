// Shared by the GPU tests: skip, visibly, when no usable CUDA driver is present.
#pragma once

#include <gtest/gtest.h>

#include "cutlet/runtime/device.h"
#include "cutlet/runtime/driver.h"

/// Ends the current test as skipped (reported as such, not as passed) when no usable CUDA
/// driver is present; use it as the first statement of every test that needs a GPU.
#define CUTLET_REQUIRE_GPU()                                             \
  do {                                                                   \
    if (!::cutlet::driver_available()) GTEST_SKIP() << "no CUDA driver"; \
  } while (0)

/// As CUTLET_REQUIRE_GPU, and also skips when device 0 has no TMA (compute capability below 9.0).
#define CUTLET_REQUIRE_TMA()                                                                           \
  do {                                                                                                 \
    CUTLET_REQUIRE_GPU();                                                                              \
    if (::cutlet::Device(0).compute_capability().major < 9) GTEST_SKIP() << "TMA needs compute capability 9.0"; \
  } while (0)
