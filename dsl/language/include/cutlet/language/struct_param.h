// C++ structs of scalars in kernels: passed to kernels by value and read field by field, or
// held in registers as struct values (an algorithm's elements, an operator's result).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

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
[[noreturn]] void throw_struct_value_field_error(const char* what);

/// Field of host type M (scalar T = field_scalar<M>) at byte offset `at` of a struct value
/// held as 32-bit words: the word (4 bytes), two words (8), or the bytes within one (1, 2).
template <class M>
Value<typename field_scalar<M>::type> extract_field(const std::vector<Value<std::uint32_t>>& words, std::int64_t at) {
  using T = typename field_scalar<M>::type;
  const std::size_t w = static_cast<std::size_t>(at / 4);
  if constexpr (sizeof(T) == 8) {
    if (at % 4 != 0) throw_struct_value_field_error("an 8-byte field at an offset that is not a multiple of 4");
    Value<std::uint64_t> lo = cast<std::uint64_t>(words[w]);
    Value<std::uint64_t> hi = cast<std::uint64_t>(words[w + 1]);
    return bitcast<T>(lo | (hi << 32));
  } else if constexpr (sizeof(T) == 4) {
    if (at % 4 != 0) throw_struct_value_field_error("a 4-byte field at an offset that is not a multiple of 4");
    if constexpr (std::is_same_v<T, std::uint32_t>) return words[w];
    else return bitcast<T>(words[w]);
  } else {
    Value<std::uint32_t> shifted = words[w] >> static_cast<std::uint32_t>(8 * (at % 4));
    if constexpr (std::is_same_v<T, bool>) {
      return (shifted & 0xffu) != 0u;
    } else if constexpr (sizeof(T) == 2) {
      if (at % 2 != 0) throw_struct_value_field_error("a 2-byte field at an odd offset");
      Value<std::uint16_t> bits = cast<std::uint16_t>(shifted);
      if constexpr (std::is_same_v<T, std::uint16_t>) return bits;
      else return bitcast<T>(bits);
    } else {
      Value<std::uint8_t> bits = cast<std::uint8_t>(shifted);
      if constexpr (std::is_same_v<T, std::uint8_t>) return bits;
      else return bitcast<T>(bits);
    }
  }
}

/// Stores `v` (scalar T) as the field at byte offset `at` of a struct value held as words:
/// the other bytes of its words are kept.
template <class T>
void insert_field(std::vector<Value<std::uint32_t>>& words, std::int64_t at, const Value<T>& v) {
  const std::size_t w = static_cast<std::size_t>(at / 4);
  if constexpr (sizeof(T) == 8) {
    if (at % 4 != 0) throw_struct_value_field_error("an 8-byte field at an offset that is not a multiple of 4");
    Value<std::uint64_t> bits = bitcast<std::uint64_t>(v);
    words[w] = cast<std::uint32_t>(bits);
    words[w + 1] = cast<std::uint32_t>(bits >> 32);
  } else if constexpr (sizeof(T) == 4) {
    if (at % 4 != 0) throw_struct_value_field_error("a 4-byte field at an offset that is not a multiple of 4");
    if constexpr (std::is_same_v<T, std::uint32_t>) words[w] = v;
    else words[w] = bitcast<std::uint32_t>(v);
  } else {
    const std::uint32_t shift = static_cast<std::uint32_t>(8 * (at % 4));
    const std::uint32_t mask = (sizeof(T) == 2 ? 0xffffu : 0xffu) << shift;
    Value<std::uint32_t> bits = 0u;
    if constexpr (std::is_same_v<T, bool>) bits = select(v, 1u, 0u);
    else if constexpr (sizeof(T) == 2) bits = cast<std::uint32_t>(bitcast<std::uint16_t>(v));
    else bits = cast<std::uint32_t>(bitcast<std::uint8_t>(v));
    words[w] = (words[w] & ~mask) | (bits << shift);
  }
}

}  // namespace detail

/// A struct that can be a value in registers (Struct<S>::from_words, an algorithm's
/// element): a KernelStruct whose size is a whole number of 32-bit words (add a padding field
/// otherwise). Its fields are read and written as the bytes the host compiler laid out.
template <class S>
concept StructValue = KernelStruct<S> && sizeof(S) % 4 == 0;

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
///
/// A Struct is also a struct *value* (S a StructValue): sizeof(S) / 4 traced 32-bit words in
/// registers, made by from_words (or words() of a parameter), read with the same operator[],
/// changed field by field with set / with, chosen with select. This is what algorithms hand
/// a user operator over struct elements:
///
///     struct Stats { float lo, hi, sum; };
///     auto op = [](Struct<Stats> a, Struct<Stats> b) {
///       return a.with(&Stats::lo, min(a[&Stats::lo], b[&Stats::lo]))
///           .with(&Stats::hi, max(a[&Stats::hi], b[&Stats::hi]))
///           .with(&Stats::sum, a[&Stats::sum] + b[&Stats::sum]);
///     };
///
/// A value's fields are scalars or nested structs; C array fields are read from parameters
/// only.
template <class S>
  requires KernelStruct<S>
class Struct {
 public:
  using struct_type = S;
  /// 32-bit words of a struct value of S.
  static constexpr std::size_t word_count = (sizeof(S) + 3) / 4;

  /// Field `m`: a Value of its scalar type (int -> i32, float -> f32, bool -> Value<bool>),
  /// a Struct for a nested struct, a StructArray for a C array.
  template <class M>
  auto operator[](M S::*m) const {
    const std::int64_t field = detail::member_offset(m);
    if (is_value()) return value_field<M>(field);
    const std::int64_t at = offset_ + field;
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

  /// The struct value of `words` (word_count 32-bit words, the struct's bytes in order, as
  /// a load of the struct from memory gives them).
  static Struct from_words(std::vector<Value<std::uint32_t>> words)
    requires StructValue<S>
  {
    if (words.size() != word_count) detail::throw_struct_value_field_error("a word list of the wrong length");
    Struct s(ir::ValueId{}, 0);
    s.words_ = std::move(words);
    return s;
  }
  /// The struct's bytes as word_count 32-bit words: a value's own, a parameter's read from
  /// the parameter space.
  std::vector<Value<std::uint32_t>> words() const
    requires StructValue<S>
  {
    if (is_value()) return words_;
    std::vector<Value<std::uint32_t>> out;
    for (std::size_t k = 0; k < word_count; ++k)
      out.push_back(Value<std::uint32_t>::wrap(detail::builder("cutlet::Struct field")
                                                   .field(record_.get(), offset_ + static_cast<std::int64_t>(4 * k),
                                                          detail::ir_type_of<std::uint32_t>())));
    return out;
  }
  /// Sets scalar field `m` of this struct value to `v` (converted to the field's type as an
  /// assignment to a Value of it would be); a parameter becomes a value first. Rebinding,
  /// like assigning to a Value: inside if_ branches and loops, keep the struct in a Var of
  /// words (algorithms do) or use select.
  template <class M, class X>
    requires StructValue<S>
  void set(M S::*m, const X& v) {
    using T = typename detail::field_scalar<M>::type;
    static_assert(!std::is_void_v<T>, "cutlet: Struct::set writes scalar fields (set a nested struct's fields one by one)");
    if (!is_value()) words_ = words();
    detail::insert_field<T>(words_, detail::member_offset(m), Value<T>(v));
  }
  /// A copy of this struct value with field `m` set to `v` (see set).
  template <class M, class X>
    requires StructValue<S>
  Struct with(M S::*m, const X& v) const {
    Struct copy = *this;
    copy.set(m, v);
    return copy;
  }

  /// Whether this is a struct value (words in registers) rather than a parameter.
  bool is_value() const { return !words_.empty(); }
  /// The struct parameter of IR value `id` (made by the kernel's tracer).
  static Struct wrap(ir::ValueId id) { return Struct(id, 0); }
  /// The parameter this struct (or the struct it is nested in) lives in.
  ir::ValueId id() const { return record_.get(); }
  /// The struct's byte offset within that parameter.
  std::int64_t offset() const { return offset_; }

  Struct(ir::ValueId record, std::int64_t offset) : record_(record), offset_(offset) {}

 private:
  template <class M>
  auto value_field(std::int64_t at) const {
    if constexpr (std::is_array_v<M>) {
      detail::throw_struct_value_field_error("an array field of a struct value (array fields are read from parameters)");
      return StructArray<std::remove_extent_t<M>, std::extent_v<M>>(ir::ValueId{}, 0);
    } else if constexpr (!std::is_void_v<typename detail::field_scalar<M>::type>) {
      return detail::extract_field<M>(words_, at);
    } else if constexpr (StructValue<M>) {
      if (at % 4 != 0) detail::throw_struct_value_field_error("a nested struct at an offset that is not a multiple of 4");
      const auto first = words_.begin() + at / 4;
      return Struct<M>::from_words(std::vector<Value<std::uint32_t>>(first, first + Struct<M>::word_count));
    } else {
      detail::throw_struct_value_field_error("a nested struct whose size is not a whole number of words");
      return Struct<M>(ir::ValueId{}, 0);
    }
  }

  detail::TracedId record_;
  std::int64_t offset_;
  std::vector<Value<std::uint32_t>> words_;  ///< a struct value's words; empty for a parameter
};

/// `cond ? a : b` for struct values, word by word, without branching.
template <StructValue S>
Struct<S> select(const Value<bool>& cond, const Struct<S>& a, const Struct<S>& b) {
  std::vector<Value<std::uint32_t>> x = a.words(), y = b.words(), out;
  for (std::size_t k = 0; k < x.size(); ++k) out.push_back(select(cond, x[k], y[k]));
  return Struct<S>::from_words(std::move(out));
}

}  // namespace cutlet
