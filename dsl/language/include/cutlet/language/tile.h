// Tile values: block-level arrays with trace-time shapes, the values of tile kernels.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <span>
#include <tuple>
#include <utility>
#include <source_location>
#include <string>
#include <vector>

#include "cutlet/language/math.h"
#include "cutlet/language/value.h"

namespace cutlet {

namespace detail {
/// The extents of traced value v: its tile shape, or empty for a scalar.
inline std::vector<std::int64_t> shape_of(ir::ValueId v) {
  ir::Type t = builder().function().type_of(v);
  return t.is_tile() ? std::vector<std::int64_t>(t.shape().begin(), t.shape().end()) : std::vector<std::int64_t>{};
}
}  // namespace detail

template <ScalarType T>
class Tile;

namespace detail::located {
/// A tile operand of an operator, with the source location of the expression. Operators cannot
/// take a defaulted std::source_location, so the tile-taking operators take their tile
/// operands as TileOperand<T>: Tile<T> derives from it, so the parameter deduces T from a tile
/// argument (deduction through a base class), and the parameter is then initialized by the
/// converting constructor below, whose default argument is evaluated where the operator is
/// written. The namespace holds nothing else, so that it adds nothing to argument-dependent
/// lookup on tiles.
template <ScalarType T>
class TileOperand {
 public:
  template <class X>
    requires std::is_same_v<X, Tile<T>>
  TileOperand(const X& t, std::source_location where = std::source_location::current())  // NOLINT: implicit
      : id_(t.id()), where_(where) {}
  /// The tile's IR value.
  ir::ValueId id() const { return id_.get(); }
  /// Where the operator using this operand is written.
  const std::source_location& where() const { return where_; }

 protected:
  explicit TileOperand(ir::ValueId id) : id_(id) {}

 private:
  detail::TracedId id_;
  std::source_location where_;
};
}  // namespace detail::located

/// A tile: an array of T with a shape fixed at trace time (1 to 3 dimensions, each a power
/// of two), held by the whole block of a tile kernel. cutlet decides which thread holds
/// which elements. Arithmetic, comparisons and math apply elementwise and broadcast as NumPy
/// does (a dimension of extent 1, or a missing leading one, repeats); a scalar (a host number
/// or a Value<T>) broadcasts to every element. Element types promote as Values do (value.h):
/// a Tile<float> plus a Tile<int32_t> is a Tile<float>, a tile plus a host number has the
/// tile's type, and signed with unsigned integers does not compile. A rank-0 Tile is a single
/// value (what a 1-D reduction gives); `item()` turns it into a Value<T>.
template <ScalarType T>
class Tile : private detail::located::TileOperand<T> {
  using Located = detail::located::TileOperand<T>;

 public:
  using element_type = T;
  static constexpr bool is_tile = true;

  /// Wraps an IR value of tile type (or of type T, for a rank-0 tile).
  static Tile wrap(ir::ValueId id) { return Tile(id); }
  /// A rank-0 tile holding v.
  Tile(const Value<T>& v) : Located(v.id()) {}  // NOLINT: implicit, scalars broadcast
  template <HostScalar U>
  Tile(U v) : Located(Value<T>(v).id()) {}  // NOLINT

  ir::ValueId id() const { return Located::id(); }
  /// The extents (empty for rank 0).
  std::vector<std::int64_t> shape() const { return detail::shape_of(id()); }
  int rank() const { return static_cast<int>(shape().size()); }
  /// The value of a rank-0 tile.
  Value<T> item(std::source_location where = std::source_location::current()) const {
    if (rank() != 0) detail::throw_trace_error("item() needs a rank-0 tile (a reduction's result)", where);
    return Value<T>::wrap(id());
  }

 private:
  explicit Tile(ir::ValueId id) : Located(id) {}
};

namespace detail {

/// The NumPy broadcast of two shapes; throws a trace error naming both when they do not fit.
std::vector<std::int64_t> broadcast_shapes(const std::vector<std::int64_t>& a, const std::vector<std::int64_t>& b,
                                           const std::source_location& where);
/// IR value x (a tile or a scalar) broadcast to `shape`.
ir::ValueId broadcast_value(ir::ValueId x, const std::vector<std::int64_t>& shape);
/// `values` (tiles and scalars) broadcast to their common shape (unchanged when all are
/// scalars); throws a trace error at `where` when the shapes do not fit.
std::vector<ir::ValueId> broadcast_all(std::vector<ir::ValueId> values, const std::source_location& where);

template <class X>
struct tile_info {
  static constexpr bool value = false;
};
template <class T>
struct tile_info<Tile<T>> {
  static constexpr bool value = true;
  using type = T;
};
}  // namespace detail

/// A Tile (of any element type).
template <class X>
concept TileLike = detail::tile_info<std::remove_cvref_t<X>>::value;

/// Operands of an elementwise tile operation: tiles or scalars (Value, Var, host numbers),
/// at least one a tile.
template <class... Xs>
concept TileOperands = (TileLike<Xs> || ...) && ((TileLike<Xs> || Operand<Xs>) && ...);

namespace detail {

/// The element type of a tile operand (a Tile or an operator's TileOperand); no `type` for
/// scalars.
template <class X>
struct tile_element {};
template <class T>
struct tile_element<Tile<T>> {
  using type = T;
};
template <class T>
struct tile_element<located::TileOperand<T>> {
  using type = T;
};
template <class X>
concept tile_operand_type = requires { typename tile_element<std::remove_cvref_t<X>>::type; };

/// How an operand of a tile operation is typed: a tile as a Value of its element type, so
/// that value.h's promotion rules (common_t, CUTLET_CHECK_PROMOTION) apply to tiles as they
/// are; a scalar as itself.
template <class X>
struct tile_typed {
  using type = std::remove_cvref_t<X>;
};
template <tile_operand_type X>
struct tile_typed<X> {
  using type = Value<typename tile_element<std::remove_cvref_t<X>>::type>;
};
template <class X>
using tile_typed_t = typename tile_typed<X>::type;

/// The element type of an elementwise operation on a and b (value.h's common type).
template <class A, class B>
using tile_common_t = common_t<tile_typed_t<A>, tile_typed_t<B>>;

/// The IR value of operand x (a tile or a scalar) converted to element type T.
template <ScalarType T, class X>
ir::ValueId tile_operand(const X& x) {
  if constexpr (tile_operand_type<X>) {
    if constexpr (std::is_same_v<typename tile_element<X>::type, T>) return x.id();
    else return builder().cast(ir_type_of<T>(), x.id());
  } else {
    return operand_as<T>(x);
  }
}

/// The common element type of a math function's operands (one to three; at least one a tile).
template <class... Xs>
struct tile_math_common;
template <class A>
struct tile_math_common<A> {
  using type = traced_type_t<tile_typed_t<A>>;
};
template <class A, class B>
struct tile_math_common<A, B> {
  CUTLET_CHECK_PROMOTION(tile_typed_t<A>, tile_typed_t<B>);
  using type = tile_common_t<A, B>;
};
template <class A, class B, class C>
struct tile_math_common<A, B, C> {
  CUTLET_CHECK_PROMOTION(tile_typed_t<A>, tile_typed_t<B>);
  using AB = common_operand_t<tile_typed_t<A>, tile_typed_t<B>>;
  CUTLET_CHECK_PROMOTION(AB, tile_typed_t<C>);
  using type = common_t<AB, tile_typed_t<C>>;
};

/// Operands a and b (tiles or scalars) as element type T, broadcast to their common shape.
template <class T, class A, class B>
std::pair<ir::ValueId, ir::ValueId> tile_pair(const A& a, const B& b, const std::source_location& where) {
  set_location(where);
  const ir::ValueId x = tile_operand<T>(a);
  const ir::ValueId y = tile_operand<T>(b);
  auto v = broadcast_all({x, y}, where);
  return {v[0], v[1]};
}

/// The elementwise binary op `op` of a and b in element type T.
template <class T, class A, class B>
Tile<T> tile_binary(ir::Opcode op, const A& a, const B& b, const std::source_location& where) {
  auto [x, y] = tile_pair<T>(a, b, where);
  return Tile<T>::wrap(builder().binary(op, x, y));
}
/// The elementwise comparison `p` of a and b in element type T.
template <class T, class A, class B>
Tile<bool> tile_compare(ir::Predicate p, const A& a, const B& b, const std::source_location& where) {
  auto [x, y] = tile_pair<T>(a, b, where);
  return Tile<bool>::wrap(builder().cmp(p, x, y));
}
}  // namespace detail

/// Declares T_, the element type operands A and B promote to (value.h's rules, checked), and
/// applies the operator's own CHECK on it (value.h's CUTLET_NUMERIC_ONLY and the like).
#define CUTLET_TILE_OPERATOR_TYPE(A, B, CHECK)                                              \
  CUTLET_CHECK_PROMOTION(detail::tile_typed_t<A>, detail::tile_typed_t<B>);                 \
  using T_ = detail::tile_common_t<A, B>;                                                   \
  CHECK

// Elementwise arithmetic and comparisons of tiles with tiles or scalars, broadcasting, with
// Value's typing rules (including which operators take which types). One overload takes the
// right operand as a tile, the other a tile on the left with a scalar on the right; the tile
// operand's TileOperand records where the expression is written, for errors and the IR.
#define CUTLET_TILE_BINARY(OP, OPCODE, CHECK)                                                      \
  template <class A, ScalarType U>                                                                 \
    requires(TileLike<A> || Operand<A>)                                                            \
  Tile<detail::tile_common_t<A, Tile<U>>> operator OP(const A& a, detail::located::TileOperand<U> b) { \
    CUTLET_TILE_OPERATOR_TYPE(A, Tile<U>, CHECK);                                                  \
    return detail::tile_binary<T_>(OPCODE, a, b, b.where());                                       \
  }                                                                                                \
  template <ScalarType T, Operand B>                                                               \
  Tile<detail::tile_common_t<Tile<T>, B>> operator OP(detail::located::TileOperand<T> a, const B& b) { \
    CUTLET_TILE_OPERATOR_TYPE(Tile<T>, B, CHECK);                                                  \
    return detail::tile_binary<T_>(OPCODE, a, b, a.where());                                       \
  }
CUTLET_TILE_BINARY(+, ir::Opcode::Add, CUTLET_NUMERIC_ONLY)
CUTLET_TILE_BINARY(-, ir::Opcode::Sub, CUTLET_NUMERIC_ONLY)
CUTLET_TILE_BINARY(*, ir::Opcode::Mul, CUTLET_NUMERIC_ONLY)
CUTLET_TILE_BINARY(/, ir::Opcode::Div, CUTLET_NUMERIC_ONLY)
CUTLET_TILE_BINARY(%, ir::Opcode::Rem, CUTLET_INTEGER_ONLY)
CUTLET_TILE_BINARY(&, ir::Opcode::And, CUTLET_INT_OR_BOOL)
CUTLET_TILE_BINARY(|, ir::Opcode::Or, CUTLET_INT_OR_BOOL)
CUTLET_TILE_BINARY(^, ir::Opcode::Xor, CUTLET_INT_OR_BOOL)
#undef CUTLET_TILE_BINARY

#define CUTLET_TILE_COMPARE(OP, PRED)                                                              \
  template <class A, ScalarType U>                                                                 \
    requires(TileLike<A> || Operand<A>)                                                            \
  Tile<bool> operator OP(const A& a, detail::located::TileOperand<U> b) {                          \
    CUTLET_TILE_OPERATOR_TYPE(A, Tile<U>, );                                                       \
    return detail::tile_compare<T_>(PRED, a, b, b.where());                                        \
  }                                                                                                \
  template <ScalarType T, Operand B>                                                               \
  Tile<bool> operator OP(detail::located::TileOperand<T> a, const B& b) {                          \
    CUTLET_TILE_OPERATOR_TYPE(Tile<T>, B, );                                                       \
    return detail::tile_compare<T_>(PRED, a, b, a.where());                                        \
  }
CUTLET_TILE_COMPARE(==, ir::Predicate::Eq)
CUTLET_TILE_COMPARE(!=, ir::Predicate::Ne)
CUTLET_TILE_COMPARE(<, ir::Predicate::Lt)
CUTLET_TILE_COMPARE(<=, ir::Predicate::Le)
CUTLET_TILE_COMPARE(>, ir::Predicate::Gt)
CUTLET_TILE_COMPARE(>=, ir::Predicate::Ge)
#undef CUTLET_TILE_COMPARE
#undef CUTLET_TILE_OPERATOR_TYPE

/// Elementwise negation (numbers).
template <ScalarType T>
Tile<T> operator-(detail::located::TileOperand<T> a) {
  static_assert(!std::is_same_v<T, bool>, "cutlet: negating a bool tile; compare it instead (t == false)");
  detail::set_location(a.where());
  return Tile<T>::wrap(detail::builder().unary(ir::Opcode::Neg, a.id()));
}

/// 0, 1, ..., n-1 as an i32 tile (n a power of two): `arange(BLOCK)`.
Tile<std::int32_t> arange(std::int64_t n, std::source_location where = std::source_location::current());

/// A tile of `shape` with every element `value` (a host number, or a traced scalar of type T).
template <ScalarType T, class V>
Tile<T> full(std::vector<std::int64_t> shape, const V& value, std::source_location where = std::source_location::current()) {
  static_assert(Operand<V>, "cutlet::full takes a scalar value (a host number or a traced scalar)");
  if constexpr (Traced<V>)
    static_assert(std::is_same_v<traced_type_t<V>, T>,
                  "cutlet: a scalar of another element type than the tile's; convert it with cutlet::cast<T>");
  detail::set_location(where);
  return Tile<T>::wrap(detail::builder("cutlet::full").tile_splat(detail::operand_as<T>(value), shape));
}
/// A tile of `shape` of zeros.
template <ScalarType T>
Tile<T> zeros(std::vector<std::int64_t> shape, std::source_location where = std::source_location::current()) {
  return full<T>(std::move(shape), 0, where);
}

/// `t` with an extent-1 dimension inserted before `axis` (NumPy's expand_dims, `t[:, None]`
/// for axis 1 of a 1-D tile).
template <ScalarType T>
Tile<T> expand_dims(const Tile<T>& t, int axis, std::source_location where = std::source_location::current()) {
  detail::set_location(where);
  return Tile<T>::wrap(detail::builder("cutlet::expand_dims").tile_expand_dims(t.id(), axis));
}

/// `t` repeated along its extent-1 (or missing leading) dimensions to `shape`.
template <ScalarType T>
Tile<T> broadcast_to(const Tile<T>& t, std::vector<std::int64_t> shape,
                     std::source_location where = std::source_location::current()) {
  detail::set_location(where);
  auto target = detail::broadcast_shapes(t.shape(), shape, where);
  if (target != shape)
    detail::throw_trace_error("cannot broadcast a tile to a smaller shape", where);
  return Tile<T>::wrap(detail::broadcast_value(t.id(), shape));
}

/// `t` with its dimensions reordered: dimension d of the result is dimension perm[d] of t
/// (NumPy's transpose with axes). Moves the elements through shared memory.
template <ScalarType T>
Tile<T> permute(const Tile<T>& t, std::vector<int> perm, std::source_location where = std::source_location::current()) {
  detail::set_location(where);
  return Tile<T>::wrap(detail::builder("cutlet::permute").tile_permute(t.id(), perm));
}
/// The transpose of a 2-D tile.
template <ScalarType T>
Tile<T> transpose(const Tile<T>& t, std::source_location where = std::source_location::current()) {
  return permute(t, {1, 0}, where);
}
/// `t`'s elements, in row-major order, as a tile of `shape` (of the same size).
template <ScalarType T>
Tile<T> reshape(const Tile<T>& t, std::vector<std::int64_t> shape, std::source_location where = std::source_location::current()) {
  detail::set_location(where);
  return Tile<T>::wrap(detail::builder("cutlet::reshape").tile_reshape(t.id(), shape));
}

/// Elementwise choice: `a` where `cond` is true, `b` elsewhere (all three broadcast; a and b
/// promote to their common type as in arithmetic).
template <class A, class B>
  requires(TileLike<A> || TileLike<B>) && (TileLike<A> || Operand<A>) && (TileLike<B> || Operand<B>)
auto where(const Tile<bool>& cond, const A& a, const B& b, std::source_location where = std::source_location::current()) {
  CUTLET_CHECK_PROMOTION(detail::tile_typed_t<A>, detail::tile_typed_t<B>);
  using T = detail::tile_common_t<A, B>;
  detail::set_location(where);
  const ir::ValueId x = detail::tile_operand<T>(a);
  const ir::ValueId y = detail::tile_operand<T>(b);
  auto v = detail::broadcast_all({cond.id(), x, y}, where);
  return Tile<T>::wrap(detail::builder("cutlet::where").select(v[0], v[1], v[2]));
}

/// The tile converted elementwise to U (C++'s conversion rules, as cutlet::cast).
template <ScalarType U, ScalarType T>
Tile<U> cast(const Tile<T>& t, std::source_location where = std::source_location::current()) {
  detail::set_location(where);
  return Tile<U>::wrap(detail::builder("cutlet::cast").cast(detail::ir_type_of<U>(), t.id()));
}

namespace detail {
/// Math function Fn, elementwise, on operands xs (tiles and scalars, at least one a tile)
/// promoted to their common type and broadcast to their common shape.
template <ir::MathFn Fn, class... Xs>
Tile<math_result_t<Fn, typename tile_math_common<Xs...>::type>> tile_math(const std::source_location& where,
                                                                          const Xs&... xs) {
  using T = typename tile_math_common<Xs...>::type;
  static_assert(!std::is_same_v<T, half> && !std::is_same_v<T, bfloat16>,
                "cutlet math functions take f32/f64 tiles (convert 16-bit floats with cutlet::cast<float>(tile) first)");
  static_assert(std::is_same_v<T, half> || std::is_same_v<T, bfloat16> || math_defined_for<T>(Fn),
                "cutlet: this math function is not defined for the tile's element type (ir/math.def: the float "
                "functions take f32/f64, the integer ones i32/i64 and some u32/u64); convert with cutlet::cast<U>(tile)");
  set_location(where);
  std::vector<ir::ValueId> ids;
  (ids.push_back(tile_operand<T>(xs)), ...);  // in operand order
  ids = broadcast_all(std::move(ids), where);
  return Tile<math_result_t<Fn, T>>::wrap(builder(ir::math_fn_name(Fn)).math(Fn, ids));
}
ir::ValueId tile_reduce(ir::ReduceKind kind, ir::ValueId t, int axis, const std::source_location& where);
}  // namespace detail

// The math functions of math.h's CUTLET_MATH_FUNCTIONS (every entry of ir/math.def), on tiles:
// elementwise, CUDA's semantics per element (see math.h). Functions of two or three operands
// take tiles and scalars, promoted to their common type and broadcast as in arithmetic
// (`pow(t, 2.0f)`, `fma(a, b, 1.0f)`, `atan2(y, x)`); the classifications give Tile<bool>.
#define CUTLET_TILE_MATH_1(Fn, name)                                                                 \
  template <ScalarType T>                                                                            \
  Tile<detail::math_result_t<ir::MathFn::Fn, T>> name(const Tile<T>& x,                              \
                                                      std::source_location where = std::source_location::current()) { \
    return detail::tile_math<ir::MathFn::Fn>(where, x);                                              \
  }
#define CUTLET_TILE_MATH_2(Fn, name)                                                                 \
  template <class A, class B>                                                                        \
    requires TileOperands<A, B>                                                                      \
  auto name(const A& a, const B& b, std::source_location where = std::source_location::current()) { \
    return detail::tile_math<ir::MathFn::Fn>(where, a, b);                                           \
  }
#define CUTLET_TILE_MATH_3(Fn, name)                                                                 \
  template <class A, class B, class C>                                                               \
    requires TileOperands<A, B, C>                                                                   \
  auto name(const A& a, const B& b, const C& c, std::source_location where = std::source_location::current()) { \
    return detail::tile_math<ir::MathFn::Fn>(where, a, b, c);                                        \
  }
#define CUTLET_TILE_MATH(Fn, name, arity) CUTLET_TILE_MATH_##arity(Fn, name)
CUTLET_MATH_FUNCTIONS(CUTLET_TILE_MATH)
#undef CUTLET_TILE_MATH
#undef CUTLET_TILE_MATH_1
#undef CUTLET_TILE_MATH_2
#undef CUTLET_TILE_MATH_3

/// |x| elementwise: fabs for float tiles, abs for signed integer tiles (i32, i64).
template <ScalarType T>
Tile<T> abs(const Tile<T>& t, std::source_location where = std::source_location::current()) {
  if constexpr (detail::is_float_v<T>) return detail::tile_math<ir::MathFn::Fabs>(where, t);
  else return detail::tile_math<ir::MathFn::Abs>(where, t);
}

/// Elementwise funnel shifts of u32 tiles (or scalars, broadcast): the upper (left) or lower
/// (right) 32 bits of hi:lo shifted by (shift mod 32), as the Value functions in math.h.
template <class Lo, class Hi, class S>
  requires TileOperands<Lo, Hi, S>
auto funnel_shift_left(const Lo& lo, const Hi& hi, const S& shift,
                       std::source_location where = std::source_location::current()) {
  return detail::tile_math<ir::MathFn::FunnelShiftLeft>(where, hi, lo, shift);
}
template <class Lo, class Hi, class S>
  requires TileOperands<Lo, Hi, S>
auto funnel_shift_right(const Lo& lo, const Hi& hi, const S& shift,
                        std::source_location where = std::source_location::current()) {
  return detail::tile_math<ir::MathFn::FunnelShiftRight>(where, hi, lo, shift);
}

/// Elementwise maximum and minimum of two tiles (or a tile and a scalar), broadcasting and
/// promoting as arithmetic does (for floats: if one is NaN, the other).
template <class A, class B>
  requires TileOperands<A, B>
auto maximum(const A& a, const B& b, std::source_location where = std::source_location::current()) {
  CUTLET_CHECK_PROMOTION(detail::tile_typed_t<A>, detail::tile_typed_t<B>);
  return detail::tile_binary<detail::tile_common_t<A, B>>(ir::Opcode::Max, a, b, where);
}
template <class A, class B>
  requires TileOperands<A, B>
auto minimum(const A& a, const B& b, std::source_location where = std::source_location::current()) {
  CUTLET_CHECK_PROMOTION(detail::tile_typed_t<A>, detail::tile_typed_t<B>);
  return detail::tile_binary<detail::tile_common_t<A, B>>(ir::Opcode::Min, a, b, where);
}

/// acc + a @ b for a [M, K], b [K, N] and an f32 acc [M, N]: f16 and bf16 inputs on tensor
/// cores (mma.sync, wgmma on sm_90a) with f32 accumulation; f32 inputs exactly (FMA), or on
/// tensor cores as tf32 with `allow_tf32`; FP8 inputs on FP8 wgmma when both are K-major and
/// K is a multiple of 32, else converted to f16 (exact) first. K >= 16; tensor cores need M
/// a multiple of 16 and N of 8 per warp.
template <ScalarType T>
Tile<float> dot(const Tile<T>& a, const Tile<T>& b, const Tile<float>& acc, bool allow_tf32 = false,
                std::source_location where = std::source_location::current()) {
  detail::set_location(where);
  return Tile<float>::wrap(detail::builder("cutlet::dot").tile_dot(a.id(), b.id(), acc.id(), allow_tf32));
}
/// acc + a @ b for FP8 tiles of two formats (float8_e4m3 with float8_e5m2): as above.
template <ScalarType A, ScalarType B>
  requires(detail::is_fp8_v<A> && detail::is_fp8_v<B> && !std::same_as<A, B>)
Tile<float> dot(const Tile<A>& a, const Tile<B>& b, const Tile<float>& acc,
                std::source_location where = std::source_location::current()) {
  detail::set_location(where);
  return Tile<float>::wrap(detail::builder("cutlet::dot").tile_dot(a.id(), b.id(), acc.id(), false));
}
/// a @ b in f32 (see the three-operand dot).
template <ScalarType T>
Tile<float> dot(const Tile<T>& a, const Tile<T>& b, std::source_location where = std::source_location::current()) {
  auto m = a.shape().at(0), n = b.shape().at(1);
  return dot(a, b, full<float>({m, n}, 0.0f, where), false, where);
}

/// Reductions along `axis`: a tile without that dimension (rank 0 for a 1-D tile: use it as
/// a scalar or call item()). Combined in-thread, then across lanes by shuffles, then across
/// warps through shared memory; float sums are not in sequential order.
template <ScalarType T>
Tile<T> sum(const Tile<T>& t, int axis, std::source_location where = std::source_location::current()) {
  return Tile<T>::wrap(detail::tile_reduce(ir::ReduceKind::Sum, t.id(), axis, where));
}
template <ScalarType T>
Tile<T> prod(const Tile<T>& t, int axis, std::source_location where = std::source_location::current()) {
  return Tile<T>::wrap(detail::tile_reduce(ir::ReduceKind::Prod, t.id(), axis, where));
}
template <ScalarType T>
Tile<T> max(const Tile<T>& t, int axis, std::source_location where = std::source_location::current()) {
  return Tile<T>::wrap(detail::tile_reduce(ir::ReduceKind::Max, t.id(), axis, where));
}
template <ScalarType T>
Tile<T> min(const Tile<T>& t, int axis, std::source_location where = std::source_location::current()) {
  return Tile<T>::wrap(detail::tile_reduce(ir::ReduceKind::Min, t.id(), axis, where));
}

namespace detail {
/// Runs a user combine function over the region arguments `args` (N left, N right scalars).
template <class... Ts, class F, std::size_t... I>
std::vector<ir::ValueId> call_combine(F& combine, std::span<const ir::ValueId> args, std::index_sequence<I...>) {
  constexpr std::size_t n = sizeof...(Ts);
  auto r = combine(Value<Ts>::wrap(args[I])..., Value<Ts>::wrap(args[n + I])...);
  if constexpr (n == 1) {
    return {operand_as<Ts...>(r)};
  } else {
    return std::apply([](const auto&... v) { return std::vector<ir::ValueId>{as_value(v).id()...}; }, r);
  }
}

template <class... Ts, class F>
std::vector<ir::ValueId> combine_tiles(bool scan, const std::vector<ir::ValueId>& inputs, int axis, F& combine,
                                       const std::source_location& where) {
  set_location(where);
  auto& b = builder(scan ? "cutlet::scan" : "cutlet::reduce");
  const int rank = static_cast<int>(b.function().type_of(inputs[0]).shape().size());
  if (axis < 0) axis += rank;
  auto body = [&](std::span<const ir::ValueId> args) {
    ScopeGuard scope(where);
    return call_combine<Ts...>(combine, args, std::index_sequence_for<Ts...>{});
  };
  return scan ? b.tile_scan(inputs, axis, body) : b.tile_reduce_with(inputs, axis, body);
}
}  // namespace detail

/// Reduces `t` along `axis` with `combine(Value<T> a, Value<T> b) -> Value<T>`, which must
/// be associative (the order of combination is a tree): `reduce(t, 1, [](f32 a, f32 b) {
/// return max(a, b); })`. The result drops the axis (rank 0 for a 1-D tile).
template <ScalarType T, class F>
Tile<T> reduce(const Tile<T>& t, int axis, F&& combine, std::source_location where = std::source_location::current()) {
  return Tile<T>::wrap(detail::combine_tiles<T>(false, {t.id()}, axis, combine, where)[0]);
}
/// Reduces several tiles of one shape together: `combine(a0, a1, ..., b0, b1, ...)` gets the
/// left and the right tuples as Values and returns a std::tuple of Values (argmax pairs a
/// value with its index this way).
template <ScalarType... Ts, class F>
  requires(sizeof...(Ts) > 1)
std::tuple<Tile<Ts>...> reduce(const std::tuple<Tile<Ts>...>& tiles, int axis, F&& combine,
                               std::source_location where = std::source_location::current()) {
  std::vector<ir::ValueId> ids = std::apply([](const auto&... t) { return std::vector<ir::ValueId>{t.id()...}; }, tiles);
  auto r = detail::combine_tiles<Ts...>(false, ids, axis, combine, where);
  return [&]<std::size_t... I>(std::index_sequence<I...>) { return std::tuple<Tile<Ts>...>{Tile<Ts>::wrap(r[I])...}; }(
      std::index_sequence_for<Ts...>{});
}

/// Inclusive scan of `t` along `axis` with an associative `combine` (as in reduce): element
/// i is combine(t[0], ..., t[i]) in order, so non-commutative combines work.
template <ScalarType T, class F>
Tile<T> scan(const Tile<T>& t, int axis, F&& combine, std::source_location where = std::source_location::current()) {
  return Tile<T>::wrap(detail::combine_tiles<T>(true, {t.id()}, axis, combine, where)[0]);
}
/// Inclusive scans of several tiles together (see the tuple reduce).
template <ScalarType... Ts, class F>
  requires(sizeof...(Ts) > 1)
std::tuple<Tile<Ts>...> scan(const std::tuple<Tile<Ts>...>& tiles, int axis, F&& combine,
                             std::source_location where = std::source_location::current()) {
  std::vector<ir::ValueId> ids = std::apply([](const auto&... t) { return std::vector<ir::ValueId>{t.id()...}; }, tiles);
  auto r = detail::combine_tiles<Ts...>(true, ids, axis, combine, where);
  return [&]<std::size_t... I>(std::index_sequence<I...>) { return std::tuple<Tile<Ts>...>{Tile<Ts>::wrap(r[I])...}; }(
      std::index_sequence_for<Ts...>{});
}
/// Cumulative sum and product along `axis`.
template <ScalarType T>
Tile<T> cumsum(const Tile<T>& t, int axis, std::source_location where = std::source_location::current()) {
  return scan(t, axis, [](Value<T> a, Value<T> b) { return a + b; }, where);
}
template <ScalarType T>
Tile<T> cumprod(const Tile<T>& t, int axis, std::source_location where = std::source_location::current()) {
  return scan(t, axis, [](Value<T> a, Value<T> b) { return a * b; }, where);
}

namespace detail {
/// The index along `axis` of every element of a tile of `shape`.
Tile<std::int32_t> axis_index(const std::vector<std::int64_t>& shape, int axis, const std::source_location& where);
}  // namespace detail

/// The index of the largest (argmax) or smallest (argmin) element along `axis`; the first
/// one on ties. NaNs are never chosen over numbers.
template <ScalarType T>
Tile<std::int32_t> argmax(const Tile<T>& t, int axis, std::source_location where = std::source_location::current()) {
  auto idx = detail::axis_index(t.shape(), axis < 0 ? axis + t.rank() : axis, where);
  auto r = reduce(std::tuple{t, idx}, axis,
                  [](Value<T> v1, Value<std::int32_t> i1, Value<T> v2, Value<std::int32_t> i2) {
                    Value<bool> right = (v2 > v1) | ((v2 == v1) & (i2 < i1));
                    return std::tuple{select(right, v2, v1), select(right, i2, i1)};
                  },
                  where);
  return std::get<1>(r);
}
template <ScalarType T>
Tile<std::int32_t> argmin(const Tile<T>& t, int axis, std::source_location where = std::source_location::current()) {
  auto idx = detail::axis_index(t.shape(), axis < 0 ? axis + t.rank() : axis, where);
  auto r = reduce(std::tuple{t, idx}, axis,
                  [](Value<T> v1, Value<std::int32_t> i1, Value<T> v2, Value<std::int32_t> i2) {
                    Value<bool> right = (v2 < v1) | ((v2 == v1) & (i2 < i1));
                    return std::tuple{select(right, v2, v1), select(right, i2, i1)};
                  },
                  where);
  return std::get<1>(r);
}

}  // namespace cutlet
