// Programs every GPU fuzz run checks, whatever CUTLET_FUZZ_START says.
//
// A seed whose kernel once disagreed with its host reference goes into kSimtRegressionSeeds
// (with a line saying what differed) once the cause is fixed, so that it stays fixed. Until
// the first such find, the list holds seeds chosen because each exercises one feature the
// fuzzer covers (found by scanning the generated programs on the host): changes to the
// generator change these programs too, so re-pick them when the generator changes.
#pragma once

#include <cstdint>

namespace cutlet::fuzz {

struct RegressionSeed {
  std::uint64_t seed;
  const char* why;  ///< what the program exercises, or what once went wrong with it
};

inline constexpr RegressionSeed kSimtRegressionSeeds[] = {
    {0, "warp reduction (redux.sync) and inputs of neighbouring threads"},
    {1, "fma of f32/f64"},
    {2, "an atomic accumulator combined in shared memory first"},
    {3, "warp shuffles and signed division with a masked divisor"},
    {5, "funnel shifts"},
    {7, "a shared-memory exchange across the block and exp (ulp tolerance)"},
    {20, "syncthreads_count"},
    {31, "ballot_sync"},
    {49, "sin (ulp tolerance)"},
    {70, "signed remainder"},
    {579, "a conversion between f16 and bf16"},
    {410, "values rounded through e4m3 and e5m2 (an FP8 seed: has_fp8_roundings)"},
    {24, "a subtraction accumulated in shared memory (the block's partial was flushed with a subtraction)"},
    {9197, "copysign from sqrt of a negative number (the NaN's sign is not defined: skipped as ambiguous)"},
};

}  // namespace cutlet::fuzz
