// device_function: a helper compiled once per argument types and called from kernels (instead
// of inlined, as plain C++ functions over cutlet values are), or exported for CUDA C++ to call.
#pragma once

#include <algorithm>
#include <map>
#include <vector>
#include <memory>
#include <mutex>
#include <source_location>
#include <string>
#include <tuple>
#include <typeindex>

#include "cutlet/backend/compiler.h"
#include "cutlet/jit/signature.h"
#include "cutlet/jit/specialization.h"
#include "cutlet/jit/symbol_name.h"
#include "cutlet/language/trace.h"

namespace cutlet {

namespace detail {
/// Traces `body` into a new device function named `name`, suspending the trace of the
/// calling kernel meanwhile; runs the IR passes on it.
std::shared_ptr<const ir::Function> trace_device_function(const std::string& name,
                                                          const std::function<ir::ValueId()>& body);
/// The parameter type of a device-function argument of type A (a traced value, a pointer or
/// a host number).
template <class A>
struct device_param {
  using type = param_of_t<A>;
};
template <Traced A>
struct device_param<A> {
  using type = Value<traced_type_t<A>>;
};
template <ScalarType T, ir::AddressSpace S>
struct device_param<Ptr<T, S>> {
  using type = Ptr<T, S>;
};
template <class P>
ir::Type device_param_type() {
  if constexpr (requires { P::space; }) return ir::Type::pointer(ir_type_of<typename P::element_type>(), P::space);
  else return param_traits<P>::ir_type();
}
template <class P, class A>
ir::ValueId device_argument(const A& a) {
  if constexpr (requires { P::space; }) return a.id();
  else return operand_as<typename P::element_type>(a);
}
}  // namespace detail

/// A function over cutlet values that kernels call, compiled once (per argument types) into
/// a PTX function rather than inlined at every call: for large helpers, and for code that
/// CUDA C++ links against. Call graphs must not be recursive.
///
///     auto mad = cutlet::device_function([](f32 a, f32 b, f32 c) { return a * b + c; }, "mad");
///     ... inside a kernel: y[i] = mad(x[i], 2.0f, y[i]);
///
/// Arguments are traced values, host numbers or pointers (Ptr, SharedPtr); the lambda
/// returns a Value or nothing. ptx() gives a standalone PTX module in which the function is
/// a visible `.func` with the given name, for nvJitLink together with CUDA C++ that declares
/// it (`extern "C" __device__ float mad(float, float, float);`).
template <class F>
class DeviceFunction {
 public:
  DeviceFunction(F fn, std::string name, std::source_location where)
      : fn_(std::move(fn)), name_(std::move(name)), state_(std::make_shared<State>()) {
    if (name_.empty()) name_ = "devfn_" + detail::default_kernel_name(where);
    detail::check_symbol_name(name_, "device function", where);
  }

  /// Calls the function from the kernel being traced.
  template <class... Args>
  auto operator()(const Args&... args) const {
    using Params = std::tuple<typename detail::device_param<Args>::type...>;
    auto callee = specialization<Params>();
    ir::ValueId ids[sizeof...(Args) + 1] = {
        [&] { return detail::device_argument<typename detail::device_param<Args>::type>(args); }()...};
    ir::ValueId r = detail::builder("calling a device function")
                        .call(callee, std::span<const ir::ValueId>(ids, sizeof...(Args)));
    using R = decltype(std::apply(std::declval<const F&>(), std::declval<Params>()));
    if constexpr (std::is_void_v<R>) return;
    else return R::wrap(r);
  }

  /// PTX defining the function for parameter types Ps (kernel parameter types: f32,
  /// Ptr<float>, ...; by default the lambda's own), as a visible .func named name().
  template <class... Ps>
  std::string ptx(const Target& target = Target::default_target()) const {
    using Params = std::conditional_t<sizeof...(Ps) == 0, typename own_params<F>::type, std::tuple<Ps...>>;
    auto f = std::make_shared<ir::Function>(*specialization<Params>(name_));
    CompileOptions o;
    o.target = target;
    return compile_to_ptx(*f, o);
  }

  const std::string& name() const { return name_; }

 private:
  struct State {
    std::mutex mu;
    std::map<std::type_index, std::shared_ptr<const ir::Function>> specs;
  };
  template <class G>
  struct own_params {
    using type = typename detail::member_params<decltype(&G::operator())>::type;
  };

  template <class Params>
  std::shared_ptr<const ir::Function> specialization(std::string name = {}) const {
    const std::type_index key(typeid(Params));
    {
      std::lock_guard lock(state_->mu);
      if (auto it = state_->specs.find(key); it != state_->specs.end()) return it->second;
      if (name.empty()) name = name_ + (state_->specs.empty() ? "" : "_" + std::to_string(state_->specs.size()));
    }
    // Tracing runs unlocked (it may call other device functions); a function already being
    // traced on this thread is calling itself.
    thread_local std::vector<const void*> tracing;
    if (std::find(tracing.begin(), tracing.end(), state_.get()) != tracing.end())
      throw TraceError("cutlet: device function '" + name_ + "' calls itself; device functions must not be recursive");
    tracing.push_back(state_.get());
    std::shared_ptr<const ir::Function> traced;
    try {
      traced = detail::trace_device_function(name, [&]() -> ir::ValueId {
        auto& b = detail::builder();
        auto params = [&]<std::size_t... I>(std::index_sequence<I...>) {
          return std::tuple<std::tuple_element_t<I, Params>...>{std::tuple_element_t<I, Params>::wrap(
              b.add_param(detail::device_param_type<std::tuple_element_t<I, Params>>()))...};
        }(std::make_index_sequence<std::tuple_size_v<Params>>{});
        using R = decltype(std::apply(fn_, params));
        if constexpr (std::is_void_v<R>) {
          std::apply(fn_, params);
          return ir::kNone;
        } else {
          static_assert(Traced<R>, "cutlet::device_function: the lambda returns a cutlet value or nothing");
          return detail::as_value(std::apply(fn_, params)).id();
        }
      });
    } catch (...) {
      tracing.pop_back();
      throw;
    }
    tracing.pop_back();
    std::lock_guard lock(state_->mu);
    auto [it, inserted] = state_->specs.emplace(key, traced);
    return it->second;  // a concurrent trace of the same specialization keeps the first
  }

  F fn_;
  std::string name_;
  std::shared_ptr<State> state_;
};

/// Makes a DeviceFunction; `name` is its PTX name (by default from the definition site).
template <class F>
DeviceFunction<std::decay_t<F>> device_function(F&& fn, std::string name = {},
                                                std::source_location where = std::source_location::current()) {
  return DeviceFunction<std::decay_t<F>>(std::forward<F>(fn), std::move(name), where);
}

}  // namespace cutlet
