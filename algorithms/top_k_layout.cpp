// top_k's temporary storage layout (detail/top_k_layout.h).
#include "cutlet/algorithms/detail/top_k_layout.h"

#include "cutlet/algorithms/detail/workspace_alignment.h"

namespace cutlet::algorithms::detail {

TopKLayout top_k_layout(int passes, std::int64_t tiles) {
  const auto count = static_cast<std::size_t>(tiles);
  TopKLayout l;
  l.bins = 0;
  l.state = align_workspace(static_cast<std::size_t>(passes) * kTopKDigits * sizeof(std::uint32_t));
  l.zeroed_bytes = l.state + align_workspace(kTopKStateWords * sizeof(std::uint64_t));
  l.marks = l.zeroed_bytes;
  l.counts = l.marks + align_workspace(count * sizeof(std::uint32_t));
  l.offsets = l.counts + align_workspace(count * sizeof(std::uint64_t));
  l.total_bytes = l.offsets + align_workspace(count * sizeof(std::uint64_t));
  return l;
}

}  // namespace cutlet::algorithms::detail
