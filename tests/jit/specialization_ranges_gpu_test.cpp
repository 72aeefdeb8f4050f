// The NVTX range around loading a compiled kernel on a device (on the CPU device, around
// compiling it for the host, which loads it).
#include <gtest/gtest.h>

#include <cutlet/cutlet.h>

#include "gpu_test_support.h"
#include "range_recorder.h"

using namespace cutlet;

namespace {

TEST(SpecializationRangesGpu, FirstLaunchLoadsInsideARange) {
  CUTLET_REQUIRE_GPU();
  auto k = kernel([](Ptr<int> y) { y[thread_idx().x] = thread_idx().x; }, {.name = "ranges_loaded"});
  Stream s;
  Buffer<int> y(s, std::vector<int>(32, -1));
  test::RangeRecorder ranges;
  k.launch(s, {.grid = 1, .block = 32}, y);
  k.launch(s, {.grid = 1, .block = 32}, y);
  const std::string load = s.device().is_cpu()
                               ? "cutlet host-compile ranges_loaded the CPU device"
                               : "cutlet module-load ranges_loaded device " + std::to_string(s.device().ordinal());
  const auto names = ranges.recorded();
  EXPECT_EQ(std::count(names.begin(), names.end(), load), 1) << "one load, at the first launch:\n"
                                                             << test::joined(names);
  EXPECT_EQ(y.to_host(s)[31], 31);
}

}  // namespace
