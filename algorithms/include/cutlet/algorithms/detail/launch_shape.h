// Grid sizes of the algorithms' kernels.
#pragma once

#include <cstdint>

#include "cutlet/runtime/device.h"

namespace cutlet::algorithms::detail {

/// Blocks of a grid-stride kernel over `units` units of work (> 0), a block taking
/// `units_per_block` at a time: `blocks_per_sm` blocks per SM of `device`, but no more blocks
/// than there are such pieces of work, and at least one.
int streaming_grid(const Device& device, std::int64_t units, std::int64_t units_per_block, int blocks_per_sm);

}  // namespace cutlet::algorithms::detail
