// The element types the algorithms take, and what a user operator must be.
#pragma once

#include <concepts>
#include <cstdint>
#include <type_traits>

#include "cutlet/language/struct_param.h"
#include "cutlet/language/value.h"

namespace cutlet::algorithms {

/// The element types every algorithm takes (input, output and histogram samples): float,
/// double, std::int32_t, std::uint32_t, std::int64_t and std::uint64_t. 16-bit floats, 8- and
/// 16-bit integers and bool are not algorithm elements.
template <class T>
concept Element = std::same_as<T, float> || std::same_as<T, double> || std::same_as<T, std::int32_t> ||
                  std::same_as<T, std::uint32_t> || std::same_as<T, std::int64_t> ||
                  std::same_as<T, std::uint64_t>;

/// The flag types of select_flagged: std::uint8_t (one byte per flag, as arrays of bool are
/// stored) and every Element. An item is selected where its flag is nonzero (flag != 0).
template <class F>
concept Flag = Element<F> || std::same_as<F, std::uint8_t>;

/// A user struct an algorithm takes as its element where its documentation says so (reduce,
/// the scans and the merge sorts over a Buffer<S>, transform and permutation_iterator): a
/// StructValue (a KernelStruct of whole 32-bit words) that is not one of the language's
/// scalars. In a kernel it is a Struct<S> value, read and built field by field.
template <class S>
concept StructElement = StructValue<S> && !ScalarType<S>;

/// An Element or a StructElement: what the algorithms that take structs take.
template <class T>
concept ElementOrStruct = Element<T> || StructElement<T>;

namespace detail {

/// The traced form of an element of T: Value<T>, or Struct<T> for a StructElement.
template <class T>
struct held {
  using type = Value<T>;
};
template <StructElement T>
struct held<T> {
  using type = Struct<T>;
};
template <class T>
using held_t = typename held<T>::type;

}  // namespace detail

/// An operator is a stateless callable (a captureless lambda, or an empty struct such as
/// algorithms::plus) over cutlet values: it runs once per kernel specialization, while the
/// kernel is traced, and its code is inlined into the algorithm's kernel. Stateless because
/// the kernels are built once per operator type: a captured host value would be frozen into
/// the first kernel built.
template <class Op>
concept Stateless = std::is_empty_v<Op> && std::default_initializable<Op> && std::copy_constructible<Op>;

/// A binary operator on T: op(Value<T>, Value<T>) returns something that converts to Value<T>
/// (a Value, a Var, a loaded element); for a StructElement T, op(Struct<T>, Struct<T>)
/// returns a Struct<T> value. reduce needs it associative and commutative; the scans
/// need it associative only (it is applied in sequence order). It must have no side effects
/// and be defined for every pair of values (the algorithms also apply it to values they then
/// discard).
template <class Op, class T>
concept BinaryOperator =
    Stateless<Op> && std::invocable<const Op&, detail::held_t<T>, detail::held_t<T>> &&
    std::convertible_to<std::invoke_result_t<const Op&, detail::held_t<T>, detail::held_t<T>>, detail::held_t<T>>;

/// A predicate on T: pred(Value<T>) converts to Value<bool> (select_if keeps the items where
/// it is true). It must have no side effects and be defined for every value (the algorithms
/// also apply it to values they then discard).
template <class Op, class T>
concept UnaryPredicate = Stateless<Op> && std::invocable<const Op&, Value<T>> &&
                         std::convertible_to<std::invoke_result_t<const Op&, Value<T>>, Value<bool>>;

/// A binary predicate on T: eq(Value<T>, Value<T>) converts to Value<bool> (unique and
/// run_length_encode take it as the equality of neighbours, the merge sorts as the order);
/// for a StructElement T, pred(Struct<T>, Struct<T>). No side effects, defined for every pair
/// of values.
template <class Op, class T>
concept BinaryPredicate =
    Stateless<Op> && std::invocable<const Op&, detail::held_t<T>, detail::held_t<T>> &&
    std::convertible_to<std::invoke_result_t<const Op&, detail::held_t<T>, detail::held_t<T>>, Value<bool>>;

/// A unary transform from In to Out: op(Value<In>) converts to Value<Out>.
template <class Op, class In, class Out>
concept UnaryTransform = Stateless<Op> && std::invocable<const Op&, Value<In>> &&
                         std::convertible_to<std::invoke_result_t<const Op&, Value<In>>, Value<Out>>;

/// A binary transform from (A, B) to Out: op(Value<A>, Value<B>) converts to Value<Out>.
template <class Op, class A, class B, class Out>
concept BinaryTransform = Stateless<Op> && std::invocable<const Op&, Value<A>, Value<B>> &&
                          std::convertible_to<std::invoke_result_t<const Op&, Value<A>, Value<B>>, Value<Out>>;

/// The short name of an element (or flag) type in kernel names: "f32", "f64", "i32", "u32",
/// "i64", "u64" (and "u8").
template <Flag T>
constexpr const char* element_name() {
  if constexpr (std::is_same_v<T, std::uint8_t>) return "u8";
  else if constexpr (std::is_same_v<T, float>) return "f32";
  else if constexpr (std::is_same_v<T, double>) return "f64";
  else if constexpr (std::is_same_v<T, std::int32_t>) return "i32";
  else if constexpr (std::is_same_v<T, std::uint32_t>) return "u32";
  else if constexpr (std::is_same_v<T, std::int64_t>) return "i64";
  else return "u64";
}

namespace detail {

/// Elements of T in one 16-byte vector access (4 of 4 bytes, 2 of 8).
template <Element T>
inline constexpr int kVectorLanes = 16 / static_cast<int>(sizeof(T));

/// pred(x) as a Value<bool>, traced where it is called.
template <class T, class Pred>
Value<bool> call_pred(const Pred& pred, const Value<T>& x) {
  return Value<bool>(pred(x));
}

/// eq(a, b) as a Value<bool>, traced where it is called.
template <class T, class Eq>
Value<bool> call_pred(const Eq& eq, const held_t<T>& a, const held_t<T>& b) {
  return Value<bool>(eq(a, b));
}

/// op(a, b) as a Value<T> (a Struct<T> for a struct), traced where it is called (the
/// operator's code is inlined).
template <class T, class Op>
held_t<T> call_op(const Op& op, const held_t<T>& a, const held_t<T>& b) {
  return held_t<T>(op(a, b));
}

}  // namespace detail
}  // namespace cutlet::algorithms
