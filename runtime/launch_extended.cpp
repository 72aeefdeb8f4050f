// Launches with extended attributes (clusters, cooperative, programmatic dependent launch)
// and launches on green-context streams, through cuLaunchKernelEx.
#include <string>

#include "cutlet/runtime/occupancy.h"
#include "cutlet/runtime/stream.h"
#include "launch_internal.h"

namespace cutlet::detail {
/// Throws unless a cooperative grid of `c` fits on the device at once.
void check_co_residency(const Function& function, const LaunchConfig& c, const DeviceState& s) {
  const long long threads = c.block.count();
  const int per_sm = max_active_blocks_per_sm(function, static_cast<int>(threads), c.shared_bytes);
  const long long limit = static_cast<long long>(per_sm) * s.limits.sm_count;
  if (c.grid.count() > limit)
    bad_config(function.name().c_str(), c,
               "a cooperative launch needs every block resident at once, but grid " + dims(c.grid) +
                   " has " + std::to_string(c.grid.count()) + " blocks and at most " +
                   std::to_string(limit) + " (" + std::to_string(per_sm) + " blocks of " +
                   std::to_string(threads) + " threads with " + std::to_string(c.shared_bytes) +
                   " dynamic shared bytes per SM x " + std::to_string(s.limits.sm_count) +
                   " SMs) fit on " + s.label + "; launch at most " + std::to_string(limit) +
                   " blocks (max_cooperative_blocks gives the limit)");
}


void launch_extended(const Stream& stream, const Function& function, const LaunchConfig& c,
                     void** args, const DeviceState& s) {
  check_launch_config(s.limits, c, function.name().c_str(), s.label);
  if (c.cooperative) check_co_residency(function, c, s);
  const DriverApi& api = driver();
  const bool green = stream.green_context() != nullptr;
  if (needs_shared_opt_in(function, c, s.limits)) {
    ensure_current(s);
    opt_in_shared(function, c, s, green);
  }
  ensure_current(s, stream);

  CUlaunchAttribute attrs[3] = {};
  unsigned n = 0;
  if (c.cluster != Dim3{}) {
    attrs[n].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    attrs[n].value.clusterDim.x = static_cast<unsigned>(c.cluster.x);
    attrs[n].value.clusterDim.y = static_cast<unsigned>(c.cluster.y);
    attrs[n].value.clusterDim.z = static_cast<unsigned>(c.cluster.z);
    ++n;
  }
  if (c.cooperative) {
    attrs[n].id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
    attrs[n].value.cooperative = 1;
    ++n;
  }
  if (c.programmatic_dependent_launch) {
    attrs[n].id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
    attrs[n].value.programmaticStreamSerializationAllowed = 1;
    ++n;
  }
  CUlaunchConfig lc = {};
  lc.gridDimX = static_cast<unsigned>(c.grid.x);
  lc.gridDimY = static_cast<unsigned>(c.grid.y);
  lc.gridDimZ = static_cast<unsigned>(c.grid.z);
  lc.blockDimX = static_cast<unsigned>(c.block.x);
  lc.blockDimY = static_cast<unsigned>(c.block.y);
  lc.blockDimZ = static_cast<unsigned>(c.block.z);
  lc.sharedMemBytes = static_cast<unsigned>(c.shared_bytes);
  lc.hStream = static_cast<CUstream>(stream.handle());
  lc.attrs = n ? attrs : nullptr;
  lc.numAttrs = n;
  // On a green stream the context-independent CUkernel runs in the stream's context; the
  // primary context's CUfunction would be rejected there.
  auto f = static_cast<CUfunction>(green ? function.kernel_handle() : function.handle());
  CUresult r = api.cuLaunchKernelEx(&lc, f, args, nullptr);
  if (r != CUDA_SUCCESS) launch_failed(r, stream, function, c, "cuLaunchKernelEx");
  record_launch(s, stream, function, c);
}

}  // namespace cutlet::detail
