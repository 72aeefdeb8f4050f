// The temporary storage of top_k: each pass's digit counts, the selection's state, and the
// final passes' tile marks, counts and offsets.
#pragma once

#include <cstddef>
#include <cstdint>

namespace cutlet::algorithms::detail {

/// Bits of the digit each pass of top_k's radix selection counts.
inline constexpr int kTopKDigitBits = 11;
/// Digits per pass (2^kTopKDigitBits).
inline constexpr int kTopKDigits = 1 << kTopKDigitBits;

/// The passes of top_k's radix selection over keys of `key_bits` bits, from the most
/// significant digit down: pass p looks at `width(p)` bits from bit `shift(p)`.
struct TopKPasses {
  int key_bits = 0;
  /// The number of passes: key_bits / kTopKDigitBits, rounded up.
  int count() const noexcept { return (key_bits + kTopKDigitBits - 1) / kTopKDigitBits; }
  /// The lowest bit of pass p's digit.
  int shift(int p) const noexcept {
    const int s = key_bits - kTopKDigitBits * (p + 1);
    return s < 0 ? 0 : s;
  }
  /// The bits of pass p's digit (kTopKDigitBits, or fewer for the last pass).
  int width(int p) const noexcept { return key_bits - kTopKDigitBits * p - shift(p); }
};

/// Words of the selection's state (u64 each): the ordered bits chosen so far, the mask of
/// those bits, and how many keys are still to be taken among those that match them.
inline constexpr int kTopKPrefix = 0;
inline constexpr int kTopKMask = 1;
inline constexpr int kTopKRemaining = 2;
inline constexpr int kTopKStateWords = 3;

/// Byte offsets in top_k's temporary storage, each 256-byte aligned: `bins` (passes x
/// kTopKDigits u32 digit counts), `state` (kTopKStateWords u64), and per tile of the final
/// passes a u32 mark (`marks`), a u64 pair of counts (`counts`) and its u64 offset
/// (`offsets`). The first `zeroed_bytes` (bins and state) must be zero before each call.
struct TopKLayout {
  std::size_t bins = 0;
  std::size_t state = 0;
  std::size_t zeroed_bytes = 0;
  std::size_t marks = 0;
  std::size_t counts = 0;
  std::size_t offsets = 0;
  std::size_t total_bytes = 0;
};

/// The layout for `passes` (> 0) counting passes and `tiles` (> 0) tiles of the final passes.
TopKLayout top_k_layout(int passes, std::int64_t tiles);

}  // namespace cutlet::algorithms::detail
