// The process-wide compile and load caches behind Kernel::launch.
#include "cutlet/dsl/specialization.h"

#include <chrono>
#include <cstring>

#include "cutlet/dsl/trace.h"
#include "cutlet/dump.h"
#include "cutlet/ir/builder.h"
#include "cutlet/ir/pipeline.h"
#include "cutlet/ir/printer.h"
#include "cutlet/ir/structural_hash.h"

namespace cutlet {
namespace detail {
namespace {

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

struct Stats {
  std::atomic<std::uint64_t> traces{0}, compiles{0}, ir_hits{0}, loads{0};
};
Stats& stats() {
  static Stats s;
  return s;
}

/// A cache slot that is filled once; a failed fill leaves it empty for the next caller.
template <class T>
struct Slot {
  std::mutex mu;
  std::shared_ptr<const T> value;
};

template <class Key, class T>
class OnceMap {
 public:
  template <class Make>
  std::shared_ptr<const T> get(const Key& key, Make&& make, bool* hit = nullptr) {
    std::shared_ptr<Slot<T>> slot;
    {
      std::lock_guard lock(mu_);
      auto& s = map_[key];
      if (!s) s = std::make_shared<Slot<T>>();
      slot = s;
    }
    std::lock_guard lock(slot->mu);
    if (hit) *hit = slot->value != nullptr;
    if (!slot->value) slot->value = make();
    return slot->value;
  }

 private:
  std::mutex mu_;
  std::map<Key, std::shared_ptr<Slot<T>>> map_;
};

using CompileKey = std::tuple<std::uint64_t, std::string, int, int, bool>;
OnceMap<CompileKey, CompiledKernel>& compiled_map() {
  static auto* m = new OnceMap<CompileKey, CompiledKernel>();  // outlives static destructors
  return *m;
}
using LoadKey = std::tuple<CompileKey, int>;
OnceMap<LoadKey, LoadedKernel>& loaded_map() {
  static auto* m = new OnceMap<LoadKey, LoadedKernel>();
  return *m;
}

CompileKey compile_key(const ir::Function& fn, const CompileOptions& o) {
  return {ir::structural_hash(fn), fn.name(), o.target.sm, o.opt_level, o.fma_contraction};
}

/// Restores the previous trace even when tracing throws.
class TraceInstall {
 public:
  explicit TraceInstall(TraceState* s) : prev_(set_current_trace(s)) {}
  ~TraceInstall() { set_current_trace(prev_); }
  TraceState* previous() const { return prev_; }

 private:
  TraceState* prev_;
};

}  // namespace

const Specialization& SpecializationCache::get_or_make(std::uint32_t signature, int device,
                                                      const std::function<std::shared_ptr<const LoadedKernel>()>& make) {
  std::lock_guard lock(mu_);
  if (auto* e = signature < kFast ? find(signature, device) : find_slow_unlocked(signature, device)) return *e;
  auto loaded = make();
  auto& s = storage_.emplace_back();
  s.device = device;
  s.loaded = loaded;
  s.function = &loaded->function;
  last_ = loaded;
  if (signature < kFast) {
    s.next = fast_[signature].load(std::memory_order_relaxed);
    fast_[signature].store(&s, std::memory_order_release);
  } else {
    slow_[{signature, device}] = &s;
  }
  return s;
}

const Specialization* SpecializationCache::find_slow_unlocked(std::uint32_t signature, int device) const {
  auto it = slow_.find({signature, device});
  return it == slow_.end() ? nullptr : it->second;
}

const Specialization* SpecializationCache::find_slow(std::uint32_t signature, int device) const {
  std::lock_guard lock(mu_);
  return find_slow_unlocked(signature, device);
}

std::shared_ptr<const LoadedKernel> SpecializationCache::last() const {
  std::lock_guard lock(mu_);
  return last_;
}

ir::Function trace_kernel(const std::string& name, const std::function<void()>& body, double* trace_ms,
                          double* passes_ms) {
  if (current_trace())
    throw TraceError("cutlet: kernel '" + name +
                     "' was launched or compiled while another kernel was being traced; a kernel cannot launch "
                     "kernels. Call plain C++ functions over cutlet values instead: they are inlined.");
  auto t0 = Clock::now();
  ir::Function fn(name);
  {
    ir::Builder b(fn);
    TraceState state;
    state.builder = &b;
    TraceInstall install(&state);
    body();
  }
  stats().traces.fetch_add(1, std::memory_order_relaxed);
  if (trace_ms) *trace_ms = ms_since(t0);
  if (dump_enabled("ir")) dump("ir", name, ir::print(fn, true));
  t0 = Clock::now();
  ir::PipelineOptions po;
  po.after_pass = [&](std::string_view pass, const ir::Function& f) {
    std::string stage = "ir-after-" + std::string(pass);
    if (dump_enabled(stage)) dump(stage, name, ir::print(f, true));
  };
  fn = ir::run_pipeline(std::move(fn), po);
  if (passes_ms) *passes_ms = ms_since(t0);
  return fn;
}

CompileOptions compile_options_for(const KernelOptions& opts) {
  CompileOptions o;
  o.target = opts.target.value_or(Target::default_target());
  o.opt_level = opts.opt_level;
  o.fma_contraction = opts.fma_contraction;
  return o;
}

CompileOptions compile_options_for(const KernelOptions& opts, const Device& device) {
  CompileOptions o = compile_options_for(opts);
  if (!opts.target) o.target = Target{device.compute_capability().sm()};
  return o;
}

std::shared_ptr<const CompiledKernel> compile_cached(const ir::Function& fn, const CompileOptions& options) {
  bool hit = false;
  auto r = compiled_map().get(
      compile_key(fn, options),
      [&] {
        stats().compiles.fetch_add(1, std::memory_order_relaxed);
        return std::make_shared<const CompiledKernel>(compile(fn, options));
      },
      &hit);
  if (hit) stats().ir_hits.fetch_add(1, std::memory_order_relaxed);
  return r;
}

std::shared_ptr<const LoadedKernel> load_cached(const ir::Function& fn, const KernelOptions& opts, const Device& device,
                                                double trace_ms, double passes_ms) {
  CompileOptions options = compile_options_for(opts, device);
  return loaded_map().get(LoadKey{compile_key(fn, options), device.ordinal()}, [&] {
    auto compiled = compile_cached(fn, options);
    auto t0 = Clock::now();
    Module module = Module::load(device, compiled->cubin);
    Function function = module.function(compiled->name);
    auto lk = std::make_shared<LoadedKernel>(LoadedKernel{compiled, std::move(module), function});
    lk->load_ms = ms_since(t0);
    lk->trace_ms = trace_ms;
    lk->passes_ms = passes_ms;
    stats().loads.fetch_add(1, std::memory_order_relaxed);
    return std::shared_ptr<const LoadedKernel>(std::move(lk));
  });
}

std::string default_kernel_name(const std::source_location& where) {
  const char* file = where.file_name();
  const char* base = std::strrchr(file, '/');
  std::string stem = base ? base + 1 : file;
  std::string name;
  for (char c : stem) name += (std::isalnum(static_cast<unsigned char>(c)) ? c : '_');
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) name = "k_" + name;
  return name + "_L" + std::to_string(where.line());
}

std::uint32_t next_signature_id(std::atomic<std::uint32_t>& counter) { return counter.fetch_add(1); }

}  // namespace detail

CacheStats cache_stats() {
  auto& s = detail::stats();
  return CacheStats{s.traces.load(), s.compiles.load(), s.ir_hits.load(), s.loads.load()};
}

}  // namespace cutlet
