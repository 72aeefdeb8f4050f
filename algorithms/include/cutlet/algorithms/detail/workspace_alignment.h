// The alignment of the parts of an algorithm's temporary storage.
#pragma once

#include <cstddef>

namespace cutlet::algorithms::detail {

/// Every part of a workspace layout starts at a multiple of 256 bytes: DeviceMemory's own
/// alignment, enough for any vector access and for the GPU's widest cache sectors.
inline constexpr std::size_t kWorkspaceAlignment = 256;

/// `bytes` rounded up to a multiple of kWorkspaceAlignment: the room a part of `bytes` bytes
/// takes in a workspace layout.
constexpr std::size_t align_workspace(std::size_t bytes) {
  return (bytes + kWorkspaceAlignment - 1) / kWorkspaceAlignment * kWorkspaceAlignment;
}

}  // namespace cutlet::algorithms::detail
