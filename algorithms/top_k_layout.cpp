// top_k's temporary storage layout (detail/top_k_layout.h).
#include "cutlet/algorithms/detail/top_k_layout.h"

namespace cutlet::algorithms::detail {

namespace {
constexpr std::size_t kAlign = 256;
std::size_t aligned(std::size_t bytes) { return (bytes + kAlign - 1) / kAlign * kAlign; }
}  // namespace

TopKLayout top_k_layout(int passes, std::int64_t tiles) {
  const auto count = static_cast<std::size_t>(tiles);
  TopKLayout l;
  l.bins = 0;
  l.state = aligned(static_cast<std::size_t>(passes) * kTopKDigits * sizeof(std::uint32_t));
  l.zeroed_bytes = l.state + aligned(kTopKStateWords * sizeof(std::uint64_t));
  l.marks = l.zeroed_bytes;
  l.counts = l.marks + aligned(count * sizeof(std::uint32_t));
  l.offsets = l.counts + aligned(count * sizeof(std::uint64_t));
  l.total_bytes = l.offsets + aligned(count * sizeof(std::uint64_t));
  return l;
}

}  // namespace cutlet::algorithms::detail
