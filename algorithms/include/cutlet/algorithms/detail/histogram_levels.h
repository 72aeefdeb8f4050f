// The checks of the histograms' levels.
#pragma once

#include <cstdint>

namespace cutlet::algorithms::detail {

/// Throws Error naming `algorithm` unless num_levels is at least 2 (one bin).
void check_num_levels(int num_levels, const char* algorithm);
/// Throws Error unless `lower_below_upper` (lower < upper in the sample type); `lower` and
/// `upper` are the levels for the message.
void check_bounds(bool lower_below_upper, double lower, double upper);
/// Throws Error unless (upper - lower) * bins fits in 64 bits, as the integer bin arithmetic
/// needs: `range` is upper - lower as an unsigned 64-bit number.
void check_integer_range(std::uint64_t range, int bins);

}  // namespace cutlet::algorithms::detail
