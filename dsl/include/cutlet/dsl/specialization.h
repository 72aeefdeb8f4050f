// Compiled specializations of a kernel: the per-kernel lookup used on every launch, and the
// process-wide trace -> compile -> load path behind it.
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <source_location>
#include <string>

#include "cutlet/backend/compiler.h"
#include "cutlet/ir/function.h"
#include "cutlet/runtime/device.h"
#include "cutlet/runtime/module.h"

namespace cutlet {

/// Per-kernel options; all of them are part of the specialization key.
struct KernelOptions {
  /// The kernel's entry-point name (letters, digits, '_'); by default made from the file
  /// and line where the kernel is defined, e.g. "saxpy_cpp_L12".
  std::string name;
  /// Compile for this target instead of the launching device's architecture.
  std::optional<Target> target;
  /// LLVM optimization level (0-3).
  int opt_level = 3;
  /// Fuse a*b+c into fma (on by default, as with nvcc).
  bool fma_contraction = true;
};

/// Compile statistics of this process, for every kernel.
struct CacheStats {
  std::uint64_t traces = 0;        ///< specializations traced
  std::uint64_t compiles = 0;      ///< traced IR compiled (LLVM + nvJitLink)
  std::uint64_t ir_hits = 0;       ///< traced IR found already compiled (another Kernel object)
  std::uint64_t loads = 0;         ///< modules loaded onto a device
};
/// A snapshot of the process-wide compile statistics.
CacheStats cache_stats();

namespace detail {

/// A compiled kernel loaded on one device. Immutable once published.
struct LoadedKernel {
  std::shared_ptr<const CompiledKernel> compiled;
  Module module;
  Function function;
  double trace_ms = 0;   ///< tracing the lambda
  double passes_ms = 0;  ///< the IR pass pipeline
  double load_ms = 0;    ///< cuModuleLoadData
};

/// One specialization as seen by a launch: immutable once published.
struct Specialization {
  int device = -1;
  std::shared_ptr<const LoadedKernel> loaded;
  const Function* function = nullptr;
  const Specialization* next = nullptr;
};

/// The specializations of one Kernel object, keyed by (signature id, device). Lookups are
/// lock-free for the first few signatures; inserts take a lock.
class SpecializationCache {
 public:
  SpecializationCache() = default;
  SpecializationCache(const SpecializationCache&) = delete;
  SpecializationCache& operator=(const SpecializationCache&) = delete;

  const Specialization* find(std::uint32_t signature, int device) const noexcept {
    if (signature < kFast) {
      for (auto* e = fast_[signature].load(std::memory_order_acquire); e; e = e->next)
        if (e->device == device) return e;
      return nullptr;
    }
    return find_slow(signature, device);
  }

  /// Returns the specialization for (signature, device), calling `make` to build it if
  /// absent. Concurrent callers for one key build it once.
  const Specialization& get_or_make(std::uint32_t signature, int device,
                                    const std::function<std::shared_ptr<const LoadedKernel>()>& make);

  /// The most recently built specialization, if any (for inspection).
  std::shared_ptr<const LoadedKernel> last() const;

 private:
  static constexpr std::uint32_t kFast = 16;
  const Specialization* find_slow(std::uint32_t signature, int device) const;
  const Specialization* find_slow_unlocked(std::uint32_t signature, int device) const;

  std::atomic<const Specialization*> fast_[kFast] = {};
  mutable std::mutex mu_;
  std::deque<Specialization> storage_;
  std::map<std::pair<std::uint32_t, int>, const Specialization*> slow_;
  std::shared_ptr<const LoadedKernel> last_;
};

/// Traces a kernel: runs `body` (which creates the parameters and calls the user's lambda)
/// with a fresh builder installed as this thread's trace, then runs the IR pipeline.
/// Dumps "ir" (and "ir-after-<pass>") when enabled.
ir::Function trace_kernel(const std::string& name, const std::function<void()>& body, double* trace_ms = nullptr,
                          double* passes_ms = nullptr);

/// Compiles `fn` (or finds it compiled in this process: the key is the IR's structural hash,
/// the target and the options).
std::shared_ptr<const CompiledKernel> compile_cached(const ir::Function& fn, const CompileOptions& options);

/// The compile options for `opts` on `device` (its architecture unless opts.target is set).
CompileOptions compile_options_for(const KernelOptions& opts, const Device& device);
/// The compile options for `opts` without a device (opts.target or the default target).
CompileOptions compile_options_for(const KernelOptions& opts);

/// Compiles and loads `fn` on `device` (or finds it loaded already).
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
