// Launch geometry (Dim3, LaunchConfig), its checks against device limits, and launch().
#pragma once

#include <cstddef>
#include <source_location>
#include <string_view>

#include "cutlet/error.h"

namespace cutlet {

class Device;
class Function;
class Stream;
struct DeviceLimits;

/// A grid or block extent. Components are signed so that a negative or zero extent computed
/// by mistake is caught by the launch checks rather than wrapping to a huge unsigned value.
struct Dim3 {
  long long x = 1;  ///< Extent along x.
  long long y = 1;  ///< Extent along y.
  long long z = 1;  ///< Extent along z.
  /// (1, 1, 1).
  constexpr Dim3() = default;
  /// (x, y, z); implicit, so a plain integer means (n, 1, 1).
  constexpr Dim3(long long x, long long y = 1, long long z = 1) : x(x), y(y), z(z) {}
  /// x * y * z. Does not overflow for extents a device accepts (each checked by the launch).
  constexpr long long count() const { return x * y * z; }
  /// Componentwise equality.
  constexpr bool operator==(const Dim3&) const = default;
};

/// How to launch a kernel: grid of blocks, threads per block, dynamic shared memory, the
/// extended launch attributes, and the caller's source location, which launch errors report.
/// An aggregate: `LaunchConfig{.grid = ceil_div(n, 256), .block = 256}` records the line it
/// is written on. Without extended attributes a launch is one cuLaunchKernel; with any of
/// them it is one cuLaunchKernelEx.
struct LaunchConfig {
  Dim3 grid;                     ///< Blocks along x, y, z; each >= 1.
  Dim3 block;                    ///< Threads per block along x, y, z; each >= 1.
  std::size_t shared_bytes = 0;  ///< Dynamic shared memory per block, in bytes.
  /// Thread-block cluster extents (sm_90 and newer): the blocks of one cluster run at once
  /// on one GPC and share distributed shared memory. (1, 1, 1), the default, launches without
  /// clusters. Each grid extent must be a multiple of the cluster's, and a cluster may hold
  /// at most 8 blocks (the portable limit).
  Dim3 cluster;
  /// A cooperative launch: all blocks are resident at once, so they may synchronize across
  /// the grid. The grid may have at most max_active_blocks_per_sm * SM-count blocks, which
  /// the launch checks (Error naming that limit otherwise).
  bool cooperative = false;
  /// Programmatic dependent launch (sm_90 and newer): this kernel may start before the
  /// previous kernel on the stream has finished, overlapping its prologue with the other's
  /// tail; it must execute griddepcontrol.wait (cudaGridDependencySynchronize) before reading
  /// what that kernel wrote. Drivers and devices without the feature launch normally.
  bool programmatic_dependent_launch = false;
  std::source_location where = std::source_location::current();  ///< Reported in errors.

  /// True when an extended attribute (cluster, cooperative, programmatic dependent launch)
  /// is requested, so that the launch needs cuLaunchKernelEx.
  constexpr bool extended() const {
    return cluster.x != 1 || cluster.y != 1 || cluster.z != 1 || cooperative ||
           programmatic_dependent_launch;
  }
};

/// The smallest q with q * b >= a, for b > 0 (rounds the quotient up, also for negative a).
/// Throws Error when b <= 0.
constexpr long long ceil_div(long long a, long long b) {
  if (b <= 0) throw Error("ceil_div: the divisor must be positive");
  return a / b + ((a % b != 0 && a > 0) ? 1 : 0);
}

/// Checks `config` against `limits` and throws Error on the first violation, naming
/// `kernel_name`, the offending extent, the limit, `device_label` (e.g. "device 0 (NVIDIA
/// H200)") and config.where. Checks: every grid and block extent >= 1; block extents and
/// block.count() within the per-dimension and per-block thread limits; grid extents within
/// the grid limits; shared_bytes within the opt-in shared memory limit; for clusters, device
/// support (limits.cluster_launch), extents >= 1, at most 8 blocks, and grid extents that
/// are multiples of the cluster's; for cooperative launches, device support. (The
/// co-residency limit of a cooperative grid depends on the kernel and is checked by
/// launch().) Returns normally when the config is valid. Needs no driver.
void check_launch_config(const DeviceLimits& limits, const LaunchConfig& config,
                         const char* kernel_name, std::string_view device_label);

/// As above, against `device`'s cached limits.
void check_launch_config(const Device& device, const LaunchConfig& config, const char* kernel_name);

/// Queues `function` on `stream` with `config` (on a stream of a green context, the kernel
/// runs on that context's SMs). `args` points to one pointer per kernel
/// parameter, in order, each to that argument's value (the driver copies the values at this
/// call, so they may be temporaries); the kernel's parameter list is not checked. Throws
/// Error when the stream is on another device than the function, or when the config breaks
/// a device limit (see check_launch_config); throws CudaError when the driver rejects the
/// launch. Dynamic shared memory above the 48 KiB default (up to the opt-in limit) is
/// enabled for the function automatically. A cooperative launch whose grid cannot be
/// co-resident throws Error naming the limit. The cost over a bare cuLaunchKernel is a few
/// comparisons against cached limits and one cuCtxGetCurrent: no allocation, no formatting
/// unless failing. Errors inside the kernel surface later, at a synchronization.
void launch(const Stream& stream, const Function& function, const LaunchConfig& config,
            void** args);

}  // namespace cutlet
