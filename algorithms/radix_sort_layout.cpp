// The radix sort's temporary storage layout (detail/radix_sort_layout.h).
#include "cutlet/algorithms/detail/radix_sort_layout.h"

#include <string>

#include "cutlet/algorithms/detail/workspace_alignment.h"
#include "cutlet/error.h"

namespace cutlet::algorithms::detail {

namespace {
constexpr std::size_t kDigits = 256;
}  // namespace

RadixPasses radix_passes(int begin_bit, int end_bit, int key_bits, const char* algorithm) {
  const int end = end_bit == -1 ? key_bits : end_bit;
  if (begin_bit < 0 || end < begin_bit || end > key_bits)
    throw Error(std::string("cutlet::algorithms::") + algorithm + ": the bits to sort by, [" + std::to_string(begin_bit) +
                ", " + std::to_string(end_bit) + "), must lie within the key's " + std::to_string(key_bits) +
                " bits with begin_bit <= end_bit; pass begin_bit 0 and end_bit -1 to sort by the whole key");
  RadixPasses p;
  p.begin_bit = begin_bit;
  p.count = (end - begin_bit + 7) / 8;
  const int last_bits = end - begin_bit - 8 * (p.count - 1);
  p.last_mask = p.count == 0 ? 0u : (1u << last_bits) - 1u;
  return p;
}

RadixSortLayout radix_sort_layout(std::int64_t n, std::int64_t tiles, int passes, std::size_t key_bytes,
                                  std::size_t value_bytes, std::int64_t portions) {
  const auto count = static_cast<std::size_t>(n);
  const auto launches = static_cast<std::size_t>(passes) * static_cast<std::size_t>(portions);
  RadixSortLayout l;
  l.bins = 0;
  l.counters = align_workspace(launches * kDigits * sizeof(std::uint32_t));
  l.status = l.counters + align_workspace(launches * sizeof(std::uint32_t));
  l.zeroed_bytes = l.status + align_workspace(static_cast<std::size_t>(tiles) * kDigits * sizeof(std::uint32_t));
  l.keys = l.zeroed_bytes;
  l.values = l.keys + align_workspace(count * key_bytes);
  l.total_bytes = l.values + align_workspace(count * value_bytes);
  return l;
}

}  // namespace cutlet::algorithms::detail
