// Internal: a host kernel as bytes (HostKernel::image), for the disk cache: what running it
// needs to know besides its object code, and the object code.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cutlet::backend {

/// Everything HostKernel::load needs: the kernel's launch facts and its object file.
struct HostKernelImage {
  std::string name;
  std::string llvm_ir;                     ///< after optimization
  bool phases = false;                     ///< the entry runs a block in phases (else a thread)
  std::uint64_t scratch_per_thread = 0;
  std::uint64_t exchange_bytes = 0;
  std::uint32_t tile_threads = 0;
  std::vector<std::string> phase_errors;
  bool waits_for_other_blocks = false;
  bool grid_syncs = false;
  bool checked = false;
  bool line_info = false;                  ///< announce the code to debuggers
  std::int64_t opt_level = 3;              ///< how the code was generated (for the JIT's target)
  bool fma_contraction = true;
  std::uint64_t reserved_shared = 0;
  std::vector<std::size_t> param_sizes;    ///< bytes of each parameter's value
  std::vector<std::string> math_symbols;   ///< the math functions the object calls, by name
  std::string object;                      ///< the ELF (or the host's) object file

  /// The bytes of the image.
  std::string serialize() const;
  /// The image `bytes` hold, or nothing when they are not one (another format version,
  /// truncated, or garbage).
  static std::optional<HostKernelImage> parse(std::string_view bytes);
};

}  // namespace cutlet::backend
