// The temporary storage of radix_sort_keys and radix_sort_pairs: digit counts, tile
// counters, the tiles' digit status and the alternate key and value buffers.
#pragma once

#include <cstddef>
#include <cstdint>

namespace cutlet::algorithms::detail {

/// Byte offsets in a radix sort's temporary storage, each 256-byte aligned:
/// - `bins`: portions x passes x 256 u32: portion 0's are the keys' digit counts of each
///   pass, then their exclusive sums (where each digit's keys start in the output); portion
///   q's (q > 0) are those starts for the keys of portion q, which the last tile of portion
///   q - 1 writes;
/// - `counters`: passes x portions u32 tile counters, the order in which blocks take tiles in
///   each launch;
/// - `status`: tiles x 256 u32 (the tiles of one portion), each tile's count (or inclusive
///   prefix) of each digit, with its flag in the top two bits, shared by all launches (their
///   flags alternate between passes while there is one portion);
/// - `keys` and `values`: the alternate buffers the passes write between input and output
///   (values_bytes 0 when sorting keys alone).
/// The first `zeroed_bytes` (bins, counters, status) must be zero before each sort.
struct RadixSortLayout {
  std::size_t bins = 0;
  std::size_t counters = 0;
  std::size_t status = 0;
  std::size_t zeroed_bytes = 0;
  std::size_t keys = 0;
  std::size_t values = 0;
  std::size_t total_bytes = 0;
};

/// The passes of a sort of bits [begin_bit, end_bit) of a key of `key_bits` bits: one per
/// 8 bits, the last one narrower (its digit mask, last_mask) where the bits do not divide
/// by 8; end_bit -1 stands for key_bits. Throws Error naming `algorithm` unless
/// 0 <= begin_bit <= end_bit <= key_bits.
struct RadixPasses {
  int begin_bit = 0;
  int count = 0;
  std::uint32_t last_mask = 0;
};
RadixPasses radix_passes(int begin_bit, int end_bit, int key_bits, const char* algorithm);

/// The layout for `n` (> 0) keys of `key_bytes` and values of `value_bytes` (0: none), sorted
/// in `passes` (> 0) passes over `portions` (> 0) portions of at most `tiles` tiles each.
RadixSortLayout radix_sort_layout(std::int64_t n, std::int64_t tiles, int passes, std::size_t key_bytes,
                                  std::size_t value_bytes, std::int64_t portions = 1);

}  // namespace cutlet::algorithms::detail
