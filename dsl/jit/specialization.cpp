// The process-wide compile and load caches behind Kernel::launch.
#include "cutlet/jit/specialization.h"

#include <chrono>
#include <cstdio>
#include <cstring>
#include <string_view>

#include "cutlet/dump.h"
#include "cutlet/ir/builder.h"
#include "cutlet/backend/host_kernel.h"
#include "cutlet/ir/hash.h"
#include "cutlet/ir/pipeline.h"
#include "cutlet/ir/printer.h"
#include "cutlet/ir/structural_hash.h"
#include "cutlet/jit/disk_cache.h"
#include "host_load.h"
#include "cutlet/language/trace.h"
#include "cutlet/log.h"
#include "cutlet/runtime/environment.h"
#include "cutlet/scoped_range.h"

namespace cutlet {
namespace detail {
namespace {

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

struct Stats {
  std::atomic<std::uint64_t> traces{0}, compiles{0}, ir_hits{0}, loads{0};
  std::atomic<std::uint64_t> disk_hits{0}, disk_misses{0}, disk_writes{0}, disk_corrupt{0};
  std::atomic<std::uint64_t> disk_bytes_read{0}, disk_bytes_written{0};
  std::atomic<std::uint64_t> time_saved_us{0};
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

/// The in-memory compile key: the IR's structural hash, its name, and every compile option.
using CompileKey = std::tuple<std::uint64_t, std::string, std::vector<std::pair<std::string, std::string>>>;
OnceMap<CompileKey, CompiledKernel>& compiled_map() {
  static auto* m = new OnceMap<CompileKey, CompiledKernel>();  // outlives static destructors
  return *m;
}
/// Loaded code: the compile key, the device and its context generation (Device::reset).
using LoadKey = std::tuple<CompileKey, int, std::uint64_t>;
OnceMap<LoadKey, LoadedKernel>& loaded_map() {
  static auto* m = new OnceMap<LoadKey, LoadedKernel>();
  return *m;
}

CompileKey compile_key(const ir::Function& fn, const CompileOptions& o) {
  // With line information the binary records source lines: they are part of the key then.
  return {ir::structural_hash(fn, o.line_info), fn.name(), compile_option_fields(o)};
}

/// True while a compiler stage of `kernel` is dumped: those dumps need a real compile.
bool compiler_stage_dumped(const std::string& kernel) {
  for (const char* stage : {"llvm", "llvm-opt", "ptx", "sass", "resources"})
    if (dump_enabled(stage, kernel)) return true;
  return false;
}

/// True while an IR stage of `kernel` ("ir", "ir-after-<pass>") is dumped.
bool ir_stage_dumped(const std::string& kernel) {
  if (dump_enabled("ir", kernel)) return true;
  for (const ir::Pass& p : ir::default_pipeline())
    if (dump_enabled("ir-after-" + std::string(p.name), kernel)) return true;
  return false;
}

/// "kernel 'saxpy' (sm_90)": a kernel and its target, for log lines.
std::string kernel_text(const std::string& name, const CompileOptions& options) {
  return "kernel '" + name + "' (" + options.target.arch() + ")";
}

std::string ms_text(double ms) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f ms", ms);
  return buf;
}

/// Counts a disk cache fill that found its entry: a hit.
void count_disk_hit(const DiskFill& fill) {
  auto& st = stats();
  st.disk_hits.fetch_add(1, std::memory_order_relaxed);
  st.disk_bytes_read.fetch_add(fill.lookup.bytes, std::memory_order_relaxed);
  st.time_saved_us.fetch_add(static_cast<std::uint64_t>(fill.lookup.compile_ms * 1000), std::memory_order_relaxed);
}

/// Counts a disk cache fill that compiled: the miss, the compile and what it stored.
void count_disk_compile(const DiskFill& fill) {
  auto& st = stats();
  if (fill.first != DiskLookupStatus::Disabled) st.disk_misses.fetch_add(1, std::memory_order_relaxed);
  st.compiles.fetch_add(1, std::memory_order_relaxed);
  if (fill.bytes_written) {
    st.disk_writes.fetch_add(1, std::memory_order_relaxed);
    st.disk_bytes_written.fetch_add(fill.bytes_written, std::memory_order_relaxed);
  }
}

/// Counts and reports a corrupt entry the fill found (none: nothing).
void note_corrupt_entry(const DiskFill& fill, const DiskCache& cache, const DiskCacheKey& key, const ir::Function& fn,
                        const CompileOptions& options) {
  if (fill.first != DiskLookupStatus::Corrupt) return;
  stats().disk_corrupt.fetch_add(1, std::memory_order_relaxed);
  log_message(LogLevel::Warn, kernel_text(fn.name(), options) + ": its disk cache entry " + cache.kernels_dir().string() +
                                  "/" + key.file_stem() + ".entry was " +
                                  (fill.lookup.problem.empty() ? std::string("unusable") : fill.lookup.problem) +
                                  (fill.compiled ? "; compiled again, and the entry rewritten"
                                                 : "; another process has rewritten it since"));
}

/// Compiles `fn` through the persistent cache: loaded when there, otherwise compiled once
/// across the processes missing it at once (DiskCache::load_or_compile) and stored. While a
/// compiler stage is dumped, the cache is not read (the dump needs a compile), only written.
std::shared_ptr<const CompiledKernel> compile_through_disk(const ir::Function& fn, std::uint64_t ir_hash,
                                                           const CompileOptions& options, CompileInfo& info) {
  auto& st = stats();
  const auto cache = disk_cache();
  const auto t0 = Clock::now();
  ScopedRange range{"compile", fn.name(), options.target.arch()};
  if (cache->enabled() && !compiler_stage_dumped(fn.name())) {
    const DiskCacheKey key = DiskCacheKey::make(ir_hash, fn.name(), options);
    DiskFill fill = cache->load_or_compile(key, [&] { return compile(fn, options); });
    note_corrupt_entry(fill, *cache, key, fn, options);
    if (!fill.compiled) {
      count_disk_hit(fill);
      info.source = CompileSource::Disk;
    } else {
      count_disk_compile(fill);
      info.source = CompileSource::Compiled;
    }
    info.ms = ms_since(t0);
    if (log_enabled(LogLevel::Info)) {
      if (!fill.compiled)
        log_message(LogLevel::Info, kernel_text(fn.name(), options) + ": disk cache hit, read in " + ms_text(info.ms) +
                                        " (its compile took " + ms_text(fill.lookup.compile_ms) + ")" +
                                        (fill.waited ? " after waiting for another process compiling it" : ""));
      else
        log_message(LogLevel::Info, kernel_text(fn.name(), options) + ": disk cache " +
                                        (fill.first == DiskLookupStatus::Disabled ? "unusable" : "miss") +
                                        "; compiled in " + ms_text(fill.compile_ms) +
                                        (fill.bytes_written ? ", stored " + std::to_string(fill.bytes_written) + " bytes"
                                                            : std::string(", not stored")));
    }
    return fill.kernel;
  }
  auto compiled = std::make_shared<const CompiledKernel>(compile(fn, options));
  const double compile_ms = ms_since(t0);
  st.compiles.fetch_add(1, std::memory_order_relaxed);
  std::uint64_t stored = 0;
  if (cache->enabled()) {
    if ((stored = cache->store(DiskCacheKey::make(ir_hash, fn.name(), options), *compiled, compile_ms))) {
      st.disk_writes.fetch_add(1, std::memory_order_relaxed);
      st.disk_bytes_written.fetch_add(stored, std::memory_order_relaxed);
    }
  }
  info.source = CompileSource::Compiled;
  info.ms = ms_since(t0);
  if (log_enabled(LogLevel::Info)) {
    std::string why = " (disk cache off)";
    if (cache->enabled())
      why = " (disk cache not read while a compiler stage is dumped" +
            (stored ? "; stored " + std::to_string(stored) + " bytes)" : std::string(")"));
    log_message(LogLevel::Info, kernel_text(fn.name(), options) + ": compiled in " + ms_text(compile_ms) + why);
  }
  return compiled;
}

/// Kernel `fn` for the CPU device: its host code read from the disk cache, else compiled (and
/// stored there). Host code depends on the host as well as on the IR and options: the key's
/// extra input is the hash of HostKernel::host_identity().
std::shared_ptr<LoadedKernel> load_on_cpu_through_disk(const ir::Function& fn, std::uint64_t ir_hash,
                                                       const CompileOptions& options) {
  auto& st = stats();
  const auto cache = disk_cache();
  const auto t0 = Clock::now();
  if (!cache->enabled() || compiler_stage_dumped(fn.name())) {
    st.compiles.fetch_add(1, std::memory_order_relaxed);
    return loaded_on_cpu(HostKernel::compile(fn, options), ms_since(t0), CompileSource::Compiled);
  }
  static const std::uint64_t host = [] {
    Hasher h;
    h.add(HostKernel::host_identity());
    return h.value();
  }();
  const DiskCacheKey key = DiskCacheKey::make(ir_hash, fn.name(), options, {host});
  std::optional<HostKernel> fresh;
  DiskFill fill = cache->load_or_compile(key, [&] {
    fresh.emplace(HostKernel::compile(fn, options));
    CompiledKernel k;
    k.name = fn.name();
    const std::string image = fresh->image();
    k.cubin.assign(image.begin(), image.end());  // the binary of the host target: its image
    return k;
  });
  note_corrupt_entry(fill, *cache, key, fn, options);
  if (!fill.compiled) {
    try {
      HostKernel loaded = HostKernel::load(std::string_view(fill.kernel->cubin.data(), fill.kernel->cubin.size()));
      count_disk_hit(fill);
      if (log_enabled(LogLevel::Info))
        log_message(LogLevel::Info, kernel_text(fn.name(), options) + ": disk cache hit, loaded in " + ms_text(ms_since(t0)) +
                                        " (its compile took " + ms_text(fill.lookup.compile_ms) + ")");
      return loaded_on_cpu(std::move(loaded), ms_since(t0), CompileSource::Disk);
    } catch (const CompileError& e) {
      log_message(LogLevel::Warn, kernel_text(fn.name(), options) + ": its disk cache entry " +
                                      cache->kernels_dir().string() + "/" + key.file_stem() +
                                      ".entry holds host code this process cannot load (" + e.what() + "); compiled again");
      fresh.emplace(HostKernel::compile(fn, options));
      st.compiles.fetch_add(1, std::memory_order_relaxed);
    }
  } else {
    count_disk_compile(fill);
  }
  if (log_enabled(LogLevel::Info))
    log_message(LogLevel::Info, kernel_text(fn.name(), options) + ": compiled for the CPU in " + ms_text(ms_since(t0)) +
                                    (fill.bytes_written ? ", stored " + std::to_string(fill.bytes_written) + " bytes"
                                                        : std::string(", not stored")));
  return loaded_on_cpu(std::move(*fresh), ms_since(t0), CompileSource::Compiled);
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
                                                      std::uint64_t generation,
                                                      std::span<const std::uint64_t> consts,
                                                      const std::function<std::shared_ptr<const LoadedKernel>()>& make) {
  std::lock_guard lock(mu_);
  if (!consts.empty()) {
    if (auto* e = find(signature, device, generation, consts)) return *e;
  } else if (auto* e = signature < kFast ? find(signature, device, generation)
                                         : find_slow_unlocked(signature, device, generation)) {
    return *e;
  }
  auto loaded = make();
  auto& s = storage_.emplace_back();
  s.device = device;
  s.generation = generation;
  s.loaded = loaded;
  s.function = &loaded->function;
  s.needs_cooperative = !loaded->grid_sync_at.empty();
  if (loaded->compiled) s.reserved_shared_bytes = static_cast<std::size_t>(loaded->compiled->resources.dynamic_shared_bytes);
  s.signature = signature;
  last_ = loaded;
  if (!consts.empty()) {
    s.consts.assign(consts.begin(), consts.end());
    s.consts_hash = consts_hash(signature, device, consts);
    insert_const(&s);
  } else if (signature < kFast) {
    s.next = fast_[signature].load(std::memory_order_relaxed);
    fast_[signature].store(&s, std::memory_order_release);
  } else {
    slow_[{signature, device}] = &s;
  }
  return s;
}

void SpecializationCache::insert_const(const Specialization* s) {
  const ConstTable* t = const_table_.load(std::memory_order_relaxed);
  ConstTable* table = const_tables_.empty() ? nullptr : const_tables_.back().get();
  if (!t || (table->count + 1) * 2 > table->mask + 1) {
    // Grow: a table twice the size, filled with every entry, published in one store.
    const std::size_t capacity = table ? (table->mask + 1) * 2 : 16;
    auto bigger = std::make_unique<ConstTable>(capacity);
    if (table) {
      for (std::size_t i = 0; i <= table->mask; ++i)
        if (const Specialization* e = table->slots[i].load(std::memory_order_relaxed)) {
          std::size_t j = e->consts_hash & bigger->mask;
          while (bigger->slots[j].load(std::memory_order_relaxed)) j = (j + 1) & bigger->mask;
          bigger->slots[j].store(e, std::memory_order_relaxed);
          ++bigger->count;
        }
    }
    table = bigger.get();
    const_tables_.push_back(std::move(bigger));  // older tables stay alive for readers still probing them
    const_table_.store(table, std::memory_order_release);
  }
  std::size_t j = s->consts_hash & table->mask;
  while (table->slots[j].load(std::memory_order_relaxed)) j = (j + 1) & table->mask;
  table->slots[j].store(s, std::memory_order_release);
  ++table->count;
}

const Specialization* SpecializationCache::find_slow_unlocked(std::uint32_t signature, int device,
                                                              std::uint64_t generation) const {
  auto it = slow_.find({signature, device});
  return it == slow_.end() || it->second->generation != generation ? nullptr : it->second;
}

const Specialization* SpecializationCache::find_slow(std::uint32_t signature, int device,
                                                     std::uint64_t generation) const {
  std::lock_guard lock(mu_);
  return find_slow_unlocked(signature, device, generation);
}

std::shared_ptr<const LoadedKernel> SpecializationCache::last() const {
  std::lock_guard lock(mu_);
  return last_;
}

/// Whether CUTLET_CHECK=1 runs every kernel checked (KernelOptions::checked).
static bool checked_from_environment() {
  static const bool checked = env_flag("CUTLET_CHECK", false);
  return checked;
}

TraceOptions trace_options_for(const KernelOptions& opts, bool wide_indices, const Target& target) {
  static const bool bounds_env = env_flag("CUTLET_BOUNDS_CHECK", false);
  // Read before the trace starts: installing the trace (noexcept) reads it too, and a bad value
  // must throw here.
  const bool line_info_env = line_info_from_environment();
  // A checked kernel reports the lines of its accesses: each op carries its own line.
  const bool lines = opts.line_info || line_info_env || opts.checked || checked_from_environment();
  return TraceOptions{lines, opts.bounds_check || bounds_env, wide_indices,
                      opts.tile_warps, opts.tile_stages, !target.host && target.sm == 90 && target.arch_specific,
                      target.host};
}

ir::Function trace_kernel(const std::string& name, const std::function<void()>& body, double* trace_ms,
                          double* passes_ms, const TraceOptions& trace_options) {
  if (current_trace())
    throw TraceError("cutlet: kernel '" + name +
                     "' was launched or compiled while another kernel was being traced; a kernel cannot launch "
                     "kernels. Call plain C++ functions over cutlet values instead: they are inlined.");
  auto t0 = Clock::now();
  ir::Function fn(name);
  fn.set_tile_warps(trace_options.tile_warps);
  fn.set_tile_stages(trace_options.tile_stages);
  fn.set_tile_wgmma(trace_options.tile_wgmma && trace_options.tile_warps > 0);
  fn.set_host_target(trace_options.host_target);
  {
    ScopedRange range{"trace", name};
    ir::Builder b(fn);
    TraceState state;
    state.builder = &b;
    state.line_info = trace_options.line_info;
    state.bounds_check = trace_options.bounds_check;
    state.wide_indices = trace_options.wide_indices;
    TraceInstall install(&state);
    body();
  }
  stats().traces.fetch_add(1, std::memory_order_relaxed);
  const double traced_ms = ms_since(t0);
  if (trace_ms) *trace_ms = traced_ms;
  // The IR stages are dumped once the passes are done, named by the hash of the IR they
  // produce, which the compiler's dumps of this specialization carry too; when a pass throws,
  // they are dumped named by the traced IR's hash.
  const bool dumping = ir_stage_dumped(name);
  std::vector<std::pair<std::string, std::string>> ir_dumps;  // (stage, text)
  if (dumping && dump_enabled("ir", name)) ir_dumps.emplace_back("ir", ir::print(fn, true));
  const std::uint64_t traced_hash = dumping ? ir::structural_hash(fn, trace_options.line_info) : 0;
  auto write_ir_dumps = [&](std::uint64_t hash) {
    const std::string tag = dump_tag(hash);
    for (const auto& [stage, text] : ir_dumps) dump(stage, name, tag, text);
  };
  t0 = Clock::now();
  ir::PipelineOptions po;
  if (dumping)
    po.after_pass = [&](std::string_view pass, const ir::Function& f) {
      std::string stage = "ir-after-" + std::string(pass);
      if (dump_enabled(stage, name)) ir_dumps.emplace_back(std::move(stage), ir::print(f, true));
    };
  try {
    fn = ir::run_pipeline(std::move(fn), po);
  } catch (...) {
    write_ir_dumps(traced_hash);
    throw;
  }
  const double pipeline_ms = ms_since(t0);
  if (passes_ms) *passes_ms = pipeline_ms;
  if (dumping) write_ir_dumps(ir::structural_hash(fn, trace_options.line_info));
  if (log_enabled(LogLevel::Debug))
    log_message(LogLevel::Debug, "kernel '" + name + "': traced in " + ms_text(traced_ms) + ", IR passes " +
                                     ms_text(pipeline_ms));
  return fn;
}

CompileOptions compile_options_for(const KernelOptions& opts) {
  CompileOptions o;
  o.target = opts.target.value_or(Target::default_target());
  o.opt_level = opts.opt_level;
  o.fma_contraction = opts.fma_contraction;
  o.flush_denormals = opts.flush_denormals;
  o.approx_math = opts.approx_math;
  o.line_info = opts.line_info || line_info_from_environment();
  o.max_block_threads = opts.max_block_threads;
  o.min_blocks_per_sm = opts.min_blocks_per_sm;
  o.checked = opts.checked || checked_from_environment();
  return o;
}

CompileOptions compile_options_for(const KernelOptions& opts, const Device& device) {
  CompileOptions o = compile_options_for(opts);
  if (device.is_cpu()) {
    o.target = Target::host_cpu();  // whatever GPU the options name, the CPU device runs host code
    return o;
  }
  if (!opts.target) o.target = Target::for_device(device.compute_capability().sm());
  return o;
}

std::shared_ptr<const CompiledKernel> compile_cached(const ir::Function& fn, const CompileOptions& options,
                                                     CompileInfo* info) {
  bool hit = false;
  CompileInfo local;
  const auto t0 = Clock::now();
  const CompileKey key = compile_key(fn, options);
  auto r = compiled_map().get(
      key, [&] { return compile_through_disk(fn, std::get<0>(key), options, local); }, &hit);
  if (hit) {
    stats().ir_hits.fetch_add(1, std::memory_order_relaxed);
    local.source = CompileSource::Memory;
    local.ms = ms_since(t0);
    if (log_enabled(LogLevel::Info))
      log_message(LogLevel::Info, kernel_text(fn.name(), options) + ": memory cache hit (the same IR and options "
                                                                   "were compiled before in this process)");
  }
  if (info) *info = local;
  return r;
}

std::shared_ptr<const LoadedKernel> load_cached(const ir::Function& fn, const KernelOptions& opts, const Device& device,
                                                double trace_ms, double passes_ms) {
  CompileOptions options = compile_options_for(opts, device);
  const CompileKey key = compile_key(fn, options);
  return loaded_map().get(LoadKey{key, device.ordinal(), device.generation()}, [&] {
    if (device.is_cpu()) {
      ScopedRange range{"host-compile", fn.name(), "the CPU device"};
      auto lk = load_on_cpu_through_disk(fn, std::get<0>(key), options);
      lk->trace_ms = trace_ms;
      lk->passes_ms = passes_ms;
      if (const ir::Instruction* sync = ir::find_instruction(fn, ir::Opcode::GridSync))
        lk->grid_sync_at = sync->loc.known() ? std::string(sync->loc.file) + ":" + std::to_string(sync->loc.line)
                                             : std::string("an unknown line");
      stats().loads.fetch_add(1, std::memory_order_relaxed);
      return std::shared_ptr<const LoadedKernel>(std::move(lk));
    }
    CompileInfo info;
    auto compiled = compile_cached(fn, options, &info);
    auto t0 = Clock::now();
    ScopedRange range{"module-load", fn.name(), "device " + std::to_string(device.ordinal())};
    Module module = Module::load(device, compiled->cubin);
    Function function = module.function(compiled->name);
    auto lk = std::make_shared<LoadedKernel>(LoadedKernel{compiled, std::move(module), function});
    lk->load_ms = ms_since(t0);
    if (log_enabled(LogLevel::Debug))
      log_message(LogLevel::Debug, kernel_text(fn.name(), options) + ": loaded on device " +
                                       std::to_string(device.ordinal()) + " in " + ms_text(lk->load_ms));
    lk->trace_ms = trace_ms;
    lk->passes_ms = passes_ms;
    lk->source = info.source;
    lk->compile_ms = info.ms;
    if (const ir::Instruction* sync = ir::find_instruction(fn, ir::Opcode::GridSync))
      lk->grid_sync_at = sync->loc.known() ? std::string(sync->loc.file) + ":" + std::to_string(sync->loc.line)
                                           : std::string("an unknown line");
    stats().loads.fetch_add(1, std::memory_order_relaxed);
    return std::shared_ptr<const LoadedKernel>(std::move(lk));
  });
}

std::string_view source_note(CompileSource source) {
  switch (source) {
    case CompileSource::Memory: return "code reused from this process's memory";
    case CompileSource::Disk: return "code read from the disk cache";
    case CompileSource::Compiled: break;
  }
  return "";
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
  CacheStats c;
  c.traces = s.traces.load();
  c.compiles = s.compiles.load();
  c.ir_hits = s.ir_hits.load();
  c.loads = s.loads.load();
  c.disk_hits = s.disk_hits.load();
  c.disk_misses = s.disk_misses.load();
  c.disk_writes = s.disk_writes.load();
  c.disk_corrupt = s.disk_corrupt.load();
  c.disk_bytes_read = s.disk_bytes_read.load();
  c.disk_bytes_written = s.disk_bytes_written.load();
  c.time_saved_ms = static_cast<double>(s.time_saved_us.load()) / 1000.0;
  return c;
}

}  // namespace cutlet
