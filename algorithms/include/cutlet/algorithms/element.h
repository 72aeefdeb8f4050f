// The element types the algorithms take, and what a user operator must be.
#pragma once

#include <concepts>
#include <cstdint>
#include <type_traits>

#include "cutlet/language/struct_param.h"
#include "cutlet/language/value.h"

namespace cutlet::algorithms {

/// The element types every algorithm takes (input, output and histogram samples): the
/// language's numbers, i.e. float, double, half, bfloat16 and the signed and unsigned integers
/// of 8, 16, 32 and 64 bits. bool and the FP8 storage types (which have no arithmetic) are not
/// algorithm elements; flags of bool are std::uint8_t.
template <class T>
concept Element = std::same_as<T, float> || std::same_as<T, double> || std::same_as<T, half> ||
                  std::same_as<T, bfloat16> || std::same_as<T, std::int8_t> || std::same_as<T, std::uint8_t> ||
                  std::same_as<T, std::int16_t> || std::same_as<T, std::uint16_t> || std::same_as<T, std::int32_t> ||
                  std::same_as<T, std::uint32_t> || std::same_as<T, std::int64_t> || std::same_as<T, std::uint64_t>;

/// The flag types of select_flagged: every Element (std::uint8_t for one byte per flag, as
/// arrays of bool are stored). An item is selected where its flag is nonzero (flag != 0).
template <class F>
concept Flag = Element<F>;

/// A user struct an algorithm takes as its element where its documentation says so (reduce,
/// segmented_reduce, the scans and the merge sorts over a Buffer<S>, select_if,
/// select_flagged, unique, unique_by_key and three_way_partition, transform and
/// permutation_iterator): a StructValue (a KernelStruct of whole 32-bit words) that is not
/// one of the language's scalars. In a kernel it is a Struct<S> value, read and built field by
/// field.
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
/// it is true); for a StructElement T, pred(Struct<T>). It must have no side effects and be
/// defined for every value (the algorithms also apply it to values they then discard).
template <class Op, class T>
concept UnaryPredicate = Stateless<Op> && std::invocable<const Op&, detail::held_t<T>> &&
                         std::convertible_to<std::invoke_result_t<const Op&, detail::held_t<T>>, Value<bool>>;

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

/// The short name of an element type in kernel names: "f32", "f64", "f16", "bf16", "i8" ...
/// "u64".
template <Element T>
constexpr const char* element_name() {
  if constexpr (std::is_same_v<T, float>) return "f32";
  else if constexpr (std::is_same_v<T, double>) return "f64";
  else if constexpr (std::is_same_v<T, half>) return "f16";
  else if constexpr (std::is_same_v<T, bfloat16>) return "bf16";
  else if constexpr (std::is_same_v<T, std::int8_t>) return "i8";
  else if constexpr (std::is_same_v<T, std::uint8_t>) return "u8";
  else if constexpr (std::is_same_v<T, std::int16_t>) return "i16";
  else if constexpr (std::is_same_v<T, std::uint16_t>) return "u16";
  else if constexpr (std::is_same_v<T, std::int32_t>) return "i32";
  else if constexpr (std::is_same_v<T, std::uint32_t>) return "u32";
  else if constexpr (std::is_same_v<T, std::int64_t>) return "i64";
  else return "u64";
}

namespace detail {

/// True for the floating-point elements (half and bfloat16 among them).
template <class T>
inline constexpr bool is_float_element_v = cutlet::detail::is_float_v<T>;

/// The unsigned integer of T's width (1, 2, 4 or 8 bytes): what a bitcast of T gives.
template <class T>
using SameWidthBits = std::conditional_t<
    sizeof(T) == 1, std::uint8_t,
    std::conditional_t<sizeof(T) == 2, std::uint16_t,
                       std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>>>;

/// Elements of T in one vector access: 16 bytes of 2-, 4- and 8-byte elements (8, 4, 2 of
/// them), 8 of 1-byte ones (vector accesses have at most 8 lanes).
template <Element T>
inline constexpr int kVectorLanes = sizeof(T) == 1 ? 8 : 16 / static_cast<int>(sizeof(T));

/// pred(x) as a Value<bool>, traced where it is called (x a Struct<T> for a struct).
template <class T, class Pred>
Value<bool> call_pred(const Pred& pred, const held_t<T>& x) {
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
