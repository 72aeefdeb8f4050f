// Launch-configuration checks and the kernel launch itself.
#include "cutlet/runtime/launch.h"

#include <string>
#include <string_view>
#include <utility>

#include "cutlet/runtime/device.h"
#include "cutlet/runtime/module.h"
#include "cutlet/runtime/stream.h"
#include "device_state.h"
#include "host_graph.h"
#include "host_queue.h"
#include "launch_internal.h"

namespace cutlet {
namespace {

/// Whether `c` satisfies `l`: the conditions check_launch_config spells out, without text.
bool fits(const DeviceLimits& l, const LaunchConfig& c) noexcept {
  const Dim3& g = c.grid;
  const Dim3& b = c.block;
  return g.x >= 1 && g.y >= 1 && g.z >= 1 && b.x >= 1 && b.y >= 1 && b.z >= 1 &&
         b.x <= l.max_block[0] && b.y <= l.max_block[1] && b.z <= l.max_block[2] &&
         b.x * b.y * b.z <= l.max_threads_per_block && g.x <= l.max_grid[0] &&
         g.y <= l.max_grid[1] && g.z <= l.max_grid[2] &&
         c.shared_bytes <= l.max_shared_per_block_optin;
}

/// The most blocks in a cluster that every cluster-capable device accepts.
constexpr long long kMaxClusterBlocks = 8;

}  // namespace

namespace detail {

std::string dims(const Dim3& d) {
  return "(" + std::to_string(d.x) + "," + std::to_string(d.y) + "," + std::to_string(d.z) + ")";
}

void bad_config(const char* kernel_name, const LaunchConfig& c, const std::string& problem) {
  throw Error("cannot launch kernel '" + std::string(kernel_name ? kernel_name : "?") + "' at " +
              to_string(c.where) + ": " + problem);
}

namespace {

/// The failed launch call with its config, and the hint for the common causes.
std::pair<std::string, std::string> launch_error_text(CUresult r, const Function& f, const LaunchConfig& c,
                                                      const char* call) {
  std::string hint = "launched at " + to_string(c.where);
  if (r == CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES) {
    try {
      FunctionAttributes a = f.attributes();
      hint += "; the kernel uses " + std::to_string(a.num_regs) + " registers per thread and " +
              std::to_string(a.shared_size_bytes) + " static shared bytes, and allows at most " +
              std::to_string(a.max_threads_per_block) + " threads per block: use smaller blocks";
    } catch (const Error&) {
    }
  } else if (r == CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE) {
    hint += "; a cooperative grid must fit on the SMs it may use at once (fewer on a green "
            "context): use fewer blocks";
  } else if (r == CUDA_ERROR_INVALID_CLUSTER_SIZE) {
    hint += "; the kernel cannot run clusters of this size (its resources or a "
            "__cluster_dims__ it was compiled with disagree): use a smaller cluster";
  }
  std::string what = std::string(call) + "(kernel '" + f.name() + "', grid " + dims(c.grid) + ", block " +
                     dims(c.block) + ", " + std::to_string(c.shared_bytes) + " shared bytes" +
                     (c.cluster != Dim3{} ? ", cluster " + dims(c.cluster) : std::string()) +
                     (c.cooperative ? ", cooperative" : "") +
                     (c.programmatic_dependent_launch ? ", programmatic dependent launch" : "") + ")";
  return {std::move(what), std::move(hint)};
}

}  // namespace

void launch_failed(CUresult r, const Function& f, const LaunchConfig& c, const char* call) {
  auto [what, hint] = launch_error_text(r, f, c, call);
  throw_cuda_error(r, std::move(what), hint);
}

void launch_failed(CUresult r, const Stream& stream, const Function& f, const LaunchConfig& c,
                   const char* call) {
  auto [what, hint] = launch_error_text(r, f, c, call);
  throw_stream_error(device_state(f.device().ordinal()), static_cast<CUstream>(stream.handle()),
                     stream.green_context() != nullptr, r, std::move(what), hint);
}

void opt_in_shared(const Function& f, const LaunchConfig& c, const DeviceState& s, bool green) {
  const DriverApi& api = driver();
  const int bytes = static_cast<int>(c.shared_bytes);
  CUresult r = green ? api.cuKernelSetAttribute(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, bytes,
                                                static_cast<CUkernel>(f.kernel_handle()), s.handle)
                     : api.cuFuncSetAttribute(static_cast<CUfunction>(f.handle()),
                                              CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, bytes);
  if (r != CUDA_SUCCESS)
    throw_cuda_error(r,
                     "cuFuncSetAttribute(kernel '" + f.name() + "', MAX_DYNAMIC_SHARED_SIZE_BYTES = " +
                         std::to_string(c.shared_bytes) + ")",
                     "the kernel's " + std::to_string(f.static_shared_bytes()) +
                         " bytes of static shared memory plus shared_bytes must stay within the device's "
                         "opt-in limit of " +
                         std::to_string(s.limits.max_shared_per_block_optin) + " bytes");
}

}  // namespace detail

using detail::bad_config;
using detail::dims;

void check_launch_config(const DeviceLimits& l, const LaunchConfig& c, const char* kernel_name,
                         std::string_view device_label) {
  const std::string dev(device_label);
  static constexpr char kAxis[3] = {'x', 'y', 'z'};
  const long long grid[3] = {c.grid.x, c.grid.y, c.grid.z};
  const long long block[3] = {c.block.x, c.block.y, c.block.z};
  for (int i = 0; i < 3; ++i) {
    if (grid[i] < 1)
      bad_config(kernel_name, c,
                 std::string("grid.") + kAxis[i] + " is " + std::to_string(grid[i]) +
                     (grid[i] == 0 ? "" : " (negative)") +
                     "; every grid extent must be at least 1 (an empty problem needs no launch)");
    if (block[i] < 1)
      bad_config(kernel_name, c,
                 std::string("block.") + kAxis[i] + " is " + std::to_string(block[i]) +
                     (block[i] == 0 ? "" : " (negative)") +
                     "; every block extent must be at least 1");
  }
  long long threads = 0;  // the product, or -1 when it does not fit in a long long
  if (__builtin_mul_overflow(block[0], block[1], &threads) ||
      __builtin_mul_overflow(threads, block[2], &threads))
    threads = -1;
  if (threads < 0 || threads > l.max_threads_per_block)
    bad_config(kernel_name, c,
               "block " + dims(c.block) + " has " +
                   (threads < 0 ? std::string("more than 2^63") : std::to_string(threads)) +
                   " threads; " + dev + " allows at most " +
                   std::to_string(l.max_threads_per_block) +
                   " per block; use smaller blocks and more of them");
  for (int i = 0; i < 3; ++i)
    if (block[i] > l.max_block[i])
      bad_config(kernel_name, c,
                 std::string("block.") + kAxis[i] + " is " + std::to_string(block[i]) + "; " + dev +
                     " allows at most " + std::to_string(l.max_block[i]) + " threads along " +
                     kAxis[i]);
  for (int i = 0; i < 3; ++i)
    if (grid[i] > l.max_grid[i])
      bad_config(kernel_name, c,
                 std::string("grid.") + kAxis[i] + " is " + std::to_string(grid[i]) + "; " + dev +
                     " allows at most " + std::to_string(l.max_grid[i]) + " blocks along " +
                     kAxis[i] +
                     (i > 0 ? " (put the largest extent in grid.x, which allows " +
                                  std::to_string(l.max_grid[0]) + ")"
                            : std::string(" (give each block more work)")));
  if (c.shared_bytes > l.max_shared_per_block_optin)
    bad_config(kernel_name, c,
               "shared_bytes is " + std::to_string(c.shared_bytes) + "; " + dev +
                   " allows at most " + std::to_string(l.max_shared_per_block_optin) +
                   " bytes of shared memory per block (with opt-in; " +
                   std::to_string(l.max_shared_per_block) + " without)");
  if (c.cluster != Dim3{}) {
    const long long cluster[3] = {c.cluster.x, c.cluster.y, c.cluster.z};
    if (!l.cluster_launch)
      bad_config(kernel_name, c,
                 "thread-block clusters (cluster " + dims(c.cluster) +
                     ") need compute capability 9.0 or newer, but " + dev + " is sm_" +
                     std::to_string(l.sm) + " and cannot launch clusters; launch without .cluster");
    for (int i = 0; i < 3; ++i)
      if (cluster[i] < 1)
        bad_config(kernel_name, c,
                   std::string("cluster.") + kAxis[i] + " is " + std::to_string(cluster[i]) +
                       "; every cluster extent must be at least 1");
    if (cluster[0] * cluster[1] * cluster[2] > kMaxClusterBlocks)
      bad_config(kernel_name, c,
                 "cluster " + dims(c.cluster) + " has " +
                     std::to_string(cluster[0] * cluster[1] * cluster[2]) + " blocks; " + dev +
                     " allows at most " + std::to_string(kMaxClusterBlocks) +
                     " blocks per cluster (the portable limit)");
    for (int i = 0; i < 3; ++i)
      if (grid[i] % cluster[i] != 0)
        bad_config(kernel_name, c,
                   std::string("grid.") + kAxis[i] + " (" + std::to_string(grid[i]) +
                       ") is not a multiple of cluster." + kAxis[i] + " (" +
                       std::to_string(cluster[i]) +
                       "); round the grid up to a whole number of clusters");
  }
  if (c.cooperative && !l.cooperative_launch)
    bad_config(kernel_name, c,
               dev + " does not support cooperative launches (CU_DEVICE_ATTRIBUTE_COOPERATIVE_"
                     "LAUNCH is 0); launch without .cooperative");
  CUTLET_ASSERT(fits(l, c), "check_launch_config and fits disagree");
}

void check_launch_config(const Device& device, const LaunchConfig& config,
                         const char* kernel_name) {
  const detail::DeviceState& s = detail::device_state(device.ordinal());
  check_launch_config(s.limits, config, kernel_name, s.label);
}

namespace {

/// Queues a kernel of the CPU device on its stream, with copies of the arguments' values.
void launch_on_cpu(const Stream& stream, const Function& function, const LaunchConfig& config, void** args) {
  // A programmatic dependent launch lets a kernel start before the one it depends on ends; the
  // CPU device runs a stream's kernels one after another, which keeps the dependency.
  if (config.cluster != Dim3{})
    bad_config(function.name().c_str(), config,
               "thread-block clusters are a GPU feature (sm_90 and newer) the CPU device does not have; launch "
               "without .cluster there");
  if (config.cooperative)
    detail::check_co_residency(function, config, detail::device_state(Device::kCpuOrdinal));
  detail::host_queue(stream).push_launch(detail::HostLaunch(function, config, args));
}

[[noreturn]] void device_mismatch(const Stream& s, const Function& f, const LaunchConfig& c) {
  bad_config(f.name().c_str(), c,
             "the kernel was loaded on " + detail::device_label(f.device().ordinal()) +
                 " but the stream is on " + detail::device_label(s.device().ordinal()) +
                 "; load the module on the stream's device too");
}

}  // namespace

void launch(const Stream& stream, const Function& function, const LaunchConfig& config,
            void** args) {
  const int ordinal = function.device().ordinal();
  if (stream.device().ordinal() != ordinal) [[unlikely]]
    device_mismatch(stream, function, config);
  const detail::DeviceState& s = detail::device_state(ordinal);
  const DeviceLimits& l = s.limits;
  if (!fits(l, config)) [[unlikely]]
    check_launch_config(l, config, function.name().c_str(), s.label);  // throws
  if (function.host_entry()) [[unlikely]]
    return launch_on_cpu(stream, function, config, args);
  if (config.extended() || stream.green_context()) [[unlikely]]
    return detail::launch_extended(stream, function, config, args, s);
  detail::ensure_current(s);
  const detail::DriverApi& api = detail::driver();
  auto f = static_cast<CUfunction>(function.handle());
  if (detail::needs_shared_opt_in(function, config, l)) [[unlikely]]
    detail::opt_in_shared(function, config, s, false);
  CUresult r = api.cuLaunchKernel(
      f, static_cast<unsigned>(config.grid.x), static_cast<unsigned>(config.grid.y),
      static_cast<unsigned>(config.grid.z), static_cast<unsigned>(config.block.x),
      static_cast<unsigned>(config.block.y), static_cast<unsigned>(config.block.z),
      static_cast<unsigned>(config.shared_bytes), static_cast<CUstream>(stream.handle()), args,
      nullptr);
  if (r != CUDA_SUCCESS) [[unlikely]]
    detail::launch_failed(r, stream, function, config, "cuLaunchKernel");
  detail::record_launch(s, stream, function, config);
}

}  // namespace cutlet
