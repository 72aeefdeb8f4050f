// NVTX ranges opened and closed from several threads at once, without a profiler.
#include "cutlet/scoped_range.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "range_recorder.h"

namespace cutlet {
namespace {

TEST(ScopedRange, NestedAndConcurrentRangesAreHarmlessWithoutAProfiler) {
  // Without NVTX_INJECTION64_PATH no profiler library is loaded: pushes and pops do nothing.
  if (std::getenv("NVTX_INJECTION64_PATH")) GTEST_SKIP() << "a profiler is attached";
  test::RangeRecorder ranges;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([] {
      for (int i = 0; i < 1000; ++i) {
        detail::ScopedRange outer{"outer"};
        detail::ScopedRange inner{"inner", std::to_string(i)};
      }
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(ranges.recorded().size(), 8000u);
}

}  // namespace
}  // namespace cutlet
