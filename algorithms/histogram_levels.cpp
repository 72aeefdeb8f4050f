// The checks of the histograms' levels (detail/histogram_levels.h).
#include "cutlet/algorithms/detail/histogram_levels.h"

#include <limits>
#include <string>

#include "cutlet/error.h"

namespace cutlet::algorithms::detail {

void check_num_levels(int num_levels, const char* algorithm) {
  if (num_levels < 2)
    throw Error(std::string("cutlet::algorithms::") + algorithm + ": num_levels is " + std::to_string(num_levels) +
                "; it must be at least 2 (num_levels - 1 bins)");
}

void check_bounds(bool lower_below_upper, double lower, double upper) {
  if (!lower_below_upper)
    throw Error("cutlet::algorithms::histogram_even: the lower level " + std::to_string(lower) +
                " is not below the upper level " + std::to_string(upper));
}

void check_integer_range(std::uint64_t range, int bins) {
  if (range > std::numeric_limits<std::uint64_t>::max() / static_cast<std::uint64_t>(bins))
    throw Error("cutlet::algorithms::histogram_even: (upper - lower) * bins = " + std::to_string(range) + " * " +
                std::to_string(bins) + " does not fit in 64 bits, which the integer bin arithmetic needs");
}

}  // namespace cutlet::algorithms::detail
