// Compiling IR to PTX (LLVM NVPTX) and to a cubin (nvJitLink).
#pragma once

#include <string>
#include <vector>

#include "cutlet/backend/target.h"
#include "cutlet/error.h"
#include "cutlet/ir/function.h"

namespace cutlet {

/// A failure in LLVM or nvJitLink; the message carries the tool's own log.
class CompileError : public Error {
 public:
  using Error::Error;
};

/// What changes the generated code. Part of every compiled-kernel cache key.
struct CompileOptions {
  Target target;
  /// LLVM optimization level, 0-3 (nvJitLink/ptxas always optimizes).
  int opt_level = 3;
  /// Fuse a*b+c into fma, as nvcc does by default (--fmad=true).
  bool fma_contraction = true;
  /// Flush f32 denormal inputs and results to zero (nvcc --ftz=true).
  bool flush_denormals = false;
  /// Approximate f32 division, square root and transcendental functions (nvcc
  /// --use_fast_math's __expf, __sinf, ...): faster, with larger documented errors.
  bool approx_math = false;
  /// Emit line information (.loc) mapping the PTX and SASS to the user's source lines, for
  /// Nsight Compute, compute-sanitizer and cuda-gdb (nvcc -lineinfo).
  bool line_info = false;
  /// Launch bounds (.maxntid and .minnctapersm in the PTX; 0: none): the most threads per
  /// block, and the blocks per multiprocessor ptxas budgets registers for.
  int max_block_threads = 0;
  int min_blocks_per_sm = 0;
  /// Keep the LLVM IR text (before and after optimization) in the result.
  bool keep_llvm_ir = false;
  /// For the CPU (HostKernel): check every load, store and atomic of the kernel against its
  /// buffers' and shared memory's bounds, and shared-memory accesses for races (see
  /// KernelOptions::checked). GPU code is compiled as without it.
  bool checked = false;

  bool operator==(const CompileOptions&) const = default;
};

/// Register and memory use of a compiled kernel, from the linker's report.
struct ResourceUsage {
  int registers = -1;          ///< registers per thread (-1: not reported)
  int shared_bytes = 0;        ///< static shared memory per block
  int stack_bytes = 0;         ///< per-thread stack frame
  int spill_store_bytes = 0;
  int spill_load_bytes = 0;
  int constant_bytes = 0;      ///< cmem[0]: parameters and constants
  /// Dynamic shared memory the kernel's own code uses, from offset 0: the arena that holds
  /// every buffer of its tile ops (layout conversions, cross-warp reductions and scans, dot
  /// operands, the stage rings of pipelined loops), placed by liveness so that buffers whose
  /// lifetimes do not overlap share bytes. Launches must add it to the dynamic shared memory
  /// they give; the block's total is this plus shared_bytes plus the user's dynamic memory.
  int dynamic_shared_bytes = 0;
};

/// Wall-clock milliseconds of each compile stage.
struct CompileTimings {
  double lower_ms = 0;     ///< cutlet IR -> LLVM IR
  double optimize_ms = 0;  ///< LLVM O3 pipeline
  double codegen_ms = 0;   ///< LLVM IR -> PTX
  double link_ms = 0;      ///< PTX -> cubin (nvJitLink)
};

/// A kernel compiled for one target.
struct CompiledKernel {
  std::string name;          ///< the PTX entry point
  std::string llvm_ir;       ///< before optimization (only with keep_llvm_ir or a dump)
  std::string llvm_ir_opt;   ///< after optimization (likewise)
  std::string ptx;
  std::vector<char> cubin;
  std::string link_log;      ///< nvJitLink's info log
  ResourceUsage resources;
  CompileTimings timings;
};

/// Lowers `f` to LLVM IR, optimizes it, emits PTX for `options.target` and links it to a
/// cubin with nvJitLink. Stages listed in CUTLET_DUMP ("llvm", "llvm-opt", "ptx", "sass",
/// "resources") are dumped, named by the hash of `f`, the target and the options that are not
/// the defaults (dump.h). Throws CompileError with LLVM's or nvJitLink's log on failure, and
/// before linking when the kernel needs more shared memory than a block of the target can have
/// (naming the buffers live at its peak and what to lower).
/// Thread-safe: concurrent compiles use separate LLVM contexts.
CompiledKernel compile(const ir::Function& f, const CompileOptions& options);

/// Lowers and optimizes `f` and returns only its PTX (no nvJitLink).
std::string compile_to_ptx(const ir::Function& f, const CompileOptions& options);

/// Links PTX text to a cubin for `target` with nvJitLink; `info_log`, if given, receives
/// the linker's report. Throws CompileError carrying nvJitLink's error log.
/// With `line_info`, the cubin keeps the PTX's line information (-lineinfo).
std::vector<char> link_ptx(const std::string& ptx, const Target& target, const std::string& name,
                           std::string* info_log = nullptr, bool line_info = false);

/// Parses the resource report of nvJitLink/ptxas ("Used 10 registers, ...") for `kernel`.
ResourceUsage parse_resource_usage(const std::string& log, const std::string& kernel);
/// The registers, stack frame, static shared memory and cmem[0] bytes of `kernel` read from its
/// cubin (the spills stay at ResourceUsage's defaults): what compile() reports when the linker's report has
/// no registers, as when nvJitLink gave a cubin from its own cache of an earlier link.
ResourceUsage cubin_resource_usage(const std::vector<char>& cubin, const std::string& kernel);

/// "19.1.7": the LLVM that generates PTX.
std::string llvm_version();
/// "13.0": the nvJitLink that links cubins.
std::string nvjitlink_version();
/// The build of that nvJitLink, which its major.minor version does not pin down (see
/// Linker::library_build_id): "gnu-build-id:<hex>", else "file:<path>:<size>:<mtime>".
std::string nvjitlink_build_id();
/// A hash of the sources of this build's compiler (the IR and the backend) and of the
/// libdevice it links: it changes whenever the code generated for a kernel may, so caches of
/// compiled kernels key on it.
std::string compiler_build_id();
/// The libdevice this process links (the one CUTLET_LIBDEVICE, CUDA_HOME or the build's
/// toolkit names, found on the first call): "<bytes>:<hash of its contents>", or
/// "unreadable" where there is none. Caches of compiled kernels key on it, since a kernel's
/// math is libdevice's code.
std::string libdevice_build_id();
/// Where the libdevice that compiles link is looked for: $CUTLET_LIBDEVICE, else
/// $CUDA_HOME (or $CUDA_PATH)/nvvm/libdevice/libdevice.10.bc, else the build's toolkit.
std::string libdevice_file();

}  // namespace cutlet
