// Kernel: a traced lambda with its specializations, launched on a stream.
#pragma once

#include <array>
#include <concepts>
#include <memory>
#include <source_location>
#include <span>
#include <string>
#include <tuple>
#include <utility>

#include "cutlet/jit/disk_cache_key.h"
#include "cutlet/jit/signature.h"
#include "cutlet/jit/specialization.h"
#include "cutlet/runtime/launch.h"
#include "cutlet/runtime/stream.h"

namespace cutlet {

namespace aot {
class Exporter;
}

namespace detail {
[[noreturn]] void throw_argument_error(const std::string& kernel, const std::source_location& defined,
                                       const std::source_location& launched, const std::string& what);
[[noreturn]] void throw_null_buffer(const std::string& kernel, const std::source_location& launched, std::size_t index);
/// Throws unless argument `index`, a buffer of `buffer_device` from `resource` (null when
/// wrapped), can be read by kernels on `device` (one of them the CPU device): the CPU device
/// reads host-accessible memory (pinned, managed) of a GPU, a GPU nothing of the CPU device.
void check_buffer_reachable(const std::string& kernel, const std::source_location& launched, std::size_t index,
                            const Device& buffer_device, const MemoryResource* resource, const Device& device);
[[noreturn]] void throw_tile_block(const std::string& kernel, const std::source_location& launched, int warps,
                                   long long threads);
/// Throws for a launch of `threads` threads per block, more than the kernel's max_block_threads.
[[noreturn]] void throw_launch_bounds(const std::string& kernel, const std::source_location& launched,
                                      int max_block_threads, long long threads);
[[noreturn]] void throw_needs_cooperative(const std::string& kernel, const std::source_location& launched,
                                          const std::string& grid_sync_at);
/// Throws when a tile kernel's shared memory (its pipelines' stages, static, and the launch's
/// dynamic bytes) exceeds what a block of `device` may have, naming tile_stages.
void check_tile_shared(const std::string& kernel, const std::source_location& launched, const Device& device,
                       const LoadedKernel& loaded, std::size_t dynamic_bytes, int stages);
/// Throws cutlet::Error when `options` cannot make kernel `options.name` (defined at `defined`):
/// a name that is no PTX name (symbol_name.h), tile_warps neither 0 nor a power of two up to
/// kMaxTileWarps, tile_stages neither 0 nor kMinTileStages to kMaxTileStages, tile_stages for
/// a per-thread kernel, launch bounds out of range, min_blocks_per_sm without
/// max_block_threads, or launch bounds for a tile kernel.
void check_kernel_options(const KernelOptions& options, const std::source_location& defined);
/// Throws cutlet::Error when tile_kernel's `warps` is no power of two up to kMaxTileWarps, or
/// `options` already sets other tile_warps.
void check_tile_kernel_warps(int warps, const KernelOptions& options, const std::source_location& defined);
}  // namespace detail

/// A GPU kernel written as a C++ lambda, traced at its first launch for each set of
/// argument types (and each device), compiled by LLVM NVPTX and nvJitLink, and cached.
///
/// The lambda's parameters are kernel parameters: Value<T> (i32, f32, ...) for numbers
/// passed by value, Ptr<T> for Buffer<T> arguments. A generic lambda (`auto` parameters)
/// gets its parameter types from the launch arguments, so launching it with Buffer<double>
/// compiles a second specialization next to the Buffer<float> one.
///
/// The lambda runs once per specialization, on the host, to trace the kernel. Host values
/// it reads then (captures, globals) are frozen into that specialization. Const<T>
/// parameters are compile-time constants: their values are part of the specialization key
/// (see Const).
///
/// Compiled code is shared between Kernel objects and between processes: by the structural
/// hash of the traced IR in memory, and through the persistent disk cache (disk_cache.h).
template <class F>
class Kernel {
 public:
  explicit Kernel(F fn, KernelOptions options = {}, std::source_location defined = std::source_location::current())
      : fn_(std::move(fn)), options_(std::move(options)), defined_(defined),
        cache_(std::make_unique<detail::SpecializationCache>()) {
    if (options_.name.empty()) options_.name = detail::default_kernel_name(defined_);
    detail::check_kernel_options(options_, defined_);
  }

  /// Launches the kernel on `stream` with `config` (grid, block, dynamic shared memory).
  /// Arguments: numbers for Value<T> parameters (converting without narrowing: pass 2.0f,
  /// not 2.0, for an f32), Buffer<T> for Ptr<T> parameters. Throws cutlet::Error when the
  /// arguments do not match the parameters, a buffer is empty, the launch shape breaks a
  /// device limit, or tracing/compiling fails; the message names the launch's line.
  /// Const<T> parameters take host numbers (or Const<U>, or a ConstValue that must fit T).
  /// After the first launch with these argument types (and Const values) on this device, a
  /// launch costs a lookup and a cuLaunchKernel. Thread-safe.
  template <class... Args>
  void launch(const Stream& stream, const LaunchConfig& config, const Args&... args) {
    using Params = typename detail::launch_signature<F, Args...>::params;
    check_arguments<Params, Args...>(config.where);
    if constexpr (valid_arguments<Params, Args...>()) {
      const int device = stream.device().ordinal();
      // Code loaded before a Device::reset is gone with its context: reloaded when stale.
      const std::uint64_t generation = stream.device().generation();
      // Buffers of 2^31 elements or more get a specialization with 64-bit index arithmetic.
      const bool wide = (detail::is_wide_buffer(args) || ...);
      const std::uint32_t id = wide ? signature_id<detail::WideIndices<Params>>() : signature_id<Params>();
      const detail::Specialization* spec;
      if constexpr (detail::key_count_v<Params> == 0) {
        spec = cache_->find(id, device, generation);
        if (!spec) [[unlikely]]
          spec = &specialize<Params>(stream.device(), generation, {}, wide);
      } else {
        const auto consts = gather_consts<Params>(args...);
        spec = cache_->find(id, device, generation, consts);
        if (!spec) [[unlikely]]
          spec = &specialize<Params>(stream.device(), generation, consts, wide);
      }
      check_buffers(stream.device(), config.where, std::index_sequence_for<Args...>{}, args...);
      if (spec->needs_cooperative && !config.cooperative) [[unlikely]]
        detail::throw_needs_cooperative(options_.name, config.where, spec->loaded->grid_sync_at);
      if (options_.tile_warps > 0) [[unlikely]] {
        // A tile kernel's block is its warps; the config gives the grid (and the rest).
        if (config.block != Dim3{} && config.block != Dim3{32LL * options_.tile_warps})
          detail::throw_tile_block(options_.name, config.where, options_.tile_warps, config.block.count());
        LaunchConfig tile_config = config;
        tile_config.block = Dim3{32LL * options_.tile_warps};
        if (spec->reserved_shared_bytes != 0) [[unlikely]] {
          tile_config.shared_bytes += spec->reserved_shared_bytes;
          detail::check_tile_shared(options_.name, config.where, stream.device(), *spec->loaded, tile_config.shared_bytes,
                                    options_.tile_stages);
        }
        pack_and_launch<Params>(stream, *spec->function, tile_config, std::index_sequence_for<Args...>{}, args...);
        return;
      }
      if (options_.max_block_threads > 0 && config.block.count() > options_.max_block_threads) [[unlikely]]
        detail::throw_launch_bounds(options_.name, config.where, options_.max_block_threads, config.block.count());
      if (spec->reserved_shared_bytes != 0) [[unlikely]] {
        // The kernel's shared_arrays live in its arena, ahead of the caller's dynamic bytes.
        LaunchConfig with_arrays = config;
        with_arrays.shared_bytes += spec->reserved_shared_bytes;
        pack_and_launch<Params>(stream, *spec->function, with_arrays, std::index_sequence_for<Args...>{}, args...);
        return;
      }
      pack_and_launch<Params>(stream, *spec->function, config, std::index_sequence_for<Args...>{}, args...);
    }
  }

  /// Traces and compiles the kernel for parameter types Ps (kernel parameter types such as
  /// f32, Ptr<float> and Const<int>, or launch argument types such as float and
  /// Buffer<float>); with no Ps, the lambda's own parameter types. `consts` are the values
  /// of the Const parameters, in order: `k.compile(4)` for a lambda whose one Const parameter
  /// should be 4. Compiles for KernelOptions::target (default: Target::default_target()).
  /// Needs no GPU. The result holds the PTX, the cubin, the register/shared memory use and
  /// the stage timings of the compile that made it (also when it came from a cache; a
  /// LoadedKernel's `source` says whether this process compiled it).
  template <class... Ps, class... Cs>
  std::shared_ptr<const CompiledKernel> compile(const Cs&... consts) const {
    using Params = compile_params<Ps...>;
    const auto bits = encode_consts<Params>(consts...);
    const CompileOptions options = detail::compile_options_for(options_);
    auto fn = trace<Params>(bits, nullptr, nullptr, false, options.target);
    detail::CompileInfo info;
    auto compiled = detail::compile_cached(fn, options, &info);
    record<Params>(bits, -1, options, false, info.source);
    return compiled;
  }

  /// Traces and compiles (without loading) the specialization that launching with `args`
  /// on `device` would use: the argument types and Const values select it, and the device
  /// its architecture (unless KernelOptions::target is set; on the CPU device, the host CPU,
  /// whose code is loaded as it is compiled). Thread-safe; used to compile
  /// ahead, e.g. on other threads while the GPU is busy.
  template <class... Args>
  std::shared_ptr<const CompiledKernel> compile_for(const Device& device, const Args&... args) const {
    using Params = typename detail::launch_signature<F, Args...>::params;
    static_assert(valid_arguments<Params, Args...>(),
                  "cutlet: Kernel::compile_for: these arguments do not match the kernel's parameters (launch() "
                  "with them reports which one)");
    const auto bits = gather_consts<Params>(args...);
    const bool wide = (detail::is_wide_buffer(args) || ...);
    const CompileOptions options = detail::compile_options_for(options_, device);
    auto fn = trace<Params>(bits, nullptr, nullptr, wide, options.target);
    if (device.is_cpu()) {
      // Host code is compiled and loaded in one step (and cached as loaded code).
      auto loaded = detail::load_cached(fn, options_, device, 0, 0);
      record<Params>(bits, device.ordinal(), options, wide, loaded->source);
      return loaded->compiled;
    }
    detail::CompileInfo info;
    auto compiled = detail::compile_cached(fn, options, &info);
    record<Params>(bits, device.ordinal(), options, wide, info.source);
    return compiled;
  }

  /// Traces the kernel for parameter types Ps and Const values `consts` (as in compile())
  /// and returns its IR after the IR passes.
  template <class... Ps, class... Cs>
  ir::Function trace_ir(const Cs&... consts) const {
    using Params = compile_params<Ps...>;
    return trace<Params>(encode_consts<Params>(consts...), nullptr, nullptr, false, detail::compile_options_for(options_).target);
  }

  /// The IR after the IR passes of the specialization that launching with `args` would use.
  template <class... Args>
  ir::Function trace_ir_for(const Args&... args) const {
    using Params = typename detail::launch_signature<F, Args...>::params;
    return trace<Params>(gather_consts<Params>(args...), nullptr, nullptr, (detail::is_wide_buffer(args) || ...),
                         detail::compile_options_for(options_).target);
  }

  /// A Kernel running the same lambda with other options: its own specializations, the same
  /// definition site. An empty options.name keeps this kernel's name, and tile_warps and
  /// tile_stages left at 0 keep this kernel's (a tile kernel stays one). Throws cutlet::Error
  /// for options no kernel may have, as the constructor does.
  Kernel with_options(KernelOptions options) const
    requires std::copy_constructible<F>
  {
    if (options.name.empty()) options.name = options_.name;
    if (options.tile_warps == 0) options.tile_warps = options_.tile_warps;
    if (options.tile_stages == 0) options.tile_stages = options_.tile_stages;
    return Kernel(fn_, std::move(options), defined_);
  }

  /// Why this Kernel object compiled each specialization after its first, oldest first:
  /// e.g. "cutlet: kernel 'saxpy' recompiled (specialization 2 of this Kernel object):
  /// argument 2 changed from f32 to f64 (compared with specialization 1)". Set
  /// CUTLET_EXPLAIN_RECOMPILES=1 to have them printed on stderr as they happen.
  std::vector<std::string> recompile_reasons() const { return cache_->recompiles().reasons(); }

  /// The lambda.
  const F& lambda() const { return fn_; }

  /// The most recently compiled specialization launched by this object (nullptr before the
  /// first launch): its PTX, cubin, resource use and timings.
  std::shared_ptr<const detail::LoadedKernel> last_specialization() const { return cache_->last(); }

  const std::string& name() const { return options_.name; }
  const KernelOptions& options() const { return options_; }
  /// Where the kernel was defined.
  const std::source_location& defined_at() const { return defined_; }

 private:
  // The exporter traces specializations as compile() and compile_for() do (aot_export.h).
  friend class aot::Exporter;

  template <class... Ps>
  struct compile_params_impl {
    using type = std::tuple<detail::param_of_t<Ps>...>;
  };
  template <class... Ps>
    requires(sizeof...(Ps) == 0 && detail::NonGenericCallable<F>)
  struct compile_params_impl<Ps...> {
    using type = typename detail::member_params<decltype(&F::operator())>::type;
  };
  template <class... Ps>
  using compile_params = typename compile_params_impl<Ps...>::type;

  template <class Params, class... Args>
  static constexpr bool valid_arguments() {
    if constexpr (std::tuple_size_v<Params> != sizeof...(Args)) {
      return false;
    } else {
      return []<std::size_t... I>(std::index_sequence<I...>) {
        return (detail::param_traits<std::tuple_element_t<I, Params>>::template accepts<Args>() && ...);
      }(std::index_sequence_for<Args...>{});
    }
  }

  template <class Params, class... Args>
  void check_arguments(const std::source_location& where) const {
    if constexpr (!valid_arguments<Params, Args...>()) argument_error<Params, Args...>(where);
  }

  template <class Params, class... Args>
  [[noreturn]] void argument_error(const std::source_location& where) const {
    constexpr std::size_t n = std::tuple_size_v<Params>;
    std::string what;
    if constexpr (n != sizeof...(Args)) {
      what = "it takes " + std::to_string(n) + " argument" + (n == 1 ? "" : "s") + " but " +
             std::to_string(sizeof...(Args)) + " were given";
    } else {
      [&]<std::size_t... I>(std::index_sequence<I...>) {
        auto one = [&]<std::size_t K>(std::integral_constant<std::size_t, K>) {
          using P = std::tuple_element_t<K, Params>;
          using A = std::tuple_element_t<K, std::tuple<Args...>>;
          if (!what.empty()) return;
          if constexpr (!detail::param_traits<P>::valid) {
            what = "parameter " + std::to_string(K + 1) + " has type " + detail::type_name<P>() +
                   ", which is not a kernel parameter type (use a cutlet scalar such as f32 or a Ptr<T>)";
          } else if constexpr (!detail::param_traits<P>::template accepts<A>()) {
            what = "argument " + std::to_string(K + 1) + " is a " + detail::type_name<A>() + " but the parameter is " +
                   detail::type_name<P>() +
                   " (numbers must convert without narrowing, e.g. 2.0f for f32; buffers must match the element type)";
          }
        };
        (one(std::integral_constant<std::size_t, I>{}), ...);
      }(std::index_sequence_for<Args...>{});
    }
    detail::throw_argument_error(options_.name, defined_, where, what);
  }

  template <class Params>
  static std::uint32_t signature_id() {
    static const std::uint32_t id = detail::next_signature_id(signature_counter_);
    return id;
  }

  template <class Params>
  using ConstBits = std::array<std::uint64_t, detail::key_count_v<Params>>;

  /// The key bits of the Const arguments among a launch's `args`.
  template <class Params, class... Args>
  static ConstBits<Params> gather_consts(const Args&... args) {
    ConstBits<Params> out{};
    [&]<std::size_t... I>(std::index_sequence<I...>) {
      auto one = [&]<std::size_t K>(std::integral_constant<std::size_t, K>, const auto& a) {
        using P = std::tuple_element_t<K, Params>;
        if constexpr (detail::keyed_v<P>) out[detail::key_position_v<Params, K>] = detail::param_traits<P>::encode(a);
      };
      (one(std::integral_constant<std::size_t, I>{}, args), ...);
    }(std::index_sequence_for<Args...>{});
    return out;
  }

  /// The key bits of Const values given in order, one per Const parameter.
  template <class Params, class... Cs>
  static ConstBits<Params> encode_consts(const Cs&... consts) {
    constexpr auto positions = []<std::size_t... I>(std::index_sequence<I...>) {
      std::array<std::size_t, detail::const_count_v<Params>> out{};
      std::size_t k = 0;
      ((detail::param_traits<std::tuple_element_t<I, Params>>::constant ? void(out[k++] = I) : void()), ...);
      return out;
    }(std::make_index_sequence<std::tuple_size_v<Params>>{});
    static_assert(sizeof...(Cs) == positions.size(),
                  "cutlet: give one value per Const parameter of the kernel, in order (k.compile(4) for one "
                  "Const<int>), and none for a kernel without Const parameters");
    ConstBits<Params> out{};
    [&]<std::size_t... K>(std::index_sequence<K...>) {
      ((out[detail::key_position_v<Params, positions[K]>] = encode_const<std::tuple_element_t<positions[K], Params>>(consts)),
       ...);
    }(std::index_sequence_for<Cs...>{});
    // Other keyed parameters (tensors) take their usual facts.
    [&]<std::size_t... I>(std::index_sequence<I...>) {
      [[maybe_unused]] auto one = [&]<std::size_t K>(std::integral_constant<std::size_t, K>) {
        using P = std::tuple_element_t<K, Params>;
        if constexpr (detail::keyed_v<P> && !detail::param_traits<P>::constant)
          out[detail::key_position_v<Params, K>] = detail::param_traits<P>::default_bits();
      };
      (one(std::integral_constant<std::size_t, I>{}), ...);
    }(std::make_index_sequence<std::tuple_size_v<Params>>{});
    return out;
  }
  template <class P, class C>
  static std::uint64_t encode_const(const C& c) {
    static_assert(detail::param_traits<P>::template accepts<C>(),
                  "cutlet: a Const value does not convert to its parameter's type without narrowing (pass 2.0f "
                  "for a Const<float>, an integer for a Const<int>)");
    return detail::param_traits<P>::encode(c);
  }

  template <class Params>
  ir::Function trace(std::span<const std::uint64_t> consts, double* trace_ms = nullptr,
                     double* passes_ms = nullptr, bool wide_indices = false,
                     const Target& target = Target::default_target()) const {
    return detail::trace_kernel(options_.name, [this, consts] {
      auto& b = detail::builder();
      [&]<std::size_t... I>(std::index_sequence<I...>) {
        using Ts = Params;
        // Parameters are created in order (a braced list evaluates left to right).
        std::tuple<std::tuple_element_t<I, Ts>...> params{make_param<Ts, I>(b, consts)...};
        if constexpr (detail::NonGenericCallable<F>) {
          std::apply(fn_, params);
        } else {
          static_assert(std::is_invocable_v<const F&, std::tuple_element_t<I, Ts>...>,
                        "cutlet: the kernel lambda cannot be called with the parameter types these arguments map to");
          std::apply(fn_, params);
        }
      }(std::make_index_sequence<std::tuple_size_v<Params>>{});
    }, trace_ms, passes_ms, detail::trace_options_for(options_, wide_indices, target));
  }

  /// Parameter I: a Const from its key bits, or a new IR parameter.
  template <class Params, std::size_t I>
  static auto make_param(ir::Builder& b, std::span<const std::uint64_t> consts) {
    using P = std::tuple_element_t<I, Params>;
    if constexpr (detail::param_traits<P>::constant)
      return detail::param_traits<P>::from_bits(consts[detail::key_position_v<Params, I>]);
    else if constexpr (detail::keyed_v<P>)
      return detail::param_traits<P>::make(b.add_param(detail::param_traits<P>::ir_type()), consts[detail::key_position_v<Params, I>]);
    else return detail::param_traits<P>::make(b.add_param(detail::param_traits<P>::ir_type(), detail::noalias_v<P>));
  }

  /// Records a specialization for recompile explanations; `source` says where its code came from.
  template <class Params>
  void record(std::span<const std::uint64_t> consts, int device, const CompileOptions& options, bool wide,
              detail::CompileSource source) const {
    detail::SpecializationRecord r;
    [&]<std::size_t... I>(std::index_sequence<I...>) {
      auto one = [&]<std::size_t K>(std::integral_constant<std::size_t, K>) {
        using P = std::tuple_element_t<K, Params>;
        r.params.push_back(detail::param_label<P>());
        if constexpr (detail::keyed_v<P>)
          r.values.push_back(detail::param_traits<P>::text(consts[detail::key_position_v<Params, K>]));
        else
          r.values.emplace_back();
      };
      (one(std::integral_constant<std::size_t, I>{}), ...);
    }(std::make_index_sequence<std::tuple_size_v<Params>>{});
    r.device = device;
    r.arch = options.target.arch();
    r.options = compile_option_fields(options);
    r.options.emplace_back("indices", wide ? "64-bit" : "32-bit");
    cache_->recompiles().record(options_.name, std::move(r), detail::source_note(source));
  }

  template <class Params>
  const detail::Specialization& specialize(const Device& device, std::uint64_t generation,
                                          std::span<const std::uint64_t> consts, bool wide = false) {
    const std::uint32_t id = wide ? signature_id<detail::WideIndices<Params>>() : signature_id<Params>();
    return cache_->get_or_make(id, device.ordinal(), generation, consts, [&] {
      double trace_ms = 0, passes_ms = 0;
      auto fn = trace<Params>(consts, &trace_ms, &passes_ms, wide, detail::compile_options_for(options_, device).target);
      auto loaded = detail::load_cached(fn, options_, device, trace_ms, passes_ms);
      record<Params>(consts, device.ordinal(), detail::compile_options_for(options_, device), wide, loaded->source);
      return loaded;
    });
  }

  template <class... Args, std::size_t... I>
  void check_buffers(const Device& device, const std::source_location& where, std::index_sequence<I...>,
                     const Args&... args) const {
    auto one = [&](std::size_t index, const auto& a) {
      if constexpr (detail::is_buffer<std::remove_cvref_t<decltype(a)>>::value) {
        if (a.data() == 0) [[unlikely]]
          detail::throw_null_buffer(options_.name, where, index);
        // Host memory of the CPU device on a GPU, or GPU memory on the CPU, cannot be read.
        if (a.device().is_cpu() != device.is_cpu()) [[unlikely]]
          detail::check_buffer_reachable(options_.name, where, index, a.device(), a.resource().get(), device);
      }
    };
    (one(I, args), ...);
  }

  template <class Params, class... Args, std::size_t... I>
  void pack_and_launch(const Stream& stream, const Function& function, const LaunchConfig& config,
                       std::index_sequence<I...>, const Args&... args) const {
    std::tuple<typename detail::param_traits<std::tuple_element_t<I, Params>>::storage...> values{
        detail::param_traits<std::tuple_element_t<I, Params>>::convert(args)...};
    if constexpr (detail::const_count_v<Params> == 0) {
      void* pointers[sizeof...(I) + 1] = {static_cast<void*>(&std::get<I>(values))..., nullptr};
      cutlet::launch(stream, function, config, pointers);
    } else {
      // Const parameters are not the PTX's parameters: pass only the run-time ones.
      static constexpr auto runtime = detail::runtime_param_indices<Params>();
      [&]<std::size_t... J>(std::index_sequence<J...>) {
        void* pointers[sizeof...(J) + 1] = {static_cast<void*>(&std::get<runtime[J]>(values))..., nullptr};
        cutlet::launch(stream, function, config, pointers);
      }(std::make_index_sequence<runtime.size()>{});
    }
  }

  F fn_;
  KernelOptions options_;
  std::source_location defined_;
  std::unique_ptr<detail::SpecializationCache> cache_;
  static inline std::atomic<std::uint32_t> signature_counter_{0};
};

/// Makes a tile kernel from a lambda over tiles (see tile.h and tensor.h): one instance per
/// block of `warps` warps, launched with only a grid, `k.launch(s, {.grid = rows}, out, in)`.
/// Tensor parameters are specialized on TensorFacts; Const parameters on their values.
/// `warps` is 1, 2, 4, 8, 16 or 32; other warps, and options no kernel may have (see
/// KernelOptions::tile_stages), throw cutlet::Error here.
///
///     auto add = cutlet::tile_kernel([](Tensor<float, 1> z, Tensor<float, 1> x, Tensor<float, 1> y) {
///       auto i = cutlet::program_id(0) * 1024 + cutlet::arange(1024);
///       auto m = i < x.shape(0);
///       cutlet::store(z, {i}, cutlet::load(x, {i}, m) + cutlet::load(y, {i}, m), m);
///     });
template <class F>
Kernel<std::decay_t<F>> tile_kernel(F&& fn, KernelOptions options = {}, int warps = 4,
                                    std::source_location defined = std::source_location::current()) {
  detail::check_tile_kernel_warps(warps, options, defined);
  options.tile_warps = warps;
  return Kernel<std::decay_t<F>>(std::forward<F>(fn), std::move(options), defined);
}

/// Makes a Kernel from a lambda: `auto saxpy = cutlet::kernel([](f32 a, Ptr<float> x, ...) {...});`
/// Options no kernel may have (see KernelOptions::tile_warps and tile_stages) throw cutlet::Error.
template <class F>
Kernel<std::decay_t<F>> kernel(F&& fn, KernelOptions options = {},
                               std::source_location defined = std::source_location::current()) {
  return Kernel<std::decay_t<F>>(std::forward<F>(fn), std::move(options), defined);
}

}  // namespace cutlet
