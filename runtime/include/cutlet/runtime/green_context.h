// Green contexts: a device's SMs split into partitions, with streams that run only there.
#pragma once

#include <memory>
#include <vector>

#include "cutlet/runtime/device.h"
#include "cutlet/runtime/stream.h"

namespace cutlet {

namespace detail {
struct GreenContextState;
}

/// How a device's SMs can be partitioned (its CU_DEV_RESOURCE_TYPE_SM resource).
struct SmPartitioning {
  int sm_count = 0;               ///< SMs the device (or the partition) has.
  int min_partition_size = 0;     ///< The fewest SMs a partition may have.
  int coscheduled_alignment = 0;  ///< Partition sizes are rounded up to multiples of this.
};

/// A green context: a context of one device limited to a partition of its SMs (CUDA 12.4+
/// drivers). Kernels launched on its streams (create_stream()) run only on those SMs, so
/// latency-sensitive work on one partition is isolated from throughput work on the others.
/// cutlet kernels and Functions launch there unchanged (a Function's context-independent
/// CUkernel runs in any context of its device). A cheap, copyable handle: copies share the
/// context, which is destroyed when the last copy and the last of its streams are gone.
///
/// A green context can be current on only one thread at a time: use each green context's
/// streams from one thread at a time.
class GreenContext {
 public:
  /// How `device`'s SMs can be partitioned. Throws Error when the driver has no green
  /// contexts (older than CUDA 12.4).
  static SmPartitioning sm_partitioning(Device device);

  /// Splits `device`'s SMs into `groups` partitions of at least `min_sms_per_group` SMs each
  /// (cuDevSmResourceSplitByCount; the driver rounds the size up to the device's partition
  /// granularity) and makes a green context for each. When `remainder` is not null, it
  /// receives a green context of the SMs left over (none when nothing is left: check
  /// valid()). Throws Error when the device has too few SMs for that many groups, naming
  /// how many fit.
  static std::vector<GreenContext> split(Device device, int groups, int min_sms_per_group,
                                         GreenContext* remainder = nullptr);
  /// One partition of at least `min_sms` SMs: split(device, 1, min_sms)[0].
  static GreenContext create(Device device, int min_sms);

  /// An invalid handle (valid() is false); needs no driver.
  GreenContext() = default;

  /// True when this handle names a green context.
  bool valid() const noexcept { return state_ != nullptr; }
  /// The device whose SMs the context uses. Throws Error for an invalid handle.
  Device device() const;
  /// The number of SMs in the partition.
  int sm_count() const;
  /// A new owned stream whose work runs on this partition (cuGreenCtxStreamCreate; always
  /// non-blocking). The stream keeps the green context alive.
  Stream create_stream(StreamOptions options = {}) const;
  /// The CUgreenCtx as a void*.
  void* handle() const;
  /// The CUcontext that stands for it (cuCtxFromGreenCtx), for driver calls that take one.
  void* context() const;

 private:
  explicit GreenContext(std::shared_ptr<detail::GreenContextState> state) : state_(std::move(state)) {}
  const detail::GreenContextState& require(const char* op) const;
  std::shared_ptr<detail::GreenContextState> state_;
};

}  // namespace cutlet
