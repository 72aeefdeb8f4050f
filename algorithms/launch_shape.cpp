// Grid sizes of the algorithms' kernels (detail/launch_shape.h).
#include "cutlet/algorithms/detail/launch_shape.h"

#include <algorithm>

namespace cutlet::algorithms::detail {

int streaming_grid(const Device& device, std::int64_t units, std::int64_t units_per_block, int blocks_per_sm) {
  const std::int64_t pieces = (units + units_per_block - 1) / units_per_block;
  const std::int64_t resident = static_cast<std::int64_t>(device.sm_count()) * blocks_per_sm;
  return static_cast<int>(std::max<std::int64_t>(1, std::min(pieces, resident)));
}

}  // namespace cutlet::algorithms::detail
