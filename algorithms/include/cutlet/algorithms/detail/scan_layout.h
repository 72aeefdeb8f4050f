// The temporary storage of the decoupled look-back: tile counter, status flags, values.
#pragma once

#include <cstddef>
#include <cstdint>

namespace cutlet::algorithms::detail {

/// Tile status flags of the look-back, one 32-bit word per tile (or the high half of a
/// packed 64-bit word).
inline constexpr std::uint32_t kTileInvalid = 0;    ///< nothing published yet
inline constexpr std::uint32_t kTileAggregate = 1;  ///< the tile's own reduction is in aggregates[]
inline constexpr std::uint32_t kTilePrefix = 2;     ///< the reduction of tiles 0..t is in prefixes[]

/// Byte offsets in the scan's temporary storage, each 256-byte aligned: a u32 tile counter
/// (the order in which blocks take tiles), `tiles` u32 status flags, then `tiles` aggregates
/// and `tiles` inclusive prefixes of the element type. The first `zeroed_bytes` (counter and
/// flags) must be zero before each scan.
struct ScanLayout {
  std::size_t counter = 0;
  std::size_t flags = 0;
  std::size_t aggregates = 0;
  std::size_t prefixes = 0;
  std::size_t zeroed_bytes = 0;
  std::size_t total_bytes = 0;
};

/// The layout for `tiles` (> 0) tiles of elements of `element_bytes` bytes.
ScanLayout scan_layout(std::int64_t tiles, std::size_t element_bytes);

/// Byte offsets in the temporary storage of a look-back over 4-byte values packed with their
/// flags (PackedTileStatus), each 256-byte aligned: a u32 tile counter, then `tiles` u64
/// status words. All `total_bytes` must be zero before each pass.
struct PackedScanLayout {
  std::size_t counter = 0;
  std::size_t words = 0;
  std::size_t total_bytes = 0;
};

/// The packed layout for `tiles` (> 0) tiles.
PackedScanLayout packed_scan_layout(std::int64_t tiles);

}  // namespace cutlet::algorithms::detail
