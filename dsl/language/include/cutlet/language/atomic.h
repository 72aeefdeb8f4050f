// Atomic read-modify-write operations on global and shared memory, with scope and order.
#pragma once

#include <array>
#include <source_location>
#include <span>

#include "cutlet/language/pointer.h"

namespace cutlet {

/// Which threads an atomic is atomic with respect to (CUDA's thread scopes): the block
/// (`atomicAdd_block`), the device (`atomicAdd`, the default) or the system (`atomicAdd_system`).
using Scope = ir::MemoryScope;
/// Memory ordering of an atomic, with C++ semantics; Relaxed is CUDA's atomicAdd.
using Order = ir::MemoryOrder;

// Every atomic takes, last, the user's source line (defaulted): an atomic that the element
// type does not have (atomic_add on an i16, atomic_min on an f32, any atomic on a local_array)
// is an IRError naming that line.

namespace detail {
/// The atomic `kind` on `ref` with operands `xs`, attributed to the user's line `where` (an
/// atomic on a type without one is an IRError naming it).
template <class T, class... Xs>
Value<T> atomic_rmw(ir::AtomicKind kind, const ElementRef<T>& ref, Scope scope, Order order,
                    const std::source_location& where, const Xs&... xs) {
  set_location(where);
  const std::array<ir::ValueId, sizeof...(Xs)> values{operand_as<T>(xs)...};
  return Value<T>::wrap(
      builder("a cutlet atomic").atomic(kind, ref.address(), std::span<const ir::ValueId>(values), scope, order));
}
}  // namespace detail

/// Reads the element atomically (never torn; `ld.relaxed` or `ld.acquire`): with
/// Order::Acquire, what the thread that wrote the value (with a release) wrote before it is
/// visible after. Relaxed or Acquire only; 32- and 64-bit integers and floats. The way to wait
/// for a flag another block publishes: many threads may read it at once, where atomic_or(x, 0)
/// would queue them at the L2 as writes.
template <ScalarType T>
Value<T> atomic_load(const ElementRef<T>& ref, Scope scope = Scope::Device, Order order = Order::Acquire,
                     std::source_location where = std::source_location::current()) {
  return detail::atomic_rmw(ir::AtomicKind::Load, ref, scope, order, where);
}
/// Atomically adds `v` to the element and returns the old value: `atomic_add(hist[b], 1)`.
/// Integers (32/64-bit, wrapping), f32/f64, and f16/bf16 (`y[i]` of a Ptr<half>).
template <ScalarType T, Operand X>
Value<T> atomic_add(const ElementRef<T>& ref, const X& v, Scope scope = Scope::Device, Order order = Order::Relaxed,
                    std::source_location where = std::source_location::current()) {
  return detail::atomic_rmw(ir::AtomicKind::Add, ref, scope, order, where, v);
}
/// Atomically subtracts `v`; returns the old value.
template <ScalarType T, Operand X>
Value<T> atomic_sub(const ElementRef<T>& ref, const X& v, Scope scope = Scope::Device, Order order = Order::Relaxed,
                    std::source_location where = std::source_location::current()) {
  return detail::atomic_rmw(ir::AtomicKind::Sub, ref, scope, order, where, v);
}
/// Atomically stores min(old, v) (integers, by their signedness); returns the old value.
template <ScalarType T, Operand X>
Value<T> atomic_min(const ElementRef<T>& ref, const X& v, Scope scope = Scope::Device, Order order = Order::Relaxed,
                    std::source_location where = std::source_location::current()) {
  return detail::atomic_rmw(ir::AtomicKind::Min, ref, scope, order, where, v);
}
/// Atomically stores max(old, v) (integers); returns the old value.
template <ScalarType T, Operand X>
Value<T> atomic_max(const ElementRef<T>& ref, const X& v, Scope scope = Scope::Device, Order order = Order::Relaxed,
                    std::source_location where = std::source_location::current()) {
  return detail::atomic_rmw(ir::AtomicKind::Max, ref, scope, order, where, v);
}
/// Atomic bitwise and/or/xor (integers); return the old value.
template <ScalarType T, Operand X>
Value<T> atomic_and(const ElementRef<T>& ref, const X& v, Scope scope = Scope::Device, Order order = Order::Relaxed,
                    std::source_location where = std::source_location::current()) {
  return detail::atomic_rmw(ir::AtomicKind::And, ref, scope, order, where, v);
}
template <ScalarType T, Operand X>
Value<T> atomic_or(const ElementRef<T>& ref, const X& v, Scope scope = Scope::Device, Order order = Order::Relaxed,
                   std::source_location where = std::source_location::current()) {
  return detail::atomic_rmw(ir::AtomicKind::Or, ref, scope, order, where, v);
}
template <ScalarType T, Operand X>
Value<T> atomic_xor(const ElementRef<T>& ref, const X& v, Scope scope = Scope::Device, Order order = Order::Relaxed,
                    std::source_location where = std::source_location::current()) {
  return detail::atomic_rmw(ir::AtomicKind::Xor, ref, scope, order, where, v);
}
/// Atomically stores `v`; returns the old value.
template <ScalarType T, Operand X>
Value<T> atomic_exchange(const ElementRef<T>& ref, const X& v, Scope scope = Scope::Device,
                         Order order = Order::Relaxed, std::source_location where = std::source_location::current()) {
  return detail::atomic_rmw(ir::AtomicKind::Exchange, ref, scope, order, where, v);
}
/// Atomically stores `desired` if the element equals `expected` (bitwise for floats);
/// returns the old value either way (`atomicCAS`).
template <ScalarType T, Operand X, Operand Y>
Value<T> atomic_cas(const ElementRef<T>& ref, const X& expected, const Y& desired, Scope scope = Scope::Device,
                    Order order = Order::Relaxed, std::source_location where = std::source_location::current()) {
  return detail::atomic_rmw(ir::AtomicKind::CompareExchange, ref, scope, order, where, expected, desired);
}

}  // namespace cutlet
