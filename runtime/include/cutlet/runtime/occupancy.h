// Occupancy queries: resident blocks per SM, a suggested block size, clusters, cooperative grids.
#pragma once

#include <cstddef>

namespace cutlet {

class Function;
struct LaunchConfig;

/// The most blocks of `block_threads` threads, each with `dynamic_shared_bytes` of dynamic
/// shared memory, that can be resident on one SM at once for `function`, given its registers
/// and static shared memory (cuOccupancyMaxActiveBlocksPerMultiprocessor). 0 when a block
/// does not fit at all. For a kernel of the CPU device, an SM is a hardware thread, which
/// keeps up to DeviceProperties::max_threads_per_sm threads resident (and
/// max_blocks_per_sm blocks, shared_per_sm bytes of shared memory).
int max_active_blocks_per_sm(const Function& function, int block_threads,
                             std::size_t dynamic_shared_bytes = 0);

/// A block size that maximizes occupancy, and the smallest grid that fills the device with it.
struct BlockSizeSuggestion {
  int block_size = 0;     ///< Threads per block.
  int min_grid_size = 0;  ///< Blocks needed to reach full occupancy on every SM.
};

/// The block size at which `function` reaches its highest occupancy with
/// `dynamic_shared_bytes` of dynamic shared memory per block, at most `block_size_limit`
/// threads (0: no limit beyond the kernel's own) (cuOccupancyMaxPotentialBlockSize).
BlockSizeSuggestion suggest_block_size(const Function& function,
                                       std::size_t dynamic_shared_bytes = 0,
                                       int block_size_limit = 0);

/// The most blocks a cooperative launch of `function` with `block_threads` threads and
/// `dynamic_shared_bytes` per block may have: max_active_blocks_per_sm * SM count.
long long max_cooperative_blocks(const Function& function, int block_threads,
                                 std::size_t dynamic_shared_bytes = 0);

/// The most clusters of config.cluster that can be resident at once for `function` launched
/// with `config` (cuOccupancyMaxActiveClusters); throws Error on devices without clusters.
int max_active_clusters(const Function& function, const LaunchConfig& config);

}  // namespace cutlet
