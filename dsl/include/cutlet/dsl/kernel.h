// Kernel: a traced lambda with its specializations, launched on a stream.
#pragma once

#include <memory>
#include <source_location>
#include <string>
#include <tuple>
#include <utility>

#include "cutlet/dsl/signature.h"
#include "cutlet/dsl/specialization.h"
#include "cutlet/runtime/launch.h"
#include "cutlet/runtime/stream.h"

namespace cutlet {

namespace detail {
[[noreturn]] void throw_argument_error(const std::string& kernel, const std::source_location& defined,
                                       const std::source_location& launched, const std::string& what);
[[noreturn]] void throw_null_buffer(const std::string& kernel, const std::source_location& launched, std::size_t index);
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
/// it reads then (captures, globals) are frozen into that specialization.
template <class F>
class Kernel {
 public:
  explicit Kernel(F fn, KernelOptions options = {}, std::source_location defined = std::source_location::current())
      : fn_(std::move(fn)), options_(std::move(options)), defined_(defined),
        cache_(std::make_unique<detail::SpecializationCache>()) {
    if (options_.name.empty()) options_.name = detail::default_kernel_name(defined_);
  }

  /// Launches the kernel on `stream` with `config` (grid, block, dynamic shared memory).
  /// Arguments: numbers for Value<T> parameters (converting without narrowing: pass 2.0f,
  /// not 2.0, for an f32), Buffer<T> for Ptr<T> parameters. Throws cutlet::Error when the
  /// arguments do not match the parameters, a buffer is empty, the launch shape breaks a
  /// device limit, or tracing/compiling fails; the message names the launch's line.
  /// After the first launch with these argument types on this device, a launch costs a
  /// lookup and a cuLaunchKernel. Thread-safe.
  template <class... Args>
  void launch(const Stream& stream, const LaunchConfig& config, const Args&... args) {
    using Params = typename detail::launch_signature<F, Args...>::params;
    check_arguments<Params, Args...>(config.where);
    if constexpr (valid_arguments<Params, Args...>()) {
      const int device = stream.device().ordinal();
      const detail::Specialization* spec = cache_->find(signature_id<Params>(), device);
      if (!spec) [[unlikely]]
        spec = &specialize<Params>(stream.device());
      check_buffers(config.where, std::index_sequence_for<Args...>{}, args...);
      pack_and_launch<Params>(stream, *spec->function, config, std::index_sequence_for<Args...>{}, args...);
    }
  }

  /// Traces and compiles the kernel for parameter types Ps (kernel parameter types such as
  /// f32 and Ptr<float>, or launch argument types such as float and Buffer<float>); with no
  /// Ps, the lambda's own parameter types. Needs no GPU. The result holds the PTX, the
  /// cubin, the register/shared memory use and the stage timings.
  template <class... Ps>
  std::shared_ptr<const CompiledKernel> compile() const {
    using Params = compile_params<Ps...>;
    auto fn = trace<Params>();
    return detail::compile_cached(fn, detail::compile_options_for(options_));
  }

  /// Traces the kernel for parameter types Ps (as in compile()) and returns its IR after
  /// the IR passes.
  template <class... Ps>
  ir::Function trace_ir() const {
    return trace<compile_params<Ps...>>();
  }

  /// The most recently compiled specialization launched by this object (nullptr before the
  /// first launch): its PTX, cubin, resource use and timings.
  std::shared_ptr<const detail::LoadedKernel> last_specialization() const { return cache_->last(); }

  const std::string& name() const { return options_.name; }
  const KernelOptions& options() const { return options_; }
  /// Where the kernel was defined.
  const std::source_location& defined_at() const { return defined_; }

 private:
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
  ir::Function trace(double* trace_ms = nullptr, double* passes_ms = nullptr) const {
    return detail::trace_kernel(options_.name, [this] {
      auto& b = detail::builder();
      [&]<std::size_t... I>(std::index_sequence<I...>) {
        using Ts = Params;
        // Parameters are created in order (a braced list evaluates left to right).
        std::tuple<std::tuple_element_t<I, Ts>...> params{
            detail::param_traits<std::tuple_element_t<I, Ts>>::make(
                b.add_param(detail::param_traits<std::tuple_element_t<I, Ts>>::ir_type()))...};
        if constexpr (detail::NonGenericCallable<F>) {
          std::apply(fn_, params);
        } else {
          static_assert(std::is_invocable_v<const F&, std::tuple_element_t<I, Ts>...>,
                        "cutlet: the kernel lambda cannot be called with the parameter types these arguments map to");
          std::apply(fn_, params);
        }
      }(std::make_index_sequence<std::tuple_size_v<Params>>{});
    }, trace_ms, passes_ms);
  }

  template <class Params>
  const detail::Specialization& specialize(const Device& device) {
    return cache_->get_or_make(signature_id<Params>(), device.ordinal(), [&] {
      double trace_ms = 0, passes_ms = 0;
      auto fn = trace<Params>(&trace_ms, &passes_ms);
      return detail::load_cached(fn, options_, device, trace_ms, passes_ms);
    });
  }

  template <class... Args, std::size_t... I>
  void check_buffers(const std::source_location& where, std::index_sequence<I...>, const Args&... args) const {
    auto one = [&](std::size_t index, const auto& a) {
      if constexpr (detail::is_buffer<std::remove_cvref_t<decltype(a)>>::value)
        if (a.data() == 0) [[unlikely]]
          detail::throw_null_buffer(options_.name, where, index);
    };
    (one(I, args), ...);
  }

  template <class Params, class... Args, std::size_t... I>
  void pack_and_launch(const Stream& stream, const Function& function, const LaunchConfig& config,
                       std::index_sequence<I...>, const Args&... args) const {
    std::tuple<typename detail::param_traits<std::tuple_element_t<I, Params>>::storage...> values{
        detail::param_traits<std::tuple_element_t<I, Params>>::convert(args)...};
    void* pointers[sizeof...(I) + 1] = {static_cast<void*>(&std::get<I>(values))..., nullptr};
    cutlet::launch(stream, function, config, pointers);
  }

  F fn_;
  KernelOptions options_;
  std::source_location defined_;
  std::unique_ptr<detail::SpecializationCache> cache_;
  static inline std::atomic<std::uint32_t> signature_counter_{0};
};

/// Makes a Kernel from a lambda: `auto saxpy = cutlet::kernel([](f32 a, Ptr<float> x, ...) {...});`
template <class F>
Kernel<std::decay_t<F>> kernel(F&& fn, KernelOptions options = {},
                               std::source_location defined = std::source_location::current()) {
  return Kernel<std::decay_t<F>>(std::forward<F>(fn), std::move(options), defined);
}

}  // namespace cutlet
