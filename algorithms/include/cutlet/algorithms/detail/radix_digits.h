// The radix sort's view of a key: its bits in an order in which unsigned comparison sorts
// the keys as CUB does, and the digits of those bits each pass sorts by.
#pragma once

#include <cstdint>
#include <type_traits>

#include "cutlet/algorithms/element.h"
#include "cutlet/language/math.h"
#include "cutlet/language/value.h"

namespace cutlet::algorithms::detail {

/// The unsigned integer in which a key's ordered bits are held: 32 bits for keys of 1 to 4
/// bytes (the narrow ones in its low bits), 64 for 8-byte keys.
template <class K>
using RadixBits = std::conditional_t<sizeof(K) <= 4, std::uint32_t, std::uint64_t>;

/// The bits a key of K has in its RadixBits: all ones in the low 8 * sizeof(K) bits (the
/// flip of a descending sort).
template <class K>
inline constexpr RadixBits<K> kRadixKeyMask = sizeof(K) == sizeof(RadixBits<K>)
                                                  ? ~RadixBits<K>{0}
                                                  : (RadixBits<K>{1} << (8 * sizeof(K))) - 1;

/// The bits of `key` such that, compared as unsigned integers, they order the keys as the
/// sort does, xor'ed with `flip` (kRadixKeyMask<K> for a descending sort, 0 for an ascending
/// one): unsigned keys as they are; signed ones with the sign bit inverted; floats (half and
/// bfloat16 too) with the sign bit inverted when it is clear and all bits inverted when it is
/// set, after -0.0 has been taken for +0.0 (so the two zeros are equal keys and keep their
/// input order). NaNs sort by their bits: those with the sign bit set before -inf, the others
/// after +inf, as in CUB. Keys of 1 and 2 bytes are widened to 32 bits (zeros above them).
template <class K>
Value<RadixBits<K>> ordered_bits(const Value<K>& key, const Value<RadixBits<K>>& flip) {
  using U = RadixBits<K>;
  using Raw = SameWidthBits<K>;
  constexpr U sign = U(1) << (8 * sizeof(K) - 1);
  if constexpr (std::is_same_v<K, U>) {
    return key ^ flip;
  } else {
    Value<U> b = [&] {
      if constexpr (std::is_same_v<K, Raw>) return cast<U>(key);
      else if constexpr (std::is_same_v<Raw, U>) return bitcast<U>(key);
      else return cast<U>(bitcast<Raw>(key));
    }();
    if constexpr (std::is_unsigned_v<K>) {
      return b ^ flip;
    } else if constexpr (std::is_integral_v<K>) {
      return (b ^ sign) ^ flip;
    } else {
      b = select(b == sign, Value<U>(U(0)), b);
      Value<U> invert = select((b & sign) != U(0), Value<U>(kRadixKeyMask<K>), Value<U>(sign));
      return (b ^ invert) ^ flip;
    }
  }
}

/// The digit of ordered bits `bits` at bit `shift`: (bits >> shift) & mask, a u32 below 256.
template <class U>
u32 radix_digit(const Value<U>& bits, const u32& shift, const u32& mask) {
  if constexpr (std::is_same_v<U, std::uint32_t>) return (bits >> shift) & mask;
  else return cast<std::uint32_t>(bits >> cast<std::uint64_t>(shift)) & mask;
}

}  // namespace cutlet::algorithms::detail
