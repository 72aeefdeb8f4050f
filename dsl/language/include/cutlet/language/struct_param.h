// C++ structs of scalars passed to kernels by value, read field by field.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

#include "cutlet/language/value.h"

namespace cutlet {

/// A host type that can be passed to a kernel by value: a non-empty, trivially copyable,
/// standard-layout class (a C struct) whose fields are scalars (bool, integers, half,
/// bfloat16, float, double), C arrays of scalars, or such structs. Its bytes travel to the
/// kernel unchanged, laid out as the host compiler laid them out, as CUDA C++ passes a
/// struct parameter.
template <class S>
concept KernelStruct = std::is_class_v<S> && std::is_trivially_copyable_v<S> && std::is_standard_layout_v<S> &&
                       !std::is_empty_v<S>;

namespace detail {

/// The cutlet scalar type of a struct field of host type M (int -> int32_t, long -> int64_t),
/// void for a type that is not a scalar.
template <class M>
struct field_scalar {
  using type = void;
};
template <class M>
  requires std::is_arithmetic_v<M>
struct field_scalar<M> {
  using type = canonical_scalar_t<M>;
};
template <>
struct field_scalar<half> {
  using type = half;
};
template <>
struct field_scalar<bfloat16> {
  using type = bfloat16;
};

/// The byte offset of member `m` within S.
template <class S, class M>
std::int64_t member_offset(M S::*m) noexcept {
  alignas(S) static const unsigned char storage[sizeof(S)] = {};
  const S* s = reinterpret_cast<const S*>(storage);
  return reinterpret_cast<const unsigned char*>(&(s->*m)) - storage;
}

/// Reads the scalar of host type M at `offset` of struct parameter `record`.
template <class M>
Value<typename field_scalar<M>::type> read_field(ir::ValueId record, std::int64_t offset) {
  using T = typename field_scalar<M>::type;
  return Value<T>::wrap(builder("cutlet::Struct field").field(record, offset, ir_type_of<T>()));
}

[[noreturn]] void throw_field_index_error(std::size_t index, std::size_t extent);

}  // namespace detail

template <class S>
  requires KernelStruct<S>
class Struct;

/// A C array field `M a[N]` of a struct parameter: `a[k]` for a trace-time k reads one element.
template <class M, std::size_t N>
class StructArray {
 public:
  StructArray(ir::ValueId record, std::int64_t offset) : record_(record), offset_(offset) {}
  /// Element k (0 <= k < N, checked when traced): a Value for scalar elements, a Struct (or
  /// StructArray) for aggregate ones.
  auto operator[](std::size_t k) const {
    if (k >= N) detail::throw_field_index_error(k, N);
    const std::int64_t at = offset_ + static_cast<std::int64_t>(k * sizeof(M));
    if constexpr (std::is_array_v<M>) return StructArray<std::remove_extent_t<M>, std::extent_v<M>>(record_.get(), at);
    else if constexpr (std::is_class_v<M> && !std::is_same_v<typename detail::field_scalar<M>::type, M>)
      return Struct<M>(record_.get(), at);
    else return detail::read_field<M>(record_.get(), at);
  }
  static constexpr std::size_t size() { return N; }

 private:
  detail::TracedId record_;
  std::int64_t offset_;
};

/// A kernel parameter holding a KernelStruct S passed by value (CUDA C++'s `__global__ void
/// k(Params p)`): launch with an S, read its fields in the kernel with member pointers:
///
///     struct Params { float scale; int n; };
///     auto k = cutlet::kernel([](Struct<Params> p, Ptr<float> x) {
///       i32 i = thread_idx().x;
///       if_(i < p[&Params::n], [&] { x[i] = x[i] * p[&Params::scale]; });
///     });
///     k.launch(s, cfg, Params{2.0f, n}, x);
///
/// A generic lambda's `auto` parameter becomes a Struct<S> when launched with an S. Fields
/// are read from the kernel's parameter space when used (ld.param); nothing is copied to
/// device memory.
template <class S>
  requires KernelStruct<S>
class Struct {
 public:
  using struct_type = S;

  /// Field `m`: a Value of its scalar type (int -> i32, float -> f32, bool -> Value<bool>),
  /// a Struct for a nested struct, a StructArray for a C array.
  template <class M>
  auto operator[](M S::*m) const {
    const std::int64_t at = offset_ + detail::member_offset(m);
    if constexpr (std::is_array_v<M>) {
      return StructArray<std::remove_extent_t<M>, std::extent_v<M>>(record_.get(), at);
    } else if constexpr (!std::is_void_v<typename detail::field_scalar<M>::type>) {
      return detail::read_field<M>(record_.get(), at);
    } else {
      static_assert(KernelStruct<M>,
                    "cutlet: struct fields read in a kernel must be scalars, C arrays of scalars, or structs of them");
      return Struct<M>(record_.get(), at);
    }
  }

  /// The struct parameter of IR value `id` (made by the kernel's tracer).
  static Struct wrap(ir::ValueId id) { return Struct(id, 0); }
  /// The parameter this struct (or the struct it is nested in) lives in.
  ir::ValueId id() const { return record_.get(); }
  /// The struct's byte offset within that parameter.
  std::int64_t offset() const { return offset_; }

  Struct(ir::ValueId record, std::int64_t offset) : record_(record), offset_(offset) {}

 private:
  detail::TracedId record_;
  std::int64_t offset_;
};

}  // namespace cutlet
