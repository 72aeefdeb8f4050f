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

#include "cutlet/dsl/math.h"
#include "cutlet/dsl/value.h"

namespace cutlet {

namespace detail {
/// The extents of traced value v: its tile shape, or empty for a scalar.
inline std::vector<std::int64_t> shape_of(ir::ValueId v) {
  ir::Type t = builder().function().type_of(v);
  return t.is_tile() ? std::vector<std::int64_t>(t.shape().begin(), t.shape().end()) : std::vector<std::int64_t>{};
}
}  // namespace detail

/// A tile: an array of T with a shape fixed at trace time (1 to 3 dimensions, each a power
/// of two), held by the whole block of a tile kernel. cutlet decides which thread holds
/// which elements. Arithmetic, comparisons and math apply elementwise and broadcast as NumPy
/// does (a dimension of extent 1, or a missing leading one, repeats); a scalar (a host number
/// or a Value<T>) broadcasts to every element. A rank-0 Tile is a single value (what a 1-D
/// reduction gives); `item()` turns it into a Value<T>.
template <ScalarType T>
class Tile {
 public:
  using element_type = T;
  static constexpr bool is_tile = true;

  /// Wraps an IR value of tile type (or of type T, for a rank-0 tile).
  static Tile wrap(ir::ValueId id) { return Tile(id); }
  /// A rank-0 tile holding v.
  Tile(const Value<T>& v) : id_(v.id()) {}  // NOLINT: implicit, scalars broadcast
  template <HostScalar U>
  Tile(U v) : id_(Value<T>(v).id()) {}  // NOLINT

  ir::ValueId id() const { return id_; }
  /// The extents (empty for rank 0).
  std::vector<std::int64_t> shape() const { return detail::shape_of(id_); }
  int rank() const { return static_cast<int>(shape().size()); }
  /// The value of a rank-0 tile.
  Value<T> item(std::source_location where = std::source_location::current()) const {
    if (rank() != 0) detail::throw_trace_error("item() needs a rank-0 tile (a reduction's result)", where);
    return Value<T>::wrap(id_);
  }

 private:
  explicit Tile(ir::ValueId id) : id_(id) {}
  ir::ValueId id_;
};

namespace detail {

/// The NumPy broadcast of two shapes; throws a trace error naming both when they do not fit.
std::vector<std::int64_t> broadcast_shapes(const std::vector<std::int64_t>& a, const std::vector<std::int64_t>& b,
                                           const std::source_location& where);
/// IR value x (a tile or a scalar) broadcast to `shape`.
ir::ValueId broadcast_value(ir::ValueId x, const std::vector<std::int64_t>& shape);

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

/// A Tile, or a scalar operand that broadcasts like one.
template <class X>
concept TileLike = detail::tile_info<std::remove_cvref_t<X>>::value;

namespace detail {
/// The element type of an elementwise operation between a and b (at least one a Tile).
template <class A, class B>
struct tile_common;
template <class T, class B>
struct tile_common<Tile<T>, B> {
  using type = T;
};
template <class A, class T>
  requires(!TileLike<A>)
struct tile_common<A, Tile<T>> {
  using type = T;
};

/// The IR value of operand x as an element type T (tiles must already be of T).
template <class T, class X>
ir::ValueId tile_operand(const X& x) {
  if constexpr (TileLike<X>) {
    static_assert(std::is_same_v<typename tile_info<std::remove_cvref_t<X>>::type, T>,
                  "cutlet: tiles of different element types; convert one with cutlet::cast<T>(tile)");
    return x.id();
  } else if constexpr (Traced<X>) {
    static_assert(std::is_same_v<traced_type_t<X>, T>,
                  "cutlet: a scalar of another element type than the tile's; convert it with cutlet::cast<T>");
    return operand_as<T>(x);
  } else {
    return constant<T>(x);
  }
}

/// Both operands broadcast to their common shape.
inline std::pair<ir::ValueId, ir::ValueId> broadcast_pair(ir::ValueId a, ir::ValueId b, const std::source_location& where) {
  auto shape = broadcast_shapes(shape_of(a), shape_of(b), where);
  if (shape.empty()) return {a, b};
  return {broadcast_value(a, shape), broadcast_value(b, shape)};
}

template <class A, class B, class F>
auto tile_binary(const A& a, const B& b, F&& op, const std::source_location& where) {
  using T = typename tile_common<std::remove_cvref_t<A>, std::remove_cvref_t<B>>::type;
  set_location(where);
  auto [x, y] = broadcast_pair(tile_operand<T>(a), tile_operand<T>(b), where);
  return op(x, y);
}
}  // namespace detail

#define CUTLET_TILE_BINARY(OP, OPCODE)                                                                      \
  template <class A, class B>                                                                               \
    requires(TileLike<A> || TileLike<B>) && (TileLike<A> || Operand<A>) && (TileLike<B> || Operand<B>)      \
  auto operator OP(const A& a, const B& b) {                                                                \
    using T = typename detail::tile_common<std::remove_cvref_t<A>, std::remove_cvref_t<B>>::type;           \
    return detail::tile_binary(                                                                             \
        a, b, [](ir::ValueId x, ir::ValueId y) { return Tile<T>::wrap(detail::builder().binary(OPCODE, x, y)); }, \
        std::source_location::current());                                                                   \
  }
CUTLET_TILE_BINARY(+, ir::Opcode::Add)
CUTLET_TILE_BINARY(-, ir::Opcode::Sub)
CUTLET_TILE_BINARY(*, ir::Opcode::Mul)
CUTLET_TILE_BINARY(/, ir::Opcode::Div)
CUTLET_TILE_BINARY(%, ir::Opcode::Rem)
CUTLET_TILE_BINARY(&, ir::Opcode::And)
CUTLET_TILE_BINARY(|, ir::Opcode::Or)
CUTLET_TILE_BINARY(^, ir::Opcode::Xor)
#undef CUTLET_TILE_BINARY

#define CUTLET_TILE_COMPARE(OP, PRED)                                                                       \
  template <class A, class B>                                                                               \
    requires(TileLike<A> || TileLike<B>) && (TileLike<A> || Operand<A>) && (TileLike<B> || Operand<B>)      \
  Tile<bool> operator OP(const A& a, const B& b) {                                                          \
    return detail::tile_binary(                                                                             \
        a, b, [](ir::ValueId x, ir::ValueId y) { return Tile<bool>::wrap(detail::builder().cmp(PRED, x, y)); }, \
        std::source_location::current());                                                                   \
  }
CUTLET_TILE_COMPARE(==, ir::Predicate::Eq)
CUTLET_TILE_COMPARE(!=, ir::Predicate::Ne)
CUTLET_TILE_COMPARE(<, ir::Predicate::Lt)
CUTLET_TILE_COMPARE(<=, ir::Predicate::Le)
CUTLET_TILE_COMPARE(>, ir::Predicate::Gt)
CUTLET_TILE_COMPARE(>=, ir::Predicate::Ge)
#undef CUTLET_TILE_COMPARE

template <ScalarType T>
Tile<T> operator-(const Tile<T>& a) {
  return Tile<T>::wrap(detail::builder().unary(ir::Opcode::Neg, a.id()));
}

/// 0, 1, ..., n-1 as an i32 tile (n a power of two): `arange(BLOCK)`.
Tile<std::int32_t> arange(std::int64_t n, std::source_location where = std::source_location::current());

/// A tile of `shape` with every element `value`.
template <ScalarType T, class V>
Tile<T> full(std::vector<std::int64_t> shape, const V& value, std::source_location where = std::source_location::current()) {
  detail::set_location(where);
  return Tile<T>::wrap(detail::builder("cutlet::full").tile_splat(detail::tile_operand<T>(value), shape));
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

/// Elementwise choice: `a` where `cond` is true, `b` elsewhere (all three broadcast).
template <class A, class B>
  requires(TileLike<A> || TileLike<B>)
auto where(const Tile<bool>& cond, const A& a, const B& b, std::source_location where = std::source_location::current()) {
  using T = typename detail::tile_common<std::remove_cvref_t<A>, std::remove_cvref_t<B>>::type;
  detail::set_location(where);
  auto [x, y] = detail::broadcast_pair(detail::tile_operand<T>(a), detail::tile_operand<T>(b), where);
  auto [c, x2] = detail::broadcast_pair(cond.id(), x, where);
  auto [c2, y2] = detail::broadcast_pair(c, y, where);
  return Tile<T>::wrap(detail::builder("cutlet::where").select(c2, x2, y2));
}

/// The tile converted elementwise to U (C++'s conversion rules, as cutlet::cast).
template <ScalarType U, ScalarType T>
Tile<U> cast(const Tile<T>& t) {
  return Tile<U>::wrap(detail::builder("cutlet::cast").cast(detail::ir_type_of<U>(), t.id()));
}

namespace detail {
template <ScalarType T>
Tile<T> tile_math(ir::MathFn fn, std::initializer_list<ir::ValueId> args) {
  return Tile<T>::wrap(builder("cutlet math").math(fn, std::vector<ir::ValueId>(args)));
}
ir::ValueId tile_reduce(ir::ReduceKind kind, ir::ValueId t, int axis, const std::source_location& where);
}  // namespace detail

#define CUTLET_TILE_MATH(NAME, FN)                              \
  template <ScalarType T>                                       \
  Tile<T> NAME(const Tile<T>& t) {                              \
    return detail::tile_math<T>(ir::MathFn::FN, {t.id()});      \
  }
CUTLET_TILE_MATH(exp, Exp)
CUTLET_TILE_MATH(exp2, Exp2)
CUTLET_TILE_MATH(log, Log)
CUTLET_TILE_MATH(log2, Log2)
CUTLET_TILE_MATH(sqrt, Sqrt)
CUTLET_TILE_MATH(rsqrt, Rsqrt)
CUTLET_TILE_MATH(sin, Sin)
CUTLET_TILE_MATH(cos, Cos)
CUTLET_TILE_MATH(tanh, Tanh)
CUTLET_TILE_MATH(abs, Fabs)
CUTLET_TILE_MATH(floor, Floor)
CUTLET_TILE_MATH(ceil, Ceil)
#undef CUTLET_TILE_MATH

/// Elementwise maximum and minimum of two tiles (or a tile and a scalar), broadcasting.
template <class A, class B>
  requires(TileLike<A> || TileLike<B>)
auto maximum(const A& a, const B& b, std::source_location where = std::source_location::current()) {
  using T = typename detail::tile_common<std::remove_cvref_t<A>, std::remove_cvref_t<B>>::type;
  return detail::tile_binary(
      a, b, [](ir::ValueId x, ir::ValueId y) { return Tile<T>::wrap(detail::builder().binary(ir::Opcode::Max, x, y)); },
      where);
}
template <class A, class B>
  requires(TileLike<A> || TileLike<B>)
auto minimum(const A& a, const B& b, std::source_location where = std::source_location::current()) {
  using T = typename detail::tile_common<std::remove_cvref_t<A>, std::remove_cvref_t<B>>::type;
  return detail::tile_binary(
      a, b, [](ir::ValueId x, ir::ValueId y) { return Tile<T>::wrap(detail::builder().binary(ir::Opcode::Min, x, y)); },
      where);
}

/// acc + a @ b for a [M, K], b [K, N] and an f32 acc [M, N]: f16 and bf16 inputs on tensor
/// cores (mma.sync) with f32 accumulation; f32 inputs exactly (FMA), or on tensor cores as
/// tf32 with `allow_tf32`. K >= 16; tensor cores need M a multiple of 16 and N of 8 per warp.
template <ScalarType T>
Tile<float> dot(const Tile<T>& a, const Tile<T>& b, const Tile<float>& acc, bool allow_tf32 = false,
                std::source_location where = std::source_location::current()) {
  detail::set_location(where);
  return Tile<float>::wrap(detail::builder("cutlet::dot").tile_dot(a.id(), b.id(), acc.id(), allow_tf32));
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
