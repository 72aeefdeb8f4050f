// Launch argument errors of Kernel::launch, formatted out of line.
#include <cxxabi.h>
#include <cstdlib>
#include <memory>

#include "cutlet/jit/kernel.h"

namespace cutlet::detail {

void throw_argument_error(const std::string& kernel, const std::source_location& defined,
                          const std::source_location& launched, const std::string& what) {
  throw Error("cutlet: bad arguments to kernel '" + kernel + "' (defined at " + to_string(defined) +
              ") launched at " + to_string(launched) + ": " + what);
}

void throw_null_buffer(const std::string& kernel, const std::source_location& launched, std::size_t index) {
  throw Error("cutlet: argument " + std::to_string(index + 1) + " of kernel '" + kernel + "' launched at " +
              to_string(launched) + " is an empty Buffer (no device memory); allocate it before launching");
}

void throw_tile_block(const std::string& kernel, const std::source_location& launched, int warps, long long threads) {
  throw Error("cutlet: tile kernel '" + kernel + "' launched at " + to_string(launched) + " with " +
              std::to_string(threads) + " threads per block, but it runs on " + std::to_string(warps) + " warps (" +
              std::to_string(32 * warps) + " threads); give only the grid, or pass warps to tile_kernel");
}

void check_tile_shared(const std::string& kernel, const std::source_location& launched, const Device& device,
                       const LoadedKernel& loaded, std::size_t dynamic_bytes, int stages) {
  const std::size_t limit = device.limits().max_shared_per_block_optin;
  const std::size_t static_bytes = static_cast<std::size_t>(loaded.compiled->resources.shared_bytes);
  if (dynamic_bytes + static_bytes <= limit) return;
  const std::size_t reserved = static_cast<std::size_t>(loaded.compiled->resources.dynamic_shared_bytes);
  throw Error("cutlet: tile kernel '" + kernel + "' launched at " + to_string(launched) + " needs " +
              std::to_string(dynamic_bytes + static_bytes) + " bytes of shared memory per block (" +
              std::to_string(reserved) + " for its tiles (stage rings, conversions, reductions), " + std::to_string(static_bytes) +
              " static, " + std::to_string(dynamic_bytes - reserved) + " given as shared_bytes), more than the " +
              std::to_string(limit) + " a block of this device may have; lower KernelOptions::tile_stages (now " +
              std::to_string(stages > 0 ? stages : 3) + ") or the tile sizes");
}

void throw_needs_cooperative(const std::string& kernel, const std::source_location& launched,
                             const std::string& grid_sync_at) {
  throw Error("cutlet: kernel '" + kernel + "' launched at " + to_string(launched) + " calls grid_sync() (at " +
              grid_sync_at +
              ") but is not launched cooperatively; set LaunchConfig::cooperative = true (the grid must then fit on "
              "the device at once: see max_cooperative_blocks)");
}

std::string demangled_name(const char* mangled) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> name(abi::__cxa_demangle(mangled, nullptr, nullptr, &status), std::free);
  return status == 0 && name ? std::string(name.get()) : std::string(mangled);
}

}  // namespace cutlet::detail
