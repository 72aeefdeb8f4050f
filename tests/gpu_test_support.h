// Shared by the GPU tests: skip, visibly, when no usable CUDA driver is present.
#pragma once

#include <gtest/gtest.h>

#include "cutlet/runtime/driver.h"

/// Ends the current test as skipped (reported as such, not as passed) when no usable CUDA
/// driver is present; use it as the first statement of every test that needs a GPU.
#define CUTLET_REQUIRE_GPU()                                             \
  do {                                                                   \
    if (!::cutlet::driver_available()) GTEST_SKIP() << "no CUDA driver"; \
  } while (0)
