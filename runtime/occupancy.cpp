// Occupancy queries: the driver's occupancy calculator for GPU kernels, the CPU device's own limits
// for its kernels.
#include "cutlet/runtime/occupancy.h"

#include <algorithm>
#include <string>

#include "cutlet/runtime/launch.h"
#include "cutlet/runtime/module.h"
#include "device_state.h"

namespace cutlet {
namespace {

/// The CPU device's occupancy: what one hardware thread keeps resident (its properties'
/// limits of blocks, threads and shared memory per SM).
int host_blocks_per_sm(const Function& function, int block_threads, std::size_t dynamic_shared_bytes) {
  const DeviceProperties& p = detail::device_state(Device::kCpuOrdinal).props;
  if (block_threads <= 0 || block_threads > p.max_threads_per_block) return 0;
  const int warps = (block_threads + p.warp_size - 1) / p.warp_size;
  int blocks = std::min(p.max_blocks_per_sm, p.max_threads_per_sm / (warps * p.warp_size));
  const std::size_t shared = static_cast<std::size_t>(function.static_shared_bytes()) + dynamic_shared_bytes;
  if (shared > p.shared_per_block_optin) return 0;
  if (shared > 0) blocks = std::min<std::size_t>(blocks, p.shared_per_sm / shared);
  return blocks;
}

}  // namespace

int max_active_blocks_per_sm(const Function& function, int block_threads,
                             std::size_t dynamic_shared_bytes) {
  if (function.host_entry()) return host_blocks_per_sm(function, block_threads, dynamic_shared_bytes);
  const detail::DeviceState& s = detail::device_state(function.device().ordinal());
  detail::ensure_current(s);
  int blocks = 0;
  CUresult r = detail::driver().cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
      &blocks, static_cast<CUfunction>(function.handle()), block_threads, dynamic_shared_bytes,
      CU_OCCUPANCY_DEFAULT);
  if (r != CUDA_SUCCESS)
    detail::throw_cuda_error(r, "cuOccupancyMaxActiveBlocksPerMultiprocessor(kernel '" +
                                    function.name() + "', " + std::to_string(block_threads) +
                                    " threads, " + std::to_string(dynamic_shared_bytes) +
                                    " shared bytes)");
  return blocks;
}

BlockSizeSuggestion suggest_block_size(const Function& function, std::size_t dynamic_shared_bytes,
                                       int block_size_limit) {
  if (function.host_entry()) {
    // Every block size fills a hardware thread's residency alike: the largest, in whole warps.
    const DeviceProperties& p = detail::device_state(Device::kCpuOrdinal).props;
    int size = block_size_limit > 0 ? std::min(block_size_limit, p.max_threads_per_block) : p.max_threads_per_block;
    if (size > p.warp_size) size -= size % p.warp_size;
    while (size > 1 && host_blocks_per_sm(function, size, dynamic_shared_bytes) == 0) size /= 2;
    return {.block_size = size, .min_grid_size = host_blocks_per_sm(function, size, dynamic_shared_bytes) * p.sm_count};
  }
  const detail::DeviceState& s = detail::device_state(function.device().ordinal());
  detail::ensure_current(s);
  BlockSizeSuggestion out;
  CUresult r = detail::driver().cuOccupancyMaxPotentialBlockSize(
      &out.min_grid_size, &out.block_size, static_cast<CUfunction>(function.handle()), nullptr,
      dynamic_shared_bytes, block_size_limit);
  if (r != CUDA_SUCCESS)
    detail::throw_cuda_error(r, "cuOccupancyMaxPotentialBlockSize(kernel '" + function.name() + "')");
  return out;
}

long long max_cooperative_blocks(const Function& function, int block_threads,
                                 std::size_t dynamic_shared_bytes) {
  return static_cast<long long>(max_active_blocks_per_sm(function, block_threads, dynamic_shared_bytes)) *
         function.device().sm_count();
}

int max_active_clusters(const Function& function, const LaunchConfig& config) {
  if (function.host_entry())
    throw Error("max_active_clusters: the CPU device has no thread-block clusters (a GPU feature of sm_90 and newer)");
  const detail::DeviceState& s = detail::device_state(function.device().ordinal());
  if (!s.limits.cluster_launch)
    throw Error("max_active_clusters: " + s.label + " (sm_" + std::to_string(s.limits.sm) +
                ") has no thread-block clusters; they need compute capability 9.0 or newer");
  detail::ensure_current(s);
  CUlaunchAttribute attr = {};
  attr.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
  attr.value.clusterDim.x = static_cast<unsigned>(config.cluster.x);
  attr.value.clusterDim.y = static_cast<unsigned>(config.cluster.y);
  attr.value.clusterDim.z = static_cast<unsigned>(config.cluster.z);
  CUlaunchConfig lc = {};
  lc.gridDimX = static_cast<unsigned>(config.grid.x);
  lc.gridDimY = static_cast<unsigned>(config.grid.y);
  lc.gridDimZ = static_cast<unsigned>(config.grid.z);
  lc.blockDimX = static_cast<unsigned>(config.block.x);
  lc.blockDimY = static_cast<unsigned>(config.block.y);
  lc.blockDimZ = static_cast<unsigned>(config.block.z);
  lc.sharedMemBytes = static_cast<unsigned>(config.shared_bytes);
  lc.attrs = &attr;
  lc.numAttrs = 1;
  int clusters = 0;
  CUresult r = detail::driver().cuOccupancyMaxActiveClusters(
      &clusters, static_cast<CUfunction>(function.handle()), &lc);
  if (r != CUDA_SUCCESS)
    detail::throw_cuda_error(r, "cuOccupancyMaxActiveClusters(kernel '" + function.name() + "')");
  return clusters;
}

}  // namespace cutlet
