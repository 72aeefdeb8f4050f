// Vec<T, N>: a thread's short vector of 2, 4 or 8 lanes, for 8- and 16-byte memory access
// and packed arithmetic (f16x2 and bf16x2 map to the GPU's paired instructions).
#pragma once

#include "cutlet/language/value.h"

namespace cutlet {

/// A traced vector of N lanes of T held by one thread. Arithmetic is lane by lane; a
/// scalar operand (traced or a host number) is broadcast. Lanes are read with v[k] for a
/// host integer k.
template <ScalarType T, int N>
class Vec {
  static_assert(N == 2 || N == 4 || N == 8, "cutlet::Vec has 2, 4 or 8 lanes");
  static_assert(!std::is_same_v<T, bool>, "cutlet::Vec holds numbers, not bools");
  static_assert(sizeof(T) * N <= 16, "cutlet::Vec holds at most 16 bytes (the widest memory access)");

 public:
  using element_type = T;
  static constexpr int lanes = N;

  /// All lanes equal to `x` (a traced value or a host number).
  template <Operand X>
  static Vec splat(const X& x) {
    return wrap(detail::builder().splat(detail::operand_as<T>(x), N));
  }
  /// Lane k (0 <= k < N).
  Value<T> operator[](int k) const {
    check_lane(k);
    return Value<T>::wrap(detail::builder().extract(id_.get(), k));
  }
  /// A copy with lane k replaced by x.
  template <Operand X>
  Vec with(int k, const X& x) const {
    check_lane(k);
    return wrap(detail::builder().insert(id_.get(), detail::operand_as<T>(x), k));
  }

  ir::ValueId id() const { return id_.get(); }
  static Vec wrap(ir::ValueId id) { return Vec(id); }

 private:
  explicit Vec(ir::ValueId id) : id_(id) {}
  static void check_lane(int k) {
    if (k < 0 || k >= N)
      detail::throw_trace_error_at_caller("lane " + std::to_string(k) + " of a " + std::to_string(N) +
                                          "-lane cutlet::Vec is out of range (lanes are 0.." + std::to_string(N - 1) +
                                          ")");
  }
  detail::TracedId id_;
};

namespace detail {
template <class X>
struct vec_info {
  static constexpr bool value = false;
};
template <class T, int N>
struct vec_info<Vec<T, N>> {
  static constexpr bool value = true;
  using type = T;
  static constexpr int lanes = N;
};
template <class V, class X>
ir::ValueId vec_operand(const X& x) {
  if constexpr (vec_info<std::remove_cvref_t<X>>::value) return x.id();
  else return builder().splat(operand_as<typename V::element_type>(x), V::lanes);
}
}  // namespace detail

template <class X>
concept VecType = detail::vec_info<std::remove_cvref_t<X>>::value;

#define CUTLET_VEC_OP(sym, opcode)                                                                              \
  template <class A, class B>                                                                                   \
    requires((VecType<A> && (VecType<B> || Operand<B>)) || (Operand<A> && VecType<B>))                          \
  auto operator sym(const A& a, const B& b) {                                                                   \
    using V = std::conditional_t<VecType<A>, std::remove_cvref_t<A>, std::remove_cvref_t<B>>;                   \
    if constexpr (VecType<A> && VecType<B>)                                                                     \
      static_assert(std::is_same_v<std::remove_cvref_t<A>, std::remove_cvref_t<B>>,                             \
                    "cutlet::Vec arithmetic needs vectors of one type and width; convert lanes explicitly");    \
    return V::wrap(detail::builder().binary(ir::Opcode::opcode, detail::vec_operand<V>(a), detail::vec_operand<V>(b))); \
  }
CUTLET_VEC_OP(+, Add)
CUTLET_VEC_OP(-, Sub)
CUTLET_VEC_OP(*, Mul)
CUTLET_VEC_OP(/, Div)
#undef CUTLET_VEC_OP

/// Lane-wise minimum and maximum.
template <ScalarType T, int N>
Vec<T, N> min(const Vec<T, N>& a, const Vec<T, N>& b) {
  return Vec<T, N>::wrap(detail::builder().binary(ir::Opcode::Min, a.id(), b.id()));
}
template <ScalarType T, int N>
Vec<T, N> max(const Vec<T, N>& a, const Vec<T, N>& b) {
  return Vec<T, N>::wrap(detail::builder().binary(ir::Opcode::Max, a.id(), b.id()));
}

using f32x2 = Vec<float, 2>;
using f32x4 = Vec<float, 4>;
using f64x2 = Vec<double, 2>;
using i32x2 = Vec<std::int32_t, 2>;
using i32x4 = Vec<std::int32_t, 4>;
using u32x4 = Vec<std::uint32_t, 4>;
using i64x2 = Vec<std::int64_t, 2>;
using f16x2 = Vec<half, 2>;
using f16x8 = Vec<half, 8>;
using bf16x2 = Vec<bfloat16, 2>;
using bf16x8 = Vec<bfloat16, 8>;

}  // namespace cutlet
