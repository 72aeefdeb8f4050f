// Errors of Kernel's options and of Kernel::launch's arguments, formatted out of line.
#include <cxxabi.h>
#include <cstdlib>
#include <memory>

#include "cutlet/jit/kernel.h"
#include "cutlet/jit/symbol_name.h"

namespace cutlet::detail {
namespace {

bool is_tile_warps(int warps) { return warps >= 1 && warps <= kMaxTileWarps && (warps & (warps - 1)) == 0; }

/// The warps to write instead of `warps`: the powers of two around it, within 1 to kMaxTileWarps.
std::string warps_instead(int warps) {
  if (warps < 1) return "1";
  if (warps > kMaxTileWarps) return std::to_string(kMaxTileWarps);
  int below = 1;
  while (below * 2 < warps) below *= 2;
  return std::to_string(below) + " or " + std::to_string(below * 2);
}

/// What to write instead of `stages` pipeline stages.
std::string stages_instead(int stages) {
  if (stages > kMaxTileStages)
    return std::to_string(kMaxTileStages) +
           " or fewer (every stage is another shared-memory buffer of each pipelined tile)";
  return std::to_string(kMinTileStages) +
         " or more (one stage is filled while another is read), or 0 for the default";
}

[[noreturn]] void throw_tile_stages(const KernelOptions& options, const std::string& where) {
  throw Error("cutlet: KernelOptions::tile_stages is " + std::to_string(kMinTileStages) + " to " +
              std::to_string(kMaxTileStages) + " (or 0 for the default, 3), not " +
              std::to_string(options.tile_stages) + " (" + where + "); write " + stages_instead(options.tile_stages));
}

/// Throws when KernelOptions' launch bounds are out of range, or set for a tile kernel.
void check_launch_bounds(const KernelOptions& options, const std::string& where) {
  if (options.max_block_threads < 0 || options.max_block_threads > 1024)
    throw Error("cutlet: KernelOptions::max_block_threads is the most threads a block of the kernel has, 1 to 1024, "
                "or 0 for no bound, not " + std::to_string(options.max_block_threads) + " (" + where + ")");
  if (options.min_blocks_per_sm < 0)
    throw Error("cutlet: KernelOptions::min_blocks_per_sm is the blocks that should fit on a multiprocessor at once, "
                "or 0 for no request, not " + std::to_string(options.min_blocks_per_sm) + " (" + where + ")");
  if (options.min_blocks_per_sm > 0 && options.max_block_threads == 0)
    throw Error("cutlet: KernelOptions::min_blocks_per_sm = " + std::to_string(options.min_blocks_per_sm) +
                " needs max_block_threads, the block size it is counted in (" + where +
                "); set max_block_threads to the threads per block of the kernel's launches");
  if (options.tile_warps != 0 && (options.max_block_threads != 0 || options.min_blocks_per_sm != 0))
    throw Error("cutlet: KernelOptions::max_block_threads and min_blocks_per_sm are for per-thread kernels, and " +
                where + " is a tile kernel, whose block is its " + std::to_string(options.tile_warps) +
                " warps already; leave them at 0");
}

}  // namespace

void check_kernel_options(const KernelOptions& options, const std::source_location& defined) {
  check_symbol_name(options.name, "kernel", defined);
  const std::string where = "kernel '" + options.name + "' defined at " + to_string(defined);
  if (options.opt_level < 0 || options.opt_level > 3)
    throw Error("cutlet: KernelOptions::opt_level is LLVM's optimization level 0, 1, 2 or 3, not " +
                std::to_string(options.opt_level) + " (" + where + "); write " + (options.opt_level < 0 ? "0" : "3"));
  if (options.tile_warps != 0 && !is_tile_warps(options.tile_warps))
    throw Error("cutlet: KernelOptions::tile_warps is 0 (a per-thread kernel) or the warps of a tile kernel's block, 1, "
                "2, 4, 8, 16 or 32 (a block has at most 1024 threads), not " + std::to_string(options.tile_warps) +
                " (" + where + "); write " + warps_instead(options.tile_warps));
  check_launch_bounds(options, where);
  if (options.tile_stages == 0) return;
  if (options.tile_stages < kMinTileStages || options.tile_stages > kMaxTileStages)
    throw_tile_stages(options, where);
  if (options.tile_warps == 0)
    throw Error("cutlet: KernelOptions::tile_stages = " + std::to_string(options.tile_stages) +
                " is for tile kernels, and " + where +
                " is a per-thread one (tile_warps = 0); make it with tile_kernel(fn, options, warps), or leave "
                "tile_stages at 0");
}

void check_tile_kernel_warps(int warps, const KernelOptions& options, const std::source_location& defined) {
  if (!is_tile_warps(warps))
    throw Error("cutlet: a tile kernel runs on 1, 2, 4, 8, 16 or 32 warps (a block has at most 1024 threads), not " +
                std::to_string(warps) + " (defined at " + to_string(defined) + "); write " + warps_instead(warps));
  if (options.tile_warps != 0 && options.tile_warps != warps)
    throw Error("cutlet: tile_kernel was given " + std::to_string(warps) + " warps and KernelOptions::tile_warps = " +
                std::to_string(options.tile_warps) + " (defined at " + to_string(defined) +
                "); give the warps once, as tile_kernel's argument, and leave tile_warps at 0");
}

void throw_argument_error(const std::string& kernel, const std::source_location& defined,
                          const std::source_location& launched, const std::string& what) {
  throw Error("cutlet: bad arguments to kernel '" + kernel + "' (defined at " + to_string(defined) +
              ") launched at " + to_string(launched) + ": " + what);
}

void throw_null_buffer(const std::string& kernel, const std::source_location& launched, std::size_t index) {
  throw Error("cutlet: argument " + std::to_string(index + 1) + " of kernel '" + kernel + "' launched at " +
              to_string(launched) + " is an empty Buffer (no device memory); allocate it before launching");
}

void check_buffer_reachable(const std::string& kernel, const std::source_location& launched, std::size_t index,
                            const Device& buffer_device, const MemoryResource* resource, const Device& device) {
  const std::string arg = "cutlet: argument " + std::to_string(index + 1) + " of kernel '" + kernel + "' launched at " +
                          to_string(launched);
  if (buffer_device.is_cpu())
    throw Error(arg + " on " + device.name() + " is a Buffer of the CPU device (host memory), which a GPU kernel " +
                "cannot read; copy it to the GPU first (Buffer<T>(stream, host_vector), or DeviceMemory::copy_from)");
  if (resource == nullptr || resource->host_accessible()) return;  // pinned or managed memory the CPU reads too
  throw Error(arg + " on the CPU device is a Buffer of device memory of " + buffer_device.name() +
              ", which the CPU cannot read; copy it to the host (to_host) or into a Buffer of the CPU device");
}

void throw_tile_block(const std::string& kernel, const std::source_location& launched, int warps, long long threads) {
  throw Error("cutlet: tile kernel '" + kernel + "' launched at " + to_string(launched) + " with " +
              std::to_string(threads) + " threads per block, but it runs on " + std::to_string(warps) + " warps (" +
              std::to_string(32 * warps) + " threads); give only the grid, or pass warps to tile_kernel");
}

void throw_launch_bounds(const std::string& kernel, const std::source_location& launched, int max_block_threads,
                         long long threads) {
  throw Error("cutlet: kernel '" + kernel + "' launched at " + to_string(launched) + " with " +
              std::to_string(threads) + " threads per block, more than its KernelOptions::max_block_threads = " +
              std::to_string(max_block_threads) + "; launch smaller blocks, or raise max_block_threads");
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
