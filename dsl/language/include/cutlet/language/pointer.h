// Traced pointers to global memory (Ptr<T>) and the element references that index them.
#pragma once

#include "cutlet/language/value.h"
#include "cutlet/language/vector.h"

namespace cutlet {

/// A reference to one element of memory, produced by Ptr<T>::operator[]. Reading it
/// (converting to Value<T> or using it in an expression) loads; assigning stores. Each
/// read loads again: `auto v = p[i]` keeps the reference, `cutlet::f32 v = p[i]` the value.
template <ScalarType T>
class ElementRef {
 public:
  using element_type = T;

  /// Loads the element.
  Value<T> load() const { return Value<T>::wrap(detail::builder().load(addr_.get())); }
  operator Value<T>() const { return load(); }  // NOLINT: implicit on purpose

  /// Stores `x` (of type T, a type that widens to T, or a host number).
  template <Operand X>
    requires(!std::is_same_v<std::remove_cvref_t<X>, ElementRef>)
  const ElementRef& operator=(const X& x) const {
    CUTLET_CHECK_PROMOTION(T, X);
    if constexpr (Traced<X>)
      static_assert(std::is_same_v<typename detail::promoted<T, traced_type_t<X>>::type, T>,
                    "cutlet: storing this value would narrow it; convert explicitly with cutlet::cast<T>");
    detail::builder().store(addr_.get(), detail::operand_as<T>(x));
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
  ir::ValueId address() const { return addr_.get(); }
  static ElementRef at(ir::ValueId address) { return ElementRef(address); }

 private:
  explicit ElementRef(ir::ValueId addr) : addr_(addr) {}
  detail::TracedId addr_;
};

/// A pointer to elements of type T in global memory (Space = Global: the kernel-side view of
/// a Buffer<T> argument), shared memory (shared_array, dynamic_shared) or a thread's local
/// memory (local_array). Indexing (`p[i]`, any integer index) gives an ElementRef; `p + i`
/// gives the pointer i elements on. There is no bounds check.
template <ScalarType T, ir::AddressSpace Space = ir::AddressSpace::Global>
class Ptr {
 public:
  using element_type = T;
  static constexpr ir::AddressSpace space = Space;

  template <Operand I>
  ElementRef<T> operator[](const I& i) const {
    return ElementRef<T>::at(offset(i));
  }
  template <Operand I>
  Ptr operator+(const I& i) const {
    return wrap(offset(i));
  }

  /// Loads element i with a cache hint: CacheHint::ReadOnly (ld.global.nc, for data no thread
  /// writes during the kernel), Streaming (.cs), LastUse (.lu), CacheGlobal (.cg).
  template <Operand I>
  Value<T> load(const I& i, ir::CacheHint hint) const {
    static_assert(Space == ir::AddressSpace::Global, "cutlet: cache hints apply to global memory");
    return Value<T>::wrap(detail::builder().load(offset(i), hint));
  }

  /// Loads the N elements [N*i, N*i + N) as one N-lane vector access (ld.global.v4.f32 for
  /// N = 4 floats): `p.vload<4>(i)` is CUDA's `reinterpret_cast<float4*>(p)[i]`. The address
  /// must be aligned to N * sizeof(T) bytes (Buffer memory is; offsets must keep it so).
  template <int N, Operand I>
  Vec<T, N> vload(const I& i, ir::CacheHint hint = ir::CacheHint::Default) const {
    return Vec<T, N>::wrap(detail::builder().vector_load(offset(scaled<N>(i)), N, hint));
  }
  /// Stores vector v to the N elements [N*i, N*i + N) in one access (aligned as for vload).
  template <int N, Operand I>
  void vstore(const I& i, const Vec<T, N>& v) const {
    detail::builder().vector_store(offset(scaled<N>(i)), v.id());
  }

  ir::ValueId id() const { return id_.get(); }
  static Ptr wrap(ir::ValueId id) { return Ptr(id); }

 private:
  explicit Ptr(ir::ValueId id) : id_(id) {}
  template <int N, class I>
  auto scaled(const I& i) const {
    if constexpr (Traced<I>) return i * N;
    else return static_cast<std::int64_t>(i) * N;
  }
  template <class I>
  ir::ValueId offset(const I& i) const {
    if constexpr (Traced<I>) {
      static_assert(std::is_integral_v<traced_type_t<I>> && !std::is_same_v<traced_type_t<I>, bool>,
                    "cutlet: a pointer index must be an integer");
      return detail::builder().ptr_add(id_.get(), detail::as_value(i).id());
    } else {
      static_assert(std::is_integral_v<std::remove_cvref_t<I>> && !std::is_same_v<std::remove_cvref_t<I>, bool>,
                    "cutlet: a pointer index must be an integer");
      return detail::builder().ptr_add(id_.get(), detail::constant<std::int64_t>(static_cast<std::int64_t>(i)));
    }
  }
  detail::TracedId id_;
};

/// A global pointer parameter declared not to alias any other pointer the kernel reads or
/// writes (C++'s __restrict__): the compiler may then keep loads in registers across stores
/// and read through the read-only data path (ld.global.nc). Passing overlapping buffers to
/// restrict parameters is undefined, as in CUDA C++. Use it as a kernel parameter type in
/// place of Ptr<T>; it indexes like one.
template <ScalarType T>
class RestrictPtr : public Ptr<T> {
 public:
  static RestrictPtr wrap(ir::ValueId id) { return RestrictPtr(Ptr<T>::wrap(id)); }

 private:
  explicit RestrictPtr(Ptr<T> p) : Ptr<T>(p) {}
};

/// A pointer to shared memory.
template <ScalarType T>
using SharedPtr = Ptr<T, ir::AddressSpace::Shared>;
/// A pointer to a thread's local memory.
template <ScalarType T>
using LocalPtr = Ptr<T, ir::AddressSpace::Local>;
/// Cache hints for Ptr::load and Ptr::vload.
using CacheHint = ir::CacheHint;

}  // namespace cutlet
