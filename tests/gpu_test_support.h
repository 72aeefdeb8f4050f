// Shared by the GPU tests: skip, visibly, when no usable CUDA driver is present.
#pragma once

#include <gtest/gtest.h>

#include "cutlet/runtime/device.h"
#include "cutlet/runtime/driver.h"

/// Ends the current test as skipped (reported as such, not as passed) when no usable CUDA
/// driver is present, unless CUTLET_DEVICE=cpu runs the GPU tests on the CPU device; use it as
/// the first statement of every test that needs a device.
#define CUTLET_REQUIRE_GPU()                                                                    \
  do {                                                                                          \
    if (!::cutlet::Device::cpu_selected() && !::cutlet::driver_available())                     \
      GTEST_SKIP() << "no CUDA driver (CUTLET_DEVICE=cpu runs this test on the CPU device)";   \
  } while (0)

/// As CUTLET_REQUIRE_GPU, and also skips when device 0 has no TMA (compute capability below 9.0).
#define CUTLET_REQUIRE_TMA()                                                                           \
  do {                                                                                                 \
    CUTLET_REQUIRE_GPU();                                                                              \
    if (::cutlet::Device::cpu_selected()) GTEST_SKIP() << "needs a CUDA GPU: TMA (no CPU meaning)";   \
    if (::cutlet::Device(0).compute_capability().major < 9) GTEST_SKIP() << "TMA needs compute capability 9.0"; \
  } while (0)

/// As CUTLET_REQUIRE_GPU, and also skips, naming `feature`, when the tests run on the CPU
/// device (CUTLET_DEVICE=cpu): for what has no CPU meaning (PTX and cubin modules, NVRTC,
/// graphs of driver nodes, clusters, green contexts, TMA, the driver's memory pools and
/// faults, timing of GPU hardware).
#define CUTLET_REQUIRE_CUDA(feature)                                                                   \
  do {                                                                                                 \
    CUTLET_REQUIRE_GPU();                                                                              \
    if (::cutlet::Device::cpu_selected()) GTEST_SKIP() << "needs a CUDA GPU: " << feature << " (no CPU meaning)"; \
  } while (0)
