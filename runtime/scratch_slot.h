// Internal: the block of temporary memory an owned stream keeps between StreamScratch leases.
#pragma once

#include <mutex>

#include "cutlet/runtime/buffer.h"

namespace cutlet::detail {

/// One owned stream's kept block. A lease takes the block out (leaving the slot empty) and
/// puts it back when done, so that two calls queued at once from different threads never
/// share it; its memory is freed on the stream when the slot is destroyed with the Stream.
struct ScratchSlot {
  std::mutex mutex;    ///< Guards `block`.
  DeviceMemory block;  ///< Empty before the first lease and while a lease holds it.
};

}  // namespace cutlet::detail
