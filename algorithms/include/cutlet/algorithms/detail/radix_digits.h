// The radix sort's view of a key: its bits in an order in which unsigned comparison sorts
// the keys as CUB does, and the digits of those bits each pass sorts by.
#pragma once

#include <cstdint>
#include <type_traits>

#include "cutlet/algorithms/element.h"
#include "cutlet/language/math.h"
#include "cutlet/language/value.h"

namespace cutlet::algorithms::detail {

/// The unsigned integer of a key's width, in which its ordered bits are held.
template <class K>
using RadixBits = std::conditional_t<sizeof(K) == 4, std::uint32_t, std::uint64_t>;

/// The bits of `key` such that, compared as unsigned integers, they order the keys as the
/// sort does, xor'ed with `flip` (all ones for a descending sort, 0 for an ascending one):
/// unsigned keys as they are; signed ones with the sign bit inverted; floats with the sign
/// bit inverted when it is clear and all bits inverted when it is set, after -0.0 has been
/// taken for +0.0 (so the two zeros are equal keys and keep their input order). NaNs sort by
/// their bits: those with the sign bit set before -inf, the others after +inf, as in CUB.
template <class K>
Value<RadixBits<K>> ordered_bits(const Value<K>& key, const Value<RadixBits<K>>& flip) {
  using U = RadixBits<K>;
  constexpr U sign = U(1) << (8 * sizeof(U) - 1);
  if constexpr (std::is_same_v<K, U>) {
    return key ^ flip;
  } else if constexpr (std::is_integral_v<K>) {
    return (bitcast<U>(key) ^ sign) ^ flip;
  } else {
    Value<U> b = bitcast<U>(key);
    b = select(b == sign, Value<U>(U(0)), b);
    Value<U> invert = select((b & sign) != U(0), Value<U>(~U(0)), Value<U>(sign));
    return (b ^ invert) ^ flip;
  }
}

/// The digit of ordered bits `bits` at bit `shift`: (bits >> shift) & mask, a u32 below 256.
template <class U>
u32 radix_digit(const Value<U>& bits, const u32& shift, const u32& mask) {
  if constexpr (std::is_same_v<U, std::uint32_t>) return (bits >> shift) & mask;
  else return cast<std::uint32_t>(bits >> cast<std::uint64_t>(shift)) & mask;
}

}  // namespace cutlet::algorithms::detail
