// Data-dependent control flow: if_, for_range and while_ take lambdas for their bodies.
//
// C++ `if`/`for`/`while` over host values run at trace time (unrolling and
// specialization); these run on the GPU. Bodies are C++ lambdas, usually capturing by
// reference; variables they update must be cutlet::Var (see cutlet::Value).
#pragma once

#include <array>
#include <concepts>
#include <source_location>
#include <type_traits>
#include <vector>

#include "cutlet/language/value.h"

namespace cutlet {

namespace detail {

template <class Fn>
std::vector<ir::ValueId> run_region(Fn& fn, const std::source_location& where) {
  ScopeGuard scope(where);
  if constexpr (std::is_void_v<std::invoke_result_t<Fn&>>) {
    fn();
    return {};
  } else {
    return {fn()};
  }
}

}  // namespace detail

/// Runs `then_fn` on the threads where `cond` is true.
template <std::invocable Then>
void if_(const Value<bool>& cond, Then&& then_fn, std::source_location where = std::source_location::current()) {
  static_assert(std::is_void_v<std::invoke_result_t<Then&>>,
                "cutlet::if_ without an else branch cannot produce a value; add an else lambda");
  detail::set_location(where);
  detail::builder("cutlet::if_").if_(
      cond.id(), {}, [&](auto) { return detail::run_region(then_fn, where); }, {});
}

/// Runs `then_fn` where `cond` is true and `else_fn` elsewhere. When both return a value
/// (a traced value, or a host number on one side), if_ returns it as a Value of their
/// common type: `auto r = cutlet::if_(c, [&] { return a; }, [&] { return b; });`.
template <std::invocable Then, std::invocable Else>
  requires(!requires { std::remove_cvref_t<std::invoke_result_t<Then&>>::is_tile; })  // tiles: tile_control.h
auto if_(const Value<bool>& cond, Then&& then_fn, Else&& else_fn,
         std::source_location where = std::source_location::current()) {
  using R1 = std::remove_cvref_t<std::invoke_result_t<Then&>>;
  using R2 = std::remove_cvref_t<std::invoke_result_t<Else&>>;
  static_assert(std::is_void_v<R1> == std::is_void_v<R2>,
                "cutlet::if_: either both branches return a value or neither does");
  detail::set_location(where);
  auto& b = detail::builder("cutlet::if_");
  if constexpr (std::is_void_v<R1>) {
    b.if_(cond.id(), {}, [&](auto) { return detail::run_region(then_fn, where); },
          [&](auto) { return detail::run_region(else_fn, where); });
  } else {
    static_assert(Operand<R1> && Operand<R2> && (Traced<R1> || Traced<R2>),
                  "cutlet::if_: branches must return cutlet values (or one a host number)");
    CUTLET_CHECK_PROMOTION(R1, R2);
    using T = detail::common_t<R1, R2>;
    ir::Type t = detail::ir_type_of<T>();
    auto branch = [&](auto& fn) {
      return [&](auto) {
        detail::ScopeGuard scope(where);
        return std::vector<ir::ValueId>{detail::operand_as<T>(fn())};
      };
    };
    auto r = b.if_(cond.id(), std::span<const ir::Type>(&t, 1), branch(then_fn), branch(else_fn));
    return Value<T>::wrap(r[0]);
  }
}

/// A host condition: chooses the branch at trace time.
template <std::invocable Then>
void if_(bool cond, Then&& then_fn, std::source_location = std::source_location::current()) {
  if (cond) then_fn();
}

namespace detail {
template <class X>
struct index_of {
  using type = canonical_scalar_t<std::remove_cvref_t<X>>;
};
template <Traced X>
struct index_of<X> {
  using type = traced_type_t<X>;
};
template <class... Ts>
struct join;
template <class T>
struct join<T> {
  using type = T;
};
template <class A, class B>
struct join2 : std::common_type<A, B> {};
template <class A>
struct join2<A, void> {
  using type = A;
};
template <class B>
struct join2<void, B> {
  using type = B;
};
template <>
struct join2<void, void> {
  using type = void;
};
template <class A, class B, class... Rest>
struct join<A, B, Rest...> {
  using type = typename join<typename join2<A, B>::type, Rest...>::type;
};
/// The loop index type of a range: the traced bounds' type (host bounds adapt to it), or
/// the host bounds' common type when none is traced.
template <class... Xs>
struct range_index {
  static constexpr bool any_traced = (Traced<Xs> || ...);
  template <class X>
  using pick = std::conditional_t<!any_traced || Traced<X>, typename index_of<X>::type, void>;
  using type = typename join<pick<Xs>...>::type;
};
/// The bounds and step of a for_range as IR values of index type I (lb, ub, step), a
/// constant step of 0 refused.
template <class I, class B, class E, class S>
std::array<ir::ValueId, 3> range_bounds(const B& begin, const E& end, const S& step, const std::source_location& where) {
  set_location(where);
  auto& b = builder("cutlet::for_range");
  std::array<ir::ValueId, 3> r{operand_as<I>(begin), operand_as<I>(end), operand_as<I>(step)};
  if (auto s = b.int_constant(r[2]); s && *s == 0) throw_trace_error("cutlet::for_range with a step of 0", where);
  return r;
}
}  // namespace detail

/// `for (i = begin; i < end; i += step) body(i)` on the GPU (i > end for a negative
/// step); bounds may be traced values or host numbers. The index type is the traced
/// bounds' integer type (host bounds adapt), or the host bounds' type when all are host.
/// A step of 0 is rejected at trace time when it is a constant.
template <Operand B, Operand E, Operand S, class Body>
  requires(!std::invocable<S>)
void for_range(const B& begin, const E& end, const S& step, Body&& body,
               std::source_location where = std::source_location::current()) {
  using I = typename detail::range_index<B, E, S>::type;
  static_assert(std::is_integral_v<I> && !std::is_same_v<I, bool>, "cutlet::for_range needs integer bounds");
  static_assert(std::invocable<Body&, Value<I>>, "cutlet::for_range: the body must take the loop index");
  const auto [lb, ub, st] = detail::range_bounds<I>(begin, end, step, where);
  detail::builder().for_(lb, ub, st, {}, [&](std::span<const ir::ValueId> args) {
    detail::ScopeGuard scope(where);
    body(Value<I>::wrap(args[0]));
    return std::vector<ir::ValueId>{};
  });
}

/// `for (i = begin; i < end; ++i) body(i)` on the GPU.
template <Operand B, Operand E, class Body>
  requires std::invocable<Body&, Value<typename detail::range_index<B, E>::type>>
void for_range(const B& begin, const E& end, Body&& body, std::source_location where = std::source_location::current()) {
  using I = typename detail::range_index<B, E>::type;
  for_range(begin, end, static_cast<I>(1), body, where);
}

/// `for (i = 0; i < end; ++i) body(i)` on the GPU.
template <Operand E, class Body>
  requires std::invocable<Body&, Value<typename detail::range_index<E>::type>>
void for_range(const E& end, Body&& body, std::source_location where = std::source_location::current()) {
  using I = typename detail::range_index<E>::type;
  for_range(static_cast<I>(0), end, static_cast<I>(1), body, where);
}

/// `while (cond()) body();` on the GPU. `cond` returns a traced bool and is evaluated
/// before every iteration; state that changes between iterations lives in cutlet::Var.
template <std::invocable Cond, std::invocable Body>
void while_(Cond&& cond, Body&& body, std::source_location where = std::source_location::current()) {
  using C = std::remove_cvref_t<std::invoke_result_t<Cond&>>;
  static_assert(Traced<C> && std::is_same_v<traced_type_t<C>, bool>,
                "cutlet::while_: the condition lambda must return a traced bool, e.g. [&] { return i < n; }");
  detail::set_location(where);
  detail::builder("cutlet::while_").while_(
      {},
      [&](auto) {
        detail::ScopeGuard scope(where);
        return std::vector<ir::ValueId>{detail::as_value(cond()).id()};
      },
      [&](auto) { return detail::run_region(body, where); });
}

}  // namespace cutlet
