// The element types the algorithms take, and what a user operator must be.
#pragma once

#include <concepts>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "cutlet/language/struct_param.h"
#include "cutlet/language/value.h"
#include "cutlet/language/vector.h"

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

/// A short vector of N lanes of T as an algorithm element: the host twin of a kernel's
/// Vec<T, N>, as CUDA's float2, float4, int4, double2 or __half2 are of theirs, and aligned
/// like them to its size (4, 8 or 16 bytes), so that one access loads it. It is a
/// StructElement (whatever takes user structs takes it, as values, keys and outputs), and the
/// operators, predicates and comparators of the algorithms receive it as a Vec<T, N> and
/// return a Vec<T, N>: a sum of float4s is
///
///     alg::reduce(stream, xs, out, [](f32x4 a, f32x4 b) { return a + b; }, VecElement<float, 4>{});
///
/// N is 2, 4 or 8, at most 16 bytes, at least 4 (a whole 32-bit word: no i8x2). Lanes are
/// `lanes[k]` on the host.
template <class T, int N>
struct alignas(sizeof(T) * N) VecElement {
  static_assert(Element<T>, "cutlet::algorithms::VecElement: lanes are numbers (Element), not bool or FP8");
  static_assert(N == 2 || N == 4 || N == 8, "cutlet::algorithms::VecElement has 2, 4 or 8 lanes, as Vec does");
  static_assert(sizeof(T) * N >= 4 && sizeof(T) * N <= 16,
                "cutlet::algorithms::VecElement holds 4 to 16 bytes (a whole 32-bit word, at most the widest access)");
  using lane_type = T;
  static constexpr int lane_count = N;
  T lanes[N];
};

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

/// Whether T is a VecElement.
template <class T>
inline constexpr bool is_vec_element_v = false;
template <class T, int N>
inline constexpr bool is_vec_element_v<VecElement<T, N>> = true;

/// What a user operator, predicate or comparator takes for an element of T: Vec<U, N> for a
/// VecElement<U, N>, held_t<T> (Value<T> or Struct<T>) otherwise.
template <class T>
struct op_arg {
  using type = held_t<T>;
};
template <class T>
  requires is_vec_element_v<T>
struct op_arg<T> {
  using type = Vec<typename T::lane_type, T::lane_count>;
};
template <class T>
using op_arg_t = typename op_arg<T>::type;

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
/// returns a Struct<T> value; for a VecElement<U, N>, op(Vec<U, N>, Vec<U, N>) returns a
/// Vec<U, N>. reduce needs it associative and commutative; the scans need it associative only
/// (it is applied in sequence order). It must have no side effects and be defined for every
/// pair of values (the algorithms also apply it to values they then discard).
template <class Op, class T>
concept BinaryOperator =
    Stateless<Op> && std::invocable<const Op&, detail::op_arg_t<T>, detail::op_arg_t<T>> &&
    std::convertible_to<std::invoke_result_t<const Op&, detail::op_arg_t<T>, detail::op_arg_t<T>>, detail::op_arg_t<T>>;

/// A predicate on T: pred(Value<T>) converts to Value<bool> (select_if keeps the items where
/// it is true); for a StructElement T, pred(Struct<T>) (pred(Vec<U, N>) for a
/// VecElement<U, N>). It must have no side effects and be defined for every value (the
/// algorithms also apply it to values they then discard).
template <class Op, class T>
concept UnaryPredicate = Stateless<Op> && std::invocable<const Op&, detail::op_arg_t<T>> &&
                         std::convertible_to<std::invoke_result_t<const Op&, detail::op_arg_t<T>>, Value<bool>>;

/// A binary predicate on T: eq(Value<T>, Value<T>) converts to Value<bool> (unique and
/// run_length_encode take it as the equality of neighbours, the merge sorts as the order);
/// for a StructElement T, pred(Struct<T>, Struct<T>) (Vec<U, N> for a VecElement<U, N>). No
/// side effects, defined for every pair of values.
template <class Op, class T>
concept BinaryPredicate =
    Stateless<Op> && std::invocable<const Op&, detail::op_arg_t<T>, detail::op_arg_t<T>> &&
    std::convertible_to<std::invoke_result_t<const Op&, detail::op_arg_t<T>, detail::op_arg_t<T>>, Value<bool>>;

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

/// The Vec<U, N> of a VecElement<U, N> value held as a struct's words.
template <class V>
  requires is_vec_element_v<V>
op_arg_t<V> vec_of(const Struct<V>& s) {
  using U = typename V::lane_type;
  const std::vector<Value<std::uint32_t>> words = s.words();
  op_arg_t<V> v = op_arg_t<V>::splat(cutlet::detail::extract_field<U>(words, 0));
  for (int k = 1; k < V::lane_count; ++k)
    v = v.with(k, cutlet::detail::extract_field<U>(words, k * static_cast<std::int64_t>(sizeof(U))));
  return v;
}

/// The struct value (words) of a Vec<U, N>, as a VecElement<U, N>.
template <class V>
  requires is_vec_element_v<V>
Struct<V> struct_of(const op_arg_t<V>& v) {
  using U = typename V::lane_type;
  std::vector<Value<std::uint32_t>> words(Struct<V>::word_count, Value<std::uint32_t>(0u));
  for (int k = 0; k < V::lane_count; ++k)
    cutlet::detail::insert_field<U>(words, k * static_cast<std::int64_t>(sizeof(U)), v[k]);
  return Struct<V>::from_words(std::move(words));
}

/// An element as a user operator takes it (op_arg_t<T>): a VecElement's Vec, else itself.
template <class T>
op_arg_t<T> op_arg_of(const held_t<T>& x) {
  if constexpr (is_vec_element_v<T>) return vec_of<T>(x);
  else return x;
}

/// An operator's result r as an element of Out: held_t<Out>(r), or for a VecElement Out the
/// struct value of the Vec r.
template <class Out, class R>
held_t<Out> held_of_result(const R& r) {
  if constexpr (is_vec_element_v<Out>) return struct_of<Out>(op_arg_t<Out>(r));
  else return held_t<Out>(r);
}

/// pred(x) as a Value<bool>, traced where it is called (x a Struct<T> for a struct, a Vec for
/// a VecElement).
template <class T, class Pred>
Value<bool> call_pred(const Pred& pred, const held_t<T>& x) {
  return Value<bool>(pred(op_arg_of<T>(x)));
}

/// eq(a, b) as a Value<bool>, traced where it is called.
template <class T, class Eq>
Value<bool> call_pred(const Eq& eq, const held_t<T>& a, const held_t<T>& b) {
  return Value<bool>(eq(op_arg_of<T>(a), op_arg_of<T>(b)));
}

/// op(a, b) as a Value<T> (a Struct<T> for a struct, also for a VecElement, whose operator
/// works on Vecs), traced where it is called (the operator's code is inlined).
template <class T, class Op>
held_t<T> call_op(const Op& op, const held_t<T>& a, const held_t<T>& b) {
  return held_of_result<T>(op(op_arg_of<T>(a), op_arg_of<T>(b)));
}

}  // namespace detail
}  // namespace cutlet::algorithms
