// Shared by the algorithm tests: inputs of every element type, the sizes around the
// algorithms' tile and block boundaries, and non-commutative operators with CPU twins.
#pragma once

#include <cutlet/algorithms.h>
#include <cutlet/cutlet.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <random>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

namespace cutlet::test {

/// n random elements of T: floats in [-1, 1]; integers small enough (|x| <= 1000, or
/// [0, 1000] unsigned) that sums of millions of them do not overflow.
template <class T>
std::vector<T> algorithm_input(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<T> v(n);
  if constexpr (std::is_floating_point_v<T>) {
    std::uniform_real_distribution<T> d(T(-1), T(1));
    for (auto& x : v) x = d(rng);
  } else if constexpr (std::is_signed_v<T>) {
    std::uniform_int_distribution<T> d(T(-1000), T(1000));
    for (auto& x : v) x = d(rng);
  } else {
    std::uniform_int_distribution<T> d(T(0), T(1000));
    for (auto& x : v) x = d(rng);
  }
  return v;
}

/// n random 64-bit words (any bits), for the packed non-commutative operators.
inline std::vector<std::uint64_t> random_words(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::uint64_t> v(n);
  for (auto& x : v) x = rng();
  return v;
}

/// values.size() items in runs of lengths drawn from [min_run, max_run] (by `seed`), run k
/// holding values[k] (neighbouring runs may be equal, and then are one run): the inputs of
/// unique, unique_by_key and run_length_encode.
template <class T>
std::vector<T> runs_of(const std::vector<T>& values, std::size_t min_run, std::size_t max_run, std::uint64_t seed) {
  const std::size_t n = values.size();
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::size_t> length(min_run, max_run);
  std::vector<T> h;
  for (std::size_t k = 0; h.size() < n; ++k) h.resize(std::min(n, h.size() + length(rng)), values[k]);
  return h;
}

/// Sizes 0, 1, small odd ones, one below, at and above each multiple k * `tile` for k in
/// {1, 2, 3}, an odd count of several tiles, and one that fills `large_tiles` tiles plus an
/// odd remainder: every full/partial tile case and every vector tail.
inline std::vector<std::size_t> boundary_sizes(std::size_t tile, std::size_t large_tiles) {
  std::set<std::size_t> s{0, 1, 2, 3, 5, 7, 31, 32, 33, 255, 256, 257};
  for (std::size_t k = 1; k <= 3; ++k)
    for (long d : {-1L, 0L, 1L}) s.insert(static_cast<std::size_t>(static_cast<long>(k * tile) + d));
  s.insert(7 * tile + 13);
  s.insert(large_tiles * tile + 2 * tile / 3 + 1);
  return {s.begin(), s.end()};
}

/// The CPU twin of mat2x2_product: the packed 2x2 matrices of 16-bit entries
/// [x0 x1; x2 x3] (entry k in bits 16k..16k+15), multiplied modulo 2^16. Associative and not
/// commutative.
inline std::uint64_t mat2x2_product_host(std::uint64_t x, std::uint64_t y) {
  auto e = [](std::uint64_t m, int k) { return (m >> (16 * k)) & 0xffffu; };
  const std::uint64_t p0 = (e(x, 0) * e(y, 0) + e(x, 1) * e(y, 2)) & 0xffffu;
  const std::uint64_t p1 = (e(x, 0) * e(y, 1) + e(x, 1) * e(y, 3)) & 0xffffu;
  const std::uint64_t p2 = (e(x, 2) * e(y, 0) + e(x, 3) * e(y, 2)) & 0xffffu;
  const std::uint64_t p3 = (e(x, 2) * e(y, 1) + e(x, 3) * e(y, 3)) & 0xffffu;
  return p0 | (p1 << 16) | (p2 << 32) | (p3 << 48);
}

/// The product of packed 2x2 matrices, traced (see mat2x2_product_host).
struct mat2x2_product {
  u64 operator()(const u64& x, const u64& y) const {
    auto e = [](const u64& m, int k) { return (m >> (16 * k)) & 0xffffu; };
    u64 p0 = (e(x, 0) * e(y, 0) + e(x, 1) * e(y, 2)) & 0xffffu;
    u64 p1 = (e(x, 0) * e(y, 1) + e(x, 1) * e(y, 3)) & 0xffffu;
    u64 p2 = (e(x, 2) * e(y, 0) + e(x, 3) * e(y, 2)) & 0xffffu;
    u64 p3 = (e(x, 2) * e(y, 1) + e(x, 3) * e(y, 3)) & 0xffffu;
    return p0 | (p1 << 16) | (p2 << 32) | (p3 << 48);
  }
};

/// The CPU twin of affine_then: packed affine maps x -> m*x + c modulo 2^16 (m in the high
/// half of a u32, c in the low half); affine_then(f, g) is "f, then g": m = g.m * f.m,
/// c = g.m * f.c + g.c. Associative and not commutative.
inline std::uint32_t affine_then_host(std::uint32_t f, std::uint32_t g) {
  const std::uint32_t fm = f >> 16, fc = f & 0xffffu, gm = g >> 16, gc = g & 0xffffu;
  const std::uint32_t m = (gm * fm) & 0xffffu, c = (gm * fc + gc) & 0xffffu;
  return (m << 16) | c;
}

/// Composition of packed affine maps, traced (see affine_then_host).
struct affine_then {
  u32 operator()(const u32& f, const u32& g) const {
    u32 fm = f >> 16u, fc = f & 0xffffu, gm = g >> 16u, gc = g & 0xffffu;
    u32 m = (gm * fm) & 0xffffu;
    u32 c = (gm * fc + gc) & 0xffffu;
    return (m << 16u) | c;
  }
};

/// Calls `f.template operator()<T>()` for the 32- and 64-bit element types of the algorithms
/// (f32, f64, i32, u32, i64, u64), in that order: `for_each_element_type([]<class T> {
/// check<T>(); })`; narrow_elements_gpu_test.cpp covers the 8- and 16-bit ones.
template <class F>
void for_each_element_type(F&& f) {
  f.template operator()<float>();
  f.template operator()<double>();
  f.template operator()<std::int32_t>();
  f.template operator()<std::uint32_t>();
  f.template operator()<std::int64_t>();
  f.template operator()<std::uint64_t>();
}

/// As for_each_element_type, for the 8- and 16-bit element types (half, bf16, i8, u8, i16,
/// u16).
template <class F>
void for_each_narrow_element_type(F&& f) {
  f.template operator()<half>();
  f.template operator()<bfloat16>();
  f.template operator()<std::int8_t>();
  f.template operator()<std::uint8_t>();
  f.template operator()<std::int16_t>();
  f.template operator()<std::uint16_t>();
}

/// The element type's name, for messages.
template <class T>
std::string element_label() {
  return algorithms::element_name<T>();
}

/// The unsigned integer of a key's width, in which the sorts order keys.
template <class K>
using KeyBits = algorithms::detail::SameWidthBits<K>;

/// The host's twin of the sorts' key order (radix_sort_keys): the key's bits such that
/// unsigned comparison orders the keys as the sorts do (signed integers with the sign bit
/// inverted; floats with -0.0 taken for +0.0, the sign bit inverted when clear and all bits
/// when set).
template <class K>
KeyBits<K> host_ordered_bits(K key) {
  using U = KeyBits<K>;
  constexpr U sign = U(1) << (8 * sizeof(U) - 1);
  U b;
  std::memcpy(&b, &key, sizeof(K));
  if constexpr (std::is_unsigned_v<K>) return b;
  else if constexpr (std::is_integral_v<K>) return static_cast<U>(b ^ sign);
  else {
    if (b == sign) b = 0;
    return static_cast<U>((b & sign) ? ~b : (b | sign));
  }
}

/// n keys of K: random bits (every exponent, sign and NaN pattern for floats), or, with
/// `distinct` > 0, drawn from that many random values (long runs of equal keys, ties).
template <class K>
std::vector<K> random_keys(std::size_t n, std::size_t distinct, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  auto any = [&] {
    const std::uint64_t r = rng();
    K key;
    std::memcpy(static_cast<void*>(&key), &r, sizeof(K));
    return key;
  };
  std::vector<K> pool;
  for (std::size_t i = 0; i < distinct; ++i) pool.push_back(any());
  std::vector<K> v(n);
  for (auto& x : v) x = distinct ? pool[rng() % distinct] : any();
  return v;
}

}  // namespace cutlet::test
