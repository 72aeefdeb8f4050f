// The autotuner's non-template parts: size buckets, the device part of tuning keys, resource checks.
#include "cutlet/jit/autotune.h"

#include "cutlet/runtime/driver.h"
#include "cutlet/runtime/environment.h"

namespace cutlet {

std::uint64_t size_bucket(std::uint64_t n) {
  std::uint64_t b = 1;
  while (b < n && b < (std::uint64_t{1} << 63)) b <<= 1;
  return b;
}

namespace detail {

bool autotune_verbose_from_environment() { return env_flag("CUTLET_AUTOTUNE_VERBOSE", false); }

std::string tuning_device_text(const Device& device) {
  if (device.is_cpu()) return "device=" + device.name() + " (the CPU device)\ndriver=none";
  return "device=" + device.name() + " (sm_" + std::to_string(device.compute_capability().sm()) +
         ", " + std::to_string(device.sm_count()) + " SMs)\ndriver=" + std::to_string(driver_version());
}

std::string check_resources(const CompiledKernel& kernel, const LaunchConfig& shape, const Device& device) {
  if (device.is_cpu()) return "";  // no registers to run out of; the launch checks the rest
  constexpr int kMaxRegistersPerBlockAttribute = 12;  // CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK
  const long long threads = shape.block.count();
  if (kernel.resources.registers > 0 && threads > 0) {
    const long long needed = static_cast<long long>(kernel.resources.registers) * threads;
    const long long available = device.attribute(kMaxRegistersPerBlockAttribute);
    if (available > 0 && needed > available)
      return std::to_string(kernel.resources.registers) + " registers per thread x " + std::to_string(threads) +
             " threads = " + std::to_string(needed) + " registers per block, above the device's " +
             std::to_string(available);
  }
  const std::size_t shared = static_cast<std::size_t>(std::max(0, kernel.resources.shared_bytes)) + shape.shared_bytes;
  const std::size_t limit = device.limits().max_shared_per_block_optin;
  if (limit > 0 && shared > limit)
    return std::to_string(shared) + " bytes of shared memory per block (static " +
           std::to_string(kernel.resources.shared_bytes) + " + dynamic " + std::to_string(shape.shared_bytes) +
           "), above the device's " + std::to_string(limit);
  return "";
}

}  // namespace detail
}  // namespace cutlet
