// The look-back's temporary storage layouts (detail/scan_layout.h).
#include "cutlet/algorithms/detail/scan_layout.h"

namespace cutlet::algorithms::detail {

namespace {
constexpr std::size_t kAlign = 256;
std::size_t aligned(std::size_t bytes) { return (bytes + kAlign - 1) / kAlign * kAlign; }
}  // namespace

ScanLayout scan_layout(std::int64_t tiles, std::size_t element_bytes) {
  const auto count = static_cast<std::size_t>(tiles);
  ScanLayout l;
  l.counter = 0;
  l.flags = aligned(sizeof(std::uint32_t));
  l.aggregates = l.flags + aligned(count * sizeof(std::uint32_t));
  l.zeroed_bytes = l.aggregates;
  l.prefixes = l.aggregates + aligned(count * element_bytes);
  l.total_bytes = l.prefixes + aligned(count * element_bytes);
  return l;
}

PackedScanLayout packed_scan_layout(std::int64_t tiles) {
  PackedScanLayout l;
  l.counter = 0;
  l.words = aligned(sizeof(std::uint32_t));
  l.total_bytes = l.words + aligned(static_cast<std::size_t>(tiles) * sizeof(std::uint64_t));
  return l;
}

}  // namespace cutlet::algorithms::detail
