// The look-back's temporary storage layouts (detail/scan_layout.h).
#include "cutlet/algorithms/detail/scan_layout.h"

#include "cutlet/algorithms/detail/workspace_alignment.h"

namespace cutlet::algorithms::detail {

ScanLayout scan_layout(std::int64_t tiles, std::size_t element_bytes) {
  const auto count = static_cast<std::size_t>(tiles);
  ScanLayout l;
  l.counter = 0;
  l.flags = align_workspace(sizeof(std::uint32_t));
  l.aggregates = l.flags + align_workspace(count * sizeof(std::uint32_t));
  l.zeroed_bytes = l.aggregates;
  l.prefixes = l.aggregates + align_workspace(count * element_bytes);
  l.total_bytes = l.prefixes + align_workspace(count * element_bytes);
  return l;
}

PackedScanLayout packed_scan_layout(std::int64_t tiles) {
  PackedScanLayout l;
  l.counter = 0;
  l.words = align_workspace(sizeof(std::uint32_t));
  l.total_bytes = l.words + align_workspace(static_cast<std::size_t>(tiles) * sizeof(std::uint64_t));
  return l;
}

}  // namespace cutlet::algorithms::detail
