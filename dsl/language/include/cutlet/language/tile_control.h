// Control flow of tile kernels: loops that carry tiles from one iteration to the next, and
// branches that produce tiles.
#pragma once

#include <source_location>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "cutlet/language/control.h"
#include "cutlet/language/tile.h"

namespace cutlet {

namespace detail {
template <class X>
struct is_tile_tuple : std::false_type {};
template <class... Ts>
struct is_tile_tuple<std::tuple<Tile<Ts>...>> : std::true_type {};

template <class... Ts>
std::vector<ir::ValueId> tile_ids(const std::tuple<Tile<Ts>...>& t) {
  return std::apply([](const auto&... x) { return std::vector<ir::ValueId>{x.id()...}; }, t);
}
template <class Tuple, std::size_t... I>
Tuple wrap_tiles(std::span<const ir::ValueId> ids, std::index_sequence<I...>) {
  return Tuple{std::tuple_element_t<I, Tuple>::wrap(ids[I])...};
}
}  // namespace detail

/// A loop `for (i = begin; i < end; i += step)` on the GPU that carries tiles: `init` (a Tile
/// or a std::tuple of Tiles) is the value before the first iteration, `body(i, carried...)`
/// returns the next (a Tile, or a tuple in the same order and types), and the loop returns
/// the last. The bounds must be the same on every thread of the block (program ids,
/// parameters, constants), as in Triton:
///
///     auto acc = cutlet::for_range(0, K, 32, cutlet::zeros<float>({64, 64}),
///                                  [&](i32 k, Tile<float> acc) { return cutlet::dot(a(k), b(k), acc); });
template <Operand B, Operand E, Operand S, class Init, class Body>
  requires(TileLike<Init> || detail::is_tile_tuple<Init>::value)
Init for_range(const B& begin, const E& end, const S& step, const Init& init, Body&& body,
               std::source_location where = std::source_location::current()) {
  using I = typename detail::range_index<B, E, S>::type;
  const auto [lb, ub, st] = detail::range_bounds<I>(begin, end, step, where);
  constexpr bool single = TileLike<Init>;
  std::vector<ir::ValueId> init_ids;
  if constexpr (single) init_ids = {init.id()};
  else init_ids = detail::tile_ids(init);
  auto results = detail::builder().for_(lb, ub, st, init_ids, [&](std::span<const ir::ValueId> args) {
    detail::ScopeGuard scope(where);
    std::vector<ir::ValueId> ids;
    if constexpr (single) {
      ids = {Init(body(Value<I>::wrap(args[0]), Init::wrap(args[1]))).id()};
    } else {
      auto carried = detail::wrap_tiles<Init>(args.subspan(1), std::make_index_sequence<std::tuple_size_v<Init>>{});
      ids = detail::tile_ids(std::apply([&](const auto&... c) { return Init(body(Value<I>::wrap(args[0]), c...)); }, carried));
    }
    for (std::size_t k = 0; k < ids.size(); ++k)
      if (detail::builder().function().type_of(ids[k]) != detail::builder().function().type_of(args[k + 1]))
        detail::throw_trace_error("for_range: the body returns a tile of another shape than the carried one", where);
    return ids;
  });
  if constexpr (single) return Init::wrap(results[0]);
  else return detail::wrap_tiles<Init>(results, std::make_index_sequence<std::tuple_size_v<Init>>{});
}

/// `cond ? then_fn() : else_fn()` for tiles: both branches return a Tile of one shape and
/// type; `cond` must be the same on every thread of the block.
template <std::invocable Then, std::invocable Else>
  requires TileLike<std::invoke_result_t<Then&>>
auto if_(const Value<bool>& cond, Then&& then_fn, Else&& else_fn, std::source_location where = std::source_location::current()) {
  using R = std::remove_cvref_t<std::invoke_result_t<Then&>>;
  static_assert(std::is_same_v<R, std::remove_cvref_t<std::invoke_result_t<Else&>>>,
                "cutlet::if_: both branches must return tiles of one element type");
  detail::set_location(where);
  auto& b = detail::builder("cutlet::if_");
  // The result type is the then-branch's tile type, known once it is traced (the builder
  // checks the yields against it after each branch).
  ir::Type types[1] = {ir::Type::void_type()};
  ir::Type& t = types[0];
  auto results = b.if_(
      cond.id(), std::span<const ir::Type>(types, 1),
      [&](auto) {
        detail::ScopeGuard scope(where);
        R r = then_fn();
        t = detail::builder().function().type_of(r.id());
        return std::vector<ir::ValueId>{r.id()};
      },
      [&](auto) {
        detail::ScopeGuard scope(where);
        R r = else_fn();
        if (detail::builder().function().type_of(r.id()) != t)
          detail::throw_trace_error("if_: the branches return tiles of different shapes", where);
        return std::vector<ir::ValueId>{r.id()};
      });
  return R::wrap(results.at(0));
}

}  // namespace cutlet
