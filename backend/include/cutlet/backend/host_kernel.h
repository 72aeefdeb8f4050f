// Kernels compiled for the host CPU and run there: the same IR lowered by LLVM for the host
// and loaded with LLVM's ORC JIT, each block's threads run as a loop or as fibers, the blocks
// spread over the host's cores.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "cutlet/backend/compiler.h"
#include "cutlet/ir/function.h"

namespace cutlet {

/// A grid or block shape of a kernel run on the host.
struct HostDim {
  std::uint32_t x = 1, y = 1, z = 1;
  std::uint64_t count() const { return std::uint64_t{x} * y * z; }
};

/// A kernel compiled for the host CPU, run with the GPU's execution model: per-thread kernels,
/// and tile kernels whose ops have host lowerings (tiles traced for the host hold up to 64
/// bytes in a row per thread; masked vector loads and stores, dots as FMAs).
///
/// Each block runs in phases: loops over its threads (x fastest), split where the threads wait
/// for each other (barriers, warp shuffles, votes, match and redux over whole warps), which
/// LLVM optimizes and vectorizes; values that live from one phase to the next are kept per
/// thread. A tile op that moves elements between threads (a conversion, permute or reshape, a
/// reduction or scan across threads, a dot) is a phase of its own: every thread's registers go
/// to dense tiles, the op runs once for the block on those, and each thread reads its result.
/// Kernels that phases cannot express (warp operations over part of a warp, grid_sync, device
/// functions that wait) run each thread as a fiber that switches to the next at each barrier
/// and warp operation. A kernel that calls grid_sync() runs as a cooperative grid: all its
/// blocks resident at once, taking turns on the host's threads between grid_sync()s. Either
/// way they behave as on the GPU: a barrier completes when every thread of the block that has
/// not returned reaches it, a warp operation when every lane of its mask does. Atomics are the host's, every scope the process's. Blocks are spread over
/// the host's hardware threads, in no particular order, as on the GPU. Math functions are the
/// host C library's (expf for libdevice's __nv_expf, sin for __nv_sin, ...), and on x86-64
/// with AVX2 where SLEEF is installed (libsleef3) SLEEF's 1-ulp vector variants of them.
/// print() writes to stdout as it runs; a failed assert_ stops the launch with an error naming
/// its message, line and thread. compile() refuses what does not run on the host yet, naming
/// it: the GPU-only operations of tile kernels traced for a GPU (tensor-core
/// dots, asynchronous copies, TMA); tile kernels traced for the host (ir::Function::host_target,
/// as the CPU device traces them) have none.
class HostKernel {
 public:
  /// Compiles kernel `kernel` (ir::Function::is_kernel) for the host. Of `options`, the
  /// optimization level, FMA contraction, approximate math and line_info count; the target is
  /// the host. With line_info each thread runs as a fiber, the code carries line tables of the
  /// kernel's source lines and is announced to debuggers through GDB's JIT interface: `break
  /// my_kernel.cpp:42` in gdb (or lldb) stops there while the kernel runs (opt_level 0 keeps
  /// every line), and the thread's threadIdx, blockIdx, blockDim and gridDim, its parameters
  /// (arg1, arg2, ...) and its variables (var_L<line>) can be printed. Throws
  /// CompileError for a kernel that uses what the host target cannot run yet.
  static HostKernel compile(const ir::Function& kernel, const CompileOptions& options = {});

  /// The kernel as bytes: its object code and what running it needs, for load() in another
  /// process on the same kind of host (the disk cache keys it by host_identity()).
  std::string image() const;
  /// The kernel image() gave, linked into this process (no LLVM optimization or code
  /// generation runs). Throws CompileError for bytes that are no image of this cutlet, or
  /// code calling a math function this process lacks.
  static HostKernel load(std::string_view image);
  /// What host code depends on besides the IR and options: the host's triple, CPU and its
  /// features, and whether SLEEF's vector math is there.
  static std::string host_identity();

  HostKernel(HostKernel&&) noexcept;
  HostKernel& operator=(HostKernel&&) noexcept;
  ~HostKernel();

  /// Runs the kernel over `grid` blocks of `block` threads, each block with the kernel's own
  /// shared memory and `dynamic_shared_bytes` more (dynamic_shared()), and returns when every
  /// thread has finished. args[i] points to the value of the kernel's parameter i, as
  /// cuLaunchKernel takes them (a pointer parameter's value is a host address). A tile
  /// kernel's blocks have its own 32 * tile_warps threads, whatever `block` says (for one
  /// traced for the host, ir::choose_host_warps may have given it fewer warps than its launch
  /// names). Throws
  /// cutlet::Error for an empty grid or block, a block of more than 1024 threads, threads
  /// that wait for each other forever (the message says where each waits, also at a
  /// grid_sync() some blocks never reach) or a failed assert_; HostKernelFault when kernel
  /// code took a hardware fault (an access where nothing is mapped, an integer division by
  /// zero): the process goes on, the launch stops.
  void run(HostDim grid, HostDim block, void** args, std::size_t dynamic_shared_bytes = 0) const;

  /// The kernel's name.
  const std::string& name() const;
  /// The bytes of the value of each of the kernel's parameters, in order (what args[i] of
  /// run() points to), for callers that keep copies of the arguments.
  const std::vector<std::size_t>& param_sizes() const;
  /// The LLVM IR of the kernel and its block loop after optimization.
  const std::string& llvm_ir() const;
  /// Whether its blocks run in phases (else each thread as a fiber).
  bool runs_in_phases() const;
  /// The shared memory each block has of its own (its shared_arrays), before the dynamic bytes.
  std::size_t static_shared_bytes() const;

 private:
  struct Impl;
  explicit HostKernel(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace cutlet
