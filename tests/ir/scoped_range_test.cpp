// NVTX ranges: their names, nesting, and that they cost nothing harmful without a profiler.
#include "cutlet/scoped_range.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "range_recorder.h"

namespace cutlet {
namespace {

TEST(ScopedRange, NameIsCutletAndTheWordsLeavingOutEmptyOnes) {
  test::RangeRecorder ranges;
  { detail::ScopedRange r{"pass", "assign-layouts", "saxpy"}; }
  { detail::ScopedRange r{"trace", "saxpy", ""}; }
  const std::string arch = "sm_90";
  { detail::ScopedRange r{"nvJitLink", "saxpy", arch}; }
  EXPECT_EQ(ranges.recorded(), (std::vector<std::string>{"cutlet pass assign-layouts saxpy", "cutlet trace saxpy",
                                                         "cutlet nvJitLink saxpy sm_90"}));
}

TEST(ScopedRange, ObserverIsReplacedAndRestored) {
  EXPECT_EQ(detail::set_range_observer(nullptr), nullptr) << "no observer outside a RangeRecorder";
  {
    test::RangeRecorder ranges;
    { detail::ScopedRange r{"x"}; }
    EXPECT_TRUE(ranges.saw("cutlet x"));
  }
  { detail::ScopedRange r{"unobserved"}; }  // no observer: still fine
  EXPECT_EQ(detail::set_range_observer(nullptr), nullptr);
}

}  // namespace
}  // namespace cutlet
