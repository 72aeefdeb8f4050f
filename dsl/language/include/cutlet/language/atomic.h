// Atomic read-modify-write operations on global and shared memory, with scope and order.
#pragma once

#include "cutlet/language/pointer.h"

namespace cutlet {

/// Which threads an atomic is atomic with respect to (CUDA's thread scopes): the block
/// (`atomicAdd_block`), the device (`atomicAdd`, the default) or the system (`atomicAdd_system`).
using Scope = ir::MemoryScope;
/// Memory ordering of an atomic, with C++ semantics; Relaxed is CUDA's atomicAdd.
using Order = ir::MemoryOrder;

namespace detail {
template <class T, class... Xs>
Value<T> atomic_rmw(ir::AtomicKind kind, const ElementRef<T>& ref, Scope scope, Order order, const Xs&... xs) {
  ir::ValueId values[] = {operand_as<T>(xs)...};
  return Value<T>::wrap(builder("a cutlet atomic").atomic(kind, ref.address(), values, scope, order));
}
}  // namespace detail

/// Atomically adds `v` to the element and returns the old value: `atomic_add(hist[b], 1)`.
/// Integers (32/64-bit, wrapping), f32/f64, and f16/bf16 (`y[i]` of a Ptr<half>).
template <ScalarType T, Operand X>
Value<T> atomic_add(const ElementRef<T>& ref, const X& v, Scope scope = Scope::Device, Order order = Order::Relaxed) {
  return detail::atomic_rmw(ir::AtomicKind::Add, ref, scope, order, v);
}
/// Atomically subtracts `v`; returns the old value.
template <ScalarType T, Operand X>
Value<T> atomic_sub(const ElementRef<T>& ref, const X& v, Scope scope = Scope::Device, Order order = Order::Relaxed) {
  return detail::atomic_rmw(ir::AtomicKind::Sub, ref, scope, order, v);
}
/// Atomically stores min(old, v) (integers, by their signedness); returns the old value.
template <ScalarType T, Operand X>
Value<T> atomic_min(const ElementRef<T>& ref, const X& v, Scope scope = Scope::Device, Order order = Order::Relaxed) {
  return detail::atomic_rmw(ir::AtomicKind::Min, ref, scope, order, v);
}
/// Atomically stores max(old, v) (integers); returns the old value.
template <ScalarType T, Operand X>
Value<T> atomic_max(const ElementRef<T>& ref, const X& v, Scope scope = Scope::Device, Order order = Order::Relaxed) {
  return detail::atomic_rmw(ir::AtomicKind::Max, ref, scope, order, v);
}
/// Atomic bitwise and/or/xor (integers); return the old value.
template <ScalarType T, Operand X>
Value<T> atomic_and(const ElementRef<T>& ref, const X& v, Scope scope = Scope::Device, Order order = Order::Relaxed) {
  return detail::atomic_rmw(ir::AtomicKind::And, ref, scope, order, v);
}
template <ScalarType T, Operand X>
Value<T> atomic_or(const ElementRef<T>& ref, const X& v, Scope scope = Scope::Device, Order order = Order::Relaxed) {
  return detail::atomic_rmw(ir::AtomicKind::Or, ref, scope, order, v);
}
template <ScalarType T, Operand X>
Value<T> atomic_xor(const ElementRef<T>& ref, const X& v, Scope scope = Scope::Device, Order order = Order::Relaxed) {
  return detail::atomic_rmw(ir::AtomicKind::Xor, ref, scope, order, v);
}
/// Atomically stores `v`; returns the old value.
template <ScalarType T, Operand X>
Value<T> atomic_exchange(const ElementRef<T>& ref, const X& v, Scope scope = Scope::Device, Order order = Order::Relaxed) {
  return detail::atomic_rmw(ir::AtomicKind::Exchange, ref, scope, order, v);
}
/// Atomically stores `desired` if the element equals `expected` (bitwise for floats);
/// returns the old value either way (`atomicCAS`).
template <ScalarType T, Operand X, Operand Y>
Value<T> atomic_cas(const ElementRef<T>& ref, const X& expected, const Y& desired, Scope scope = Scope::Device,
                    Order order = Order::Relaxed) {
  return detail::atomic_rmw(ir::AtomicKind::CompareExchange, ref, scope, order, expected, desired);
}

}  // namespace cutlet
