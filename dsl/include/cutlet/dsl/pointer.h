// Traced pointers to global memory (Ptr<T>) and the element references that index them.
#pragma once

#include "cutlet/dsl/value.h"

namespace cutlet {

/// A reference to one element of memory, produced by Ptr<T>::operator[]. Reading it
/// (converting to Value<T> or using it in an expression) loads; assigning stores. Each
/// read loads again: `auto v = p[i]` keeps the reference, `cutlet::f32 v = p[i]` the value.
template <ScalarType T>
class ElementRef {
 public:
  using element_type = T;

  /// Loads the element.
  Value<T> load() const { return Value<T>::wrap(detail::builder().load(addr_)); }
  operator Value<T>() const { return load(); }  // NOLINT: implicit on purpose

  /// Stores `x` (of type T, a type that widens to T, or a host number).
  template <Operand X>
    requires(!std::is_same_v<std::remove_cvref_t<X>, ElementRef>)
  const ElementRef& operator=(const X& x) const {
    CUTLET_CHECK_PROMOTION(T, X);
    if constexpr (Traced<X>)
      static_assert(std::is_same_v<typename detail::promoted<T, traced_type_t<X>>::type, T>,
                    "cutlet: storing this value would narrow it; convert explicitly with cutlet::cast<T>");
    detail::builder().store(addr_, detail::operand_as<T>(x));
    return *this;
  }
  /// `p[i] = q[j]` copies the element (it does not rebind the reference).
  const ElementRef& operator=(const ElementRef& o) const { return *this = o.load(); }

  template <Operand X>
  const ElementRef& operator+=(const X& x) const { return *this = load() + x; }
  template <Operand X>
  const ElementRef& operator-=(const X& x) const { return *this = load() - x; }
  template <Operand X>
  const ElementRef& operator*=(const X& x) const { return *this = load() * x; }
  template <Operand X>
  const ElementRef& operator/=(const X& x) const { return *this = load() / x; }

  template <class U = void>
  explicit operator bool() const {
    static_assert(detail::always_false<U>,
                  "cutlet: a loaded element cannot be a C++ condition; use cutlet::if_ (see cutlet::Value)");
    return false;
  }

  /// The element's address.
  ir::ValueId address() const { return addr_; }
  static ElementRef at(ir::ValueId address) { return ElementRef(address); }

 private:
  explicit ElementRef(ir::ValueId addr) : addr_(addr) {}
  ir::ValueId addr_;
};

/// A pointer to elements of type T in global memory: the kernel-side view of a Buffer<T>
/// argument. Indexing (`p[i]`, any integer index, signed or unsigned) gives an ElementRef;
/// `p + i` gives the pointer i elements on. There is no bounds check.
template <ScalarType T>
class Ptr {
 public:
  using element_type = T;

  template <Operand I>
  ElementRef<T> operator[](const I& i) const {
    return ElementRef<T>::at(offset(i));
  }
  template <Operand I>
  Ptr operator+(const I& i) const {
    return wrap(offset(i));
  }

  ir::ValueId id() const { return id_; }
  static Ptr wrap(ir::ValueId id) { return Ptr(id); }

 private:
  explicit Ptr(ir::ValueId id) : id_(id) {}
  template <class I>
  ir::ValueId offset(const I& i) const {
    if constexpr (Traced<I>) {
      static_assert(std::is_integral_v<traced_type_t<I>> && !std::is_same_v<traced_type_t<I>, bool>,
                    "cutlet: a pointer index must be an integer");
      return detail::builder().ptr_add(id_, detail::as_value(i).id());
    } else {
      static_assert(std::is_integral_v<std::remove_cvref_t<I>> && !std::is_same_v<std::remove_cvref_t<I>, bool>,
                    "cutlet: a pointer index must be an integer");
      return detail::builder().ptr_add(id_, detail::constant<std::int64_t>(static_cast<std::int64_t>(i)));
    }
  }
  ir::ValueId id_;
};

}  // namespace cutlet
