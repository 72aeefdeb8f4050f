// Compiled specializations of a kernel: the per-kernel lookup used on every launch, and the
// process-wide trace -> compile -> load path behind it.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <source_location>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cutlet/backend/compiler.h"
#include "cutlet/jit/recompile.h"
#include "cutlet/language/trace.h"
#include "cutlet/ir/hash.h"
#include "cutlet/ir/function.h"
#include "cutlet/runtime/device.h"
#include "cutlet/runtime/module.h"

namespace cutlet {

/// The most warps a tile kernel's block may have: 32 warps are 1024 threads, a block's limit.
inline constexpr int kMaxTileWarps = 32;
/// The fewest pipeline stages (KernelOptions::tile_stages) a tile kernel may ask for: a ring
/// needs one buffer being filled while another is read.
inline constexpr int kMinTileStages = 2;
/// The most pipeline stages a tile kernel may ask for. Every stage is another shared-memory
/// buffer of each pipelined tile: a 128x64 and a 64x128 f16 tile take 32 KiB a stage, so 8
/// stages already fill the 227 KiB a block may have on sm_90, while 3 or 4 hide the latency of
/// global memory. Deeper rings only fit tiles too small to keep the tensor cores busy.
inline constexpr int kMaxTileStages = 8;

/// Per-kernel options; all of them are part of the specialization key.
struct KernelOptions {
  /// The kernel's entry-point name (a PTX name: a letter, '_' or '$', then letters, digits,
  /// '_' or '$'; others throw where the kernel is made); by default made from the file and
  /// line where the kernel is defined, e.g. "saxpy_cpp_L12".
  std::string name;
  /// Compile for this target instead of the launching device's architecture.
  std::optional<Target> target;
  /// LLVM optimization level (0-3; others throw where the kernel is made).
  int opt_level = 3;
  /// Fuse a*b+c into fma (on by default, as with nvcc).
  bool fma_contraction = true;
  /// Flush f32 denormals to zero (nvcc --ftz=true).
  bool flush_denormals = false;
  /// Approximate f32 division, square root and transcendentals (nvcc --use_fast_math).
  bool approx_math = false;
  /// Line information in the PTX and cubin pointing at the kernel's C++ lines (nvcc
  /// -lineinfo), for Nsight Compute and compute-sanitizer; also on for every kernel with
  /// CUTLET_LINEINFO=1. Each traced op is then attributed to its line by a stack walk, which
  /// needs the program built with debug information (-g) and makes tracing slower.
  bool line_info = false;
  /// Check every View index against the view's shape; an index out of bounds prints the
  /// index, the shape, the dimension and the view's name, and stops the kernel with a
  /// device-side assert (the next synchronization raises CUDA_ERROR_ASSERT). Also on for
  /// every kernel with CUTLET_BOUNDS_CHECK=1. For debugging: it costs a compare per index.
  bool bounds_check = false;
  /// For a tile kernel (see tile_kernel): the warps per block its tiles are spread over (a
  /// power of two, 1 to kMaxTileWarps). 0 makes a per-thread kernel. Other values are refused
  /// where the kernel is made.
  int tile_warps = 0;
  /// For a tile kernel: the shared-memory stages of its pipelined loops (kMinTileStages to
  /// kMaxTileStages, i.e. 2 to 8; Triton's num_stages). Loads that feed a dot are copied
  /// global -> shared with cp.async into a ring of this many buffers, filled ahead of the
  /// iterations that read them. More stages hide more latency and take more shared memory (a
  /// launch that would exceed the device's is refused). 0 chooses 3. Other values, and stages
  /// for a per-thread kernel, are refused where the kernel is made.
  int tile_stages = 0;
  /// Launch bounds of a per-thread kernel, as CUDA's __launch_bounds__(max_block_threads,
  /// min_blocks_per_sm): the most threads a block of any launch has (1 to 1024; 0: no
  /// bound), and the blocks that should fit on a multiprocessor at once (0: no request;
  /// needs max_block_threads). ptxas then limits the registers per thread so that
  /// min_blocks_per_sm blocks of max_block_threads threads fit (spilling if it must), and
  /// LLVM leaves each value where the kernel computes it rather than moving it down to its
  /// first use, which would keep its operands alive instead (more registers). A launch with
  /// more threads per block than max_block_threads throws. A tile kernel's block
  /// is its warps already: bounds for one are refused where the kernel is made.
  int max_block_threads = 0;
  int min_blocks_per_sm = 0;
  /// On the CPU device: run the kernel checked, as compute-sanitizer's memcheck and
  /// racecheck check a GPU's. Every load, store and atomic of a per-thread kernel is checked
  /// against the bounds of the CPU device's buffers and of the block's shared memory, and
  /// accesses of different threads to the same bytes of shared memory with no syncthreads()
  /// between them, one a write, are a race. The first such access stops the launch with an
  /// error naming it (read or write, bytes, address, the buffer it missed), the kernel's
  /// source line, the thread and the block; the next synchronize() raises it. Memory cutlet
  /// did not allocate (Buffer::wrap of a host pointer) is not checked, nor are tile ops and
  /// device functions. Also on for every kernel with CUTLET_CHECK=1. GPUs ignore it: run
  /// compute-sanitizer there.
  bool checked = false;
};

/// Compile statistics of this process, for every kernel. A compile request (a traced
/// specialization, or Kernel::compile) is answered by the in-memory cache (ir_hits), else by
/// the persistent disk cache (disk_hits), else by compiling (compiles).
struct CacheStats {
  std::uint64_t traces = 0;        ///< specializations traced
  std::uint64_t compiles = 0;      ///< traced IR compiled (LLVM + nvJitLink)
  std::uint64_t ir_hits = 0;       ///< traced IR found already compiled in this process
  std::uint64_t loads = 0;         ///< modules loaded onto a device
  std::uint64_t disk_hits = 0;     ///< compiled kernels read from the disk cache instead of compiled
  std::uint64_t disk_misses = 0;   ///< disk cache lookups that found no usable entry (corrupt ones included)
  std::uint64_t disk_writes = 0;   ///< entries written to the disk cache
  std::uint64_t disk_corrupt = 0;  ///< truncated, corrupt or mismatching entries found (ignored, then rewritten)
  std::uint64_t disk_bytes_read = 0;     ///< bytes of the entries hit
  std::uint64_t disk_bytes_written = 0;  ///< bytes of the entries written
  double time_saved_ms = 0;        ///< the original compile times of the entries hit

  /// Compile requests answered without compiling (in memory or on disk).
  std::uint64_t hits() const { return ir_hits + disk_hits; }
  /// Compile requests that had to compile.
  std::uint64_t misses() const { return compiles; }
};
/// A snapshot of the process-wide compile statistics.
CacheStats cache_stats();

namespace detail {

/// Where a compile request's code came from.
enum class CompileSource {
  Compiled,  ///< LLVM and nvJitLink ran
  Memory,    ///< the in-memory cache of this process had it
  Disk,      ///< the persistent disk cache had it
};
/// For recompile explanations: "" for Compiled, else "code reused from this process's memory"
/// or "code read from the disk cache".
std::string_view source_note(CompileSource source);

/// A compiled kernel loaded on one device. Immutable once published.
struct LoadedKernel {
  std::shared_ptr<const CompiledKernel> compiled;
  std::optional<Module> module;  ///< none on the CPU device
  Function function;
  double trace_ms = 0;   ///< tracing the lambda
  double passes_ms = 0;  ///< the IR pass pipeline
  double load_ms = 0;    ///< cuModuleLoadData
  CompileSource source = CompileSource::Compiled;  ///< where `compiled` came from
  double compile_ms = 0;  ///< getting `compiled`: the compile, or the cache lookup
  /// Where the kernel calls grid_sync() ("file:line"), empty if it does not: such a
  /// kernel must be launched cooperatively.
  std::string grid_sync_at;
};

/// One specialization as seen by a launch: immutable once published.
struct Specialization {
  int device = -1;
  /// The Device::generation() it was loaded in: after a Device::reset it is stale and the
  /// next launch loads the kernel again.
  std::uint64_t generation = 0;
  std::shared_ptr<const LoadedKernel> loaded;
  const Function* function = nullptr;
  const Specialization* next = nullptr;
  bool needs_cooperative = false;  ///< the kernel calls grid_sync()
  /// Dynamic shared memory the kernel's own code uses (pipelined tile loops); a launch
  /// reserves it ahead of LaunchConfig::shared_bytes.
  std::size_t reserved_shared_bytes = 0;
  // Kernels with Const parameters: the key's remaining parts.
  std::uint32_t signature = 0;
  std::uint64_t consts_hash = 0;
  std::vector<std::uint64_t> consts;
};

/// The hash of a Const kernel's key (signature id, device, the bits of the Const values).
inline std::uint64_t consts_hash(std::uint32_t signature, int device, std::span<const std::uint64_t> consts) noexcept {
  Hasher h;
  h.add(signature);
  h.add(static_cast<std::uint64_t>(static_cast<std::uint32_t>(device)));
  for (std::uint64_t c : consts) h.add(c);
  return h.value();
}

/// The specializations of one Kernel object, keyed by (signature id, device, the device's
/// context generation) and, for kernels with Const parameters, the Const values. Lookups are lock-free (for kernels
/// without Const parameters, for their first few signatures); inserts take a lock.
class SpecializationCache {
 public:
  SpecializationCache() = default;
  SpecializationCache(const SpecializationCache&) = delete;
  SpecializationCache& operator=(const SpecializationCache&) = delete;

  const Specialization* find(std::uint32_t signature, int device, std::uint64_t generation) const noexcept {
    if (signature < kFast) {
      for (auto* e = fast_[signature].load(std::memory_order_acquire); e; e = e->next)
        if (e->device == device && e->generation == generation) return e;
      return nullptr;
    }
    return find_slow(signature, device, generation);
  }

  /// The specialization of a kernel with Const parameters for (signature, device, the bits
  /// of the Const values): a probe of an open-addressing table, lock-free.
  const Specialization* find(std::uint32_t signature, int device, std::uint64_t generation,
                             std::span<const std::uint64_t> consts) const noexcept {
    const std::uint64_t h = consts_hash(signature, device, consts);
    const ConstTable* t = const_table_.load(std::memory_order_acquire);
    if (!t) return nullptr;
    for (std::size_t i = h & t->mask;; i = (i + 1) & t->mask) {
      const Specialization* e = t->slots[i].load(std::memory_order_acquire);
      if (!e) return nullptr;
      if (e->consts_hash == h && e->signature == signature && e->device == device && e->generation == generation &&
          e->consts.size() == consts.size() &&
          std::equal(consts.begin(), consts.end(), e->consts.begin()))
        return e;
    }
  }

  /// Returns the specialization for (signature, device, generation, consts), calling `make`
  /// to build it if absent (`consts` empty for kernels without Const parameters). Concurrent
  /// callers for one key build it once. Stale generations stay stored (launches still
  /// running may read them) but are never found again.
  const Specialization& get_or_make(std::uint32_t signature, int device, std::uint64_t generation,
                                    std::span<const std::uint64_t> consts,
                                    const std::function<std::shared_ptr<const LoadedKernel>()>& make);

  /// The most recently built specialization, if any (for inspection).
  std::shared_ptr<const LoadedKernel> last() const;

  /// The specializations this Kernel object traced, and why each was needed.
  RecompileLog& recompiles() { return recompiles_; }
  const RecompileLog& recompiles() const { return recompiles_; }

 private:
  static constexpr std::uint32_t kFast = 16;
  /// An open-addressing table of Const specializations. Slots only go from empty to set, so
  /// readers need no lock; a full table is replaced by a bigger one, the old one kept alive.
  struct ConstTable {
    explicit ConstTable(std::size_t capacity)
        : slots(new std::atomic<const Specialization*>[capacity]), mask(capacity - 1) {
      for (std::size_t i = 0; i < capacity; ++i) slots[i].store(nullptr, std::memory_order_relaxed);
    }
    std::unique_ptr<std::atomic<const Specialization*>[]> slots;
    std::size_t mask;
    std::size_t count = 0;
  };
  const Specialization* find_slow(std::uint32_t signature, int device, std::uint64_t generation) const;
  const Specialization* find_slow_unlocked(std::uint32_t signature, int device, std::uint64_t generation) const;
  void insert_const(const Specialization* s);

  std::atomic<const Specialization*> fast_[kFast] = {};
  std::atomic<const ConstTable*> const_table_{nullptr};
  mutable std::mutex mu_;
  std::deque<Specialization> storage_;
  std::map<std::pair<std::uint32_t, int>, const Specialization*> slow_;
  std::vector<std::unique_ptr<ConstTable>> const_tables_;
  std::shared_ptr<const LoadedKernel> last_;
  RecompileLog recompiles_;
};

/// Traces a kernel: runs `body` (which creates the parameters and calls the user's lambda)
/// with a fresh builder installed as this thread's trace, then runs the IR pipeline.
/// Dumps "ir" (and "ir-after-<pass>") when enabled, once the passes are done, named by the
/// dump tag of the resulting IR's structural hash (by the traced IR's when a pass throws).
/// Opens the NVTX range "cutlet trace <name>" around the trace.
ir::Function trace_kernel(const std::string& name, const std::function<void()>& body, double* trace_ms = nullptr,
                          double* passes_ms = nullptr, const TraceOptions& trace_options = {});

/// The trace options for `opts` (line info and bounds checks also from CUTLET_LINEINFO and
/// CUTLET_BOUNDS_CHECK), with `wide_indices` for launches with buffers of 2^31 elements or more,
/// for a kernel compiled for `target` (sm_90a lets tile dots use wgmma).
TraceOptions trace_options_for(const KernelOptions& opts, bool wide_indices, const Target& target);

/// How a compile_cached request was answered.
struct CompileInfo {
  CompileSource source = CompileSource::Compiled;
  double ms = 0;  ///< the compile, or the lookup that answered it
};

/// Compiles `fn`, or finds it compiled: in this process's memory (keyed by the IR's
/// structural hash, its name, the target and the options), else in the persistent disk cache
/// (disk_cache(), keyed by DiskCacheKey), which a compile then fills. While stages of the
/// compiler are being dumped for this kernel (CUTLET_DUMP llvm, llvm-opt, ptx, sass or
/// resources, and CUTLET_DUMP_FILTER) the disk cache is written but not read, so that the
/// dumps appear. Hits, misses and compiles are reported at CUTLET_LOG=info (log.h).
std::shared_ptr<const CompiledKernel> compile_cached(const ir::Function& fn, const CompileOptions& options,
                                                     CompileInfo* info = nullptr);

/// The compile options for `opts` on `device` (its architecture unless opts.target is set).
CompileOptions compile_options_for(const KernelOptions& opts, const Device& device);
/// The compile options for `opts` without a device (opts.target or the default target).
CompileOptions compile_options_for(const KernelOptions& opts);

/// Compiles and loads `fn` on `device` (or finds it loaded already in the device's current
/// context: after a Device::reset it is loaded again).
/// `trace_ms` and `passes_ms` are recorded in a newly made LoadedKernel.
std::shared_ptr<const LoadedKernel> load_cached(const ir::Function& fn, const KernelOptions& opts, const Device& device,
                                                double trace_ms = 0, double passes_ms = 0);

/// A kernel name from a definition site: "<file stem>_L<line>" with non-identifier
/// characters replaced.
std::string default_kernel_name(const std::source_location& where);

/// A new id for a kernel's argument signature (dense per call site family).
std::uint32_t next_signature_id(std::atomic<std::uint32_t>& counter);

}  // namespace detail
}  // namespace cutlet
