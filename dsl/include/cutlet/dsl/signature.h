// Kernel parameter types: mapping launch arguments to kernel parameters and checking them.
#pragma once

#include <cstdint>
#include <string>
#include <tuple>
#include <type_traits>
#include <typeinfo>

#include "cutlet/dsl/pointer.h"
#include "cutlet/runtime/buffer.h"

namespace cutlet {
namespace detail {

template <class T>
struct is_buffer : std::false_type {};
template <class T>
struct is_buffer<Buffer<T>> : std::true_type {};

/// Facts about a kernel parameter type P (Value<T> or Ptr<T>).
template <class P>
struct param_traits {
  static constexpr bool valid = false;
};
template <ScalarType T>
struct param_traits<Value<T>> {
  static constexpr bool valid = true;
  using storage = T;
  static ir::Type ir_type() { return ir_type_of<T>(); }
  /// A host argument of type A is accepted when it converts to T without narrowing.
  template <class A>
  static constexpr bool accepts() {
    if constexpr (!std::is_arithmetic_v<A>) return false;
    else if constexpr (std::is_same_v<T, bool> != std::is_same_v<A, bool>) return false;
    else return requires(A a) { T{a}; };
  }
  template <class A>
  static storage convert(const A& a) { return static_cast<T>(a); }
  static Value<T> make(ir::ValueId id) { return Value<T>::wrap(id); }
};
template <ScalarType T>
struct param_traits<Ptr<T>> {
  static constexpr bool valid = true;
  using storage = std::uint64_t;
  static ir::Type ir_type() { return ir::Type::pointer(ir_type_of<T>(), ir::AddressSpace::Global); }
  template <class A>
  static constexpr bool accepts() { return std::is_same_v<A, Buffer<T>>; }
  static storage convert(const Buffer<T>& b) { return b.data(); }
  static Ptr<T> make(ir::ValueId id) { return Ptr<T>::wrap(id); }
};

/// The kernel parameter type a launch argument of host type A maps to, for generic
/// lambdas: numbers to Value<fixed-width scalar>, Buffer<T> to Ptr<T>. Kernel parameter
/// types themselves map to themselves (for compile<...>()).
template <class A>
struct param_of {
  using type = void;
};
template <class A>
  requires std::is_arithmetic_v<A>
struct param_of<A> {
  using type = Value<canonical_scalar_t<A>>;
};
template <class T>
struct param_of<Buffer<T>> {
  using type = Ptr<T>;
};
template <class T>
struct param_of<Value<T>> {
  using type = Value<T>;
};
template <class T>
struct param_of<Ptr<T>> {
  using type = Ptr<T>;
};
template <class A>
using param_of_t = typename param_of<std::remove_cvref_t<A>>::type;

/// The parameter list of a non-generic lambda (or function object).
template <class M>
struct member_params;
template <class R, class C, class... Ps>
struct member_params<R (C::*)(Ps...) const> {
  using type = std::tuple<std::remove_cvref_t<Ps>...>;
};
template <class R, class C, class... Ps>
struct member_params<R (C::*)(Ps...)> {
  using type = std::tuple<std::remove_cvref_t<Ps>...>;
};
template <class F>
concept NonGenericCallable = requires { &F::operator(); };

/// A kernel's parameters for a launch with host argument types Args: the lambda's own
/// parameter types when it has them, else the types the arguments map to.
template <class F, class... Args>
struct launch_signature {
  static auto pick() {
    if constexpr (NonGenericCallable<F>) return std::type_identity<typename member_params<decltype(&F::operator())>::type>{};
    else return std::type_identity<std::tuple<param_of_t<Args>...>>{};
  }
  using params = typename decltype(pick())::type;
};

/// A readable name for a host argument type or a kernel parameter type.
template <class A>
std::string type_name() {
  using R = std::remove_cvref_t<A>;
  if constexpr (std::is_arithmetic_v<R>) return std::string("host ") + ir_type_of<canonical_scalar_t<R>>().str();
  else if constexpr (is_buffer<R>::value) return "Buffer<" + ir_type_of<typename R::element_type>().str() + ">";
  else if constexpr (Traced<R>) return "Value<" + ir_type_of<traced_type_t<R>>().str() + ">";
  else if constexpr (requires { typename R::element_type; } && param_traits<R>::valid)
    return "Ptr<" + ir_type_of<typename R::element_type>().str() + ">";
  else return std::string("an unsupported type (") + typeid(R).name() + ")";
}

}  // namespace detail
}  // namespace cutlet
