// Kernel parameter types: mapping launch arguments to kernel parameters and checking them.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <tuple>
#include <type_traits>
#include <typeinfo>
#include <utility>

#include "cutlet/language/const_param.h"
#include "cutlet/language/pointer.h"
#include "cutlet/language/struct_param.h"
#include "cutlet/language/tensor.h"
#include "cutlet/language/tma.h"
#include "cutlet/runtime/buffer.h"

namespace cutlet {
namespace detail {

template <class T>
struct is_buffer : std::false_type {};
template <class T>
struct is_buffer<Buffer<T>> : std::true_type {};

/// True for a Buffer argument of 2^31 elements or more (its kernel needs 64-bit indices).
template <class A>
bool is_wide_buffer(const A& a) noexcept {
  if constexpr (is_buffer<A>::value) return a.size() > static_cast<std::size_t>(0x7fffffff);
  else return false;
}
/// Tags the 64-bit-index specialization of parameter list Params.
template <class Params>
struct WideIndices {};

/// Facts about a kernel parameter type P (Value<T>, Ptr<T> or Const<T>). `constant` is true
/// for Const<T>, whose values are part of the specialization key instead of the PTX's
/// parameters.
template <class P>
struct param_traits {
  static constexpr bool valid = false;
  static constexpr bool constant = false;
};
template <ScalarType T>
struct param_traits<Value<T>> {
  static constexpr bool valid = true;
  static constexpr bool constant = false;
  using storage = T;
  static ir::Type ir_type() { return ir_type_of<T>(); }
  /// A host argument of type A is accepted when it converts to T without narrowing.
  template <class A>
  static constexpr bool accepts() {
    if constexpr (std::is_same_v<A, T>) return true;  // also half, bfloat16 and the FP8 types
    else if constexpr (!std::is_arithmetic_v<A>) return false;
    else if constexpr (std::is_same_v<T, bool> != std::is_same_v<A, bool>) return false;
    else return requires(A a) { T{a}; };
  }
  template <class A>
  static storage convert(const A& a) { return static_cast<T>(a); }
  static Value<T> make(ir::ValueId id) { return Value<T>::wrap(id); }
};
template <class T, int R>
struct param_traits<Tensor<T, R>> {
  static constexpr bool valid = true;
  static constexpr bool constant = false;
  static constexpr bool keyed = true;  ///< its TensorFacts select the specialization
  using storage = TensorArg<T, R>;
  static ir::Type ir_type() { return ir::Type::record(sizeof(storage), alignof(storage)); }
  template <class A>
  static constexpr bool accepts() { return std::is_same_v<A, storage>; }
  static const storage& convert(const storage& s) { return s; }
  static std::uint64_t encode(const storage& s) { return tensor_facts(s); }
  /// The facts compile() assumes: aligned, unit stride, every extent and stride divisible by 16.
  static std::uint64_t default_bits() {
    std::uint64_t f = TensorFacts::kAligned | TensorFacts::kUnitStride;
    for (int d = 0; d < R; ++d) f |= (TensorFacts::kShapeDiv16 | TensorFacts::kStrideDiv16) << d;
    return f;
  }
  static Tensor<T, R> make(ir::ValueId id, std::uint64_t facts) { return Tensor<T, R>(id, facts); }
  static std::string text(std::uint64_t facts) { return tensor_facts_text(facts, R); }
};
template <class T>
struct is_tensor_arg : std::false_type {};
template <class T, int R>
struct is_tensor_arg<TensorArg<T, R>> : std::true_type {};

template <class S>
struct param_traits<Struct<S>> {
  static constexpr bool valid = true;
  static constexpr bool constant = false;
  using storage = S;
  static ir::Type ir_type() { return ir::Type::record(sizeof(S), alignof(S)); }
  template <class A>
  static constexpr bool accepts() { return std::is_same_v<A, S>; }
  static const S& convert(const S& s) { return s; }
  static Struct<S> make(ir::ValueId id) { return Struct<S>::wrap(id); }
};
template <ScalarType T, int R>
struct param_traits<TmaDescriptor<T, R>> {
  static constexpr bool valid = true;
  static constexpr bool constant = false;
  using storage = TensorMap;
  static ir::Type ir_type() { return ir::Type::record(sizeof(storage), alignof(storage)); }
  template <class A>
  static constexpr bool accepts() { return std::is_same_v<A, TensorMap>; }
  static const storage& convert(const storage& s) { return s; }
  static TmaDescriptor<T, R> make(ir::ValueId id) { return TmaDescriptor<T, R>::wrap(id); }
};
template <ScalarType T>
struct param_traits<Ptr<T>> {
  static constexpr bool valid = true;
  static constexpr bool constant = false;
  using storage = std::uint64_t;
  static ir::Type ir_type() { return ir::Type::pointer(ir_type_of<T>(), ir::AddressSpace::Global); }
  template <class A>
  static constexpr bool accepts() { return std::is_same_v<A, Buffer<T>>; }
  static storage convert(const Buffer<T>& b) { return b.data(); }
  static Ptr<T> make(ir::ValueId id) { return Ptr<T>::wrap(id); }
};
template <ScalarType T>
struct param_traits<RestrictPtr<T>> : param_traits<Ptr<T>> {
  static constexpr bool noalias = true;
  static RestrictPtr<T> make(ir::ValueId id) { return RestrictPtr<T>::wrap(id); }
};
/// Whether kernel parameter type P is a restrict pointer.
template <class P>
inline constexpr bool noalias_v = requires { param_traits<P>::noalias; };
template <ConstType T>
struct param_traits<Const<T>> {
  static constexpr bool valid = true;
  static constexpr bool constant = true;
  using storage = char;  ///< unused: a Const is not passed to the kernel
  /// A host number converting to T without narrowing, a Const<U> of such a U, or a ConstValue
  /// (checked when launched).
  template <class A>
  static constexpr bool accepts() {
    using R = std::remove_cvref_t<A>;
    if constexpr (std::is_same_v<R, ConstValue>) return true;
    else if constexpr (is_const_param_v<R>) return accepts_number<typename R::value_type>();
    else return accepts_number<R>();
  }
  template <class A>
  static storage convert(const A&) { return 0; }
  /// The key bits of argument `a` (see const_bits). Throws Error for a ConstValue that does
  /// not fit T.
  template <class A>
  static std::uint64_t encode(const A& a) {
    using R = std::remove_cvref_t<A>;
    if constexpr (std::is_same_v<R, ConstValue>) return const_bits<T>(a.template to<T>());
    else if constexpr (is_const_param_v<R>) return const_bits<T>(static_cast<T>(a.value()));
    else return const_bits<T>(static_cast<T>(a));
  }
  static Const<T> from_bits(std::uint64_t b) { return Const<T>(const_from_bits<T>(b)); }
  /// The value as text, for recompile explanations.
  static std::string text(std::uint64_t b) { return ConstValue(const_from_bits<T>(b)).str(); }

 private:
  template <class U>
  static constexpr bool accepts_number() {
    if constexpr (!std::is_arithmetic_v<U>) return false;
    else if constexpr (std::is_same_v<T, bool> != std::is_same_v<U, bool>) return false;
    else return requires(U u) { T{u}; };
  }
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
/// The host types of cutlet's 16-bit and FP8 scalars (half, bfloat16, float8_e4m3,
/// float8_e5m2): by value they are scalar parameters of their own type.
template <class A>
concept HostStorageScalar =
    std::is_same_v<A, half> || std::is_same_v<A, bfloat16> || std::is_same_v<A, float8_e4m3> || std::is_same_v<A, float8_e5m2>;
template <HostStorageScalar A>
struct param_of<A> {
  using type = Value<A>;
};
template <class T>
struct param_of<Buffer<T>> {
  using type = Ptr<T>;
};
/// A host struct argument (not one of cutlet's own types) maps to Struct<S>.
template <class T, int R>
struct param_of<TensorArg<T, R>> {
  using type = Tensor<T, R>;
};
template <class T, int R>
struct param_of<Tensor<T, R>> {
  using type = Tensor<T, R>;
};
template <class A>
  requires(KernelStruct<A> && !param_traits<A>::valid && !is_buffer<A>::value && !Traced<A> && !is_tensor_arg<A>::value &&
           !std::is_same_v<A, ConstValue> && !HostStorageScalar<A>)
struct param_of<A> {
  using type = Struct<A>;
};
template <class S>
struct param_of<Struct<S>> {
  using type = Struct<S>;
};
template <class T>
struct param_of<Value<T>> {
  using type = Value<T>;
};
template <class T>
struct param_of<Ptr<T>> {
  using type = Ptr<T>;
};
template <class T>
struct param_of<Const<T>> {
  using type = Const<T>;
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

/// True for parameter types whose launch arguments contribute key bits to the specialization
/// (Const values; Tensor alignment and divisibility facts).
template <class P>
inline constexpr bool keyed_v = param_traits<P>::constant || requires { param_traits<P>::keyed; };

/// The number of keyed parameters in Params, and the position of keyed parameter I among them.
template <class Params>
inline constexpr std::size_t key_count_v = []<std::size_t... I>(std::index_sequence<I...>) {
  return (std::size_t{0} + ... + (keyed_v<std::tuple_element_t<I, Params>> ? 1 : 0));
}(std::make_index_sequence<std::tuple_size_v<Params>>{});
template <class Params, std::size_t I>
inline constexpr std::size_t key_position_v = []<std::size_t... J>(std::index_sequence<J...>) {
  return (std::size_t{0} + ... + (keyed_v<std::tuple_element_t<J, Params>> ? 1 : 0));
}(std::make_index_sequence<I>{});

/// The number of Const parameters in the tuple of parameter types Params.
template <class Params>
inline constexpr std::size_t const_count_v = []<std::size_t... I>(std::index_sequence<I...>) {
  return (std::size_t{0} + ... + (param_traits<std::tuple_element_t<I, Params>>::constant ? 1 : 0));
}(std::make_index_sequence<std::tuple_size_v<Params>>{});

/// For parameter I of Params, a Const: its position among the Const parameters.
template <class Params, std::size_t I>
inline constexpr std::size_t const_position_v = []<std::size_t... J>(std::index_sequence<J...>) {
  return (std::size_t{0} + ... + (param_traits<std::tuple_element_t<J, Params>>::constant ? 1 : 0));
}(std::make_index_sequence<I>{});

/// The positions of the run-time (non-Const) parameters of Params: the PTX's parameters.
template <class Params>
constexpr auto runtime_param_indices() {
  std::array<std::size_t, std::tuple_size_v<Params> - const_count_v<Params>> out{};
  std::size_t k = 0;
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    ((param_traits<std::tuple_element_t<I, Params>>::constant ? void() : void(out[k++] = I)), ...);
  }(std::make_index_sequence<std::tuple_size_v<Params>>{});
  return out;
}

/// The name of a Const's value type: "i32", "f64", "bool".
template <class T>
std::string const_type_name() {
  if constexpr (std::is_same_v<T, bool>) return "bool";
  else return ir_type_of<canonical_scalar_t<T>>().str();
}

/// The C++ name of struct S ("Params", "ns::Params").
std::string demangled_name(const char* mangled);
template <class S>
std::string struct_name() {
  return demangled_name(typeid(S).name());
}

/// A readable name for a host argument type or a kernel parameter type.
template <class A>
std::string type_name() {
  using R = std::remove_cvref_t<A>;
  if constexpr (std::is_arithmetic_v<R>) return std::string("host ") + ir_type_of<canonical_scalar_t<R>>().str();
  else if constexpr (is_const_param_v<R>) return "Const<" + const_type_name<typename R::value_type>() + ">";
  else if constexpr (std::is_same_v<R, ConstValue>) return "ConstValue";
  else if constexpr (is_buffer<R>::value) return "Buffer<" + ir_type_of<typename R::element_type>().str() + ">";
  else if constexpr (HostStorageScalar<R>)
    return "host " + ir_type_of<R>().str();
  else if constexpr (is_tensor_arg<R>::value || requires { R::is_tensor; })
    return std::string(is_tensor_arg<R>::value ? "TensorArg<" : "Tensor<") + ir_type_of<typename R::element_type>().str() +
           ", " + std::to_string(R::rank) + ">";
  else if constexpr (requires { typename R::struct_type; })
    return "Struct<" + struct_name<typename R::struct_type>() + ">";
  else if constexpr (Traced<R>) return "Value<" + ir_type_of<traced_type_t<R>>().str() + ">";
  else if constexpr (requires { typename R::element_type; } && param_traits<R>::valid)
    return "Ptr<" + ir_type_of<typename R::element_type>().str() + ">";
  else if constexpr (KernelStruct<R>) return "host struct " + struct_name<R>();
  else return std::string("an unsupported type (") + typeid(R).name() + ")";
}

/// A kernel parameter's type as recompile explanations name it: "f32", "Ptr<f32>",
/// "Const<i32>".
template <class P>
std::string param_label() {
  using R = std::remove_cvref_t<P>;
  if constexpr (Traced<R>) return ir_type_of<traced_type_t<R>>().str();
  else return type_name<R>();
}

}  // namespace detail
}  // namespace cutlet
