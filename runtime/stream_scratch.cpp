// Temporary memory kept by owned streams between calls (stream_scratch.h).
#include "cutlet/runtime/stream_scratch.h"

#include <algorithm>
#include <bit>
#include <mutex>
#include <utility>

#include "cutlet/runtime/graph.h"
#include "scratch_slot.h"

namespace cutlet {
namespace {

/// The smallest block a stream keeps, so that the small temporaries of different calls share one.
constexpr std::size_t kMinKeptBytes = std::size_t{64} << 10;

}  // namespace

StreamScratch::StreamScratch(std::size_t bytes, const Stream& stream) {
  if (bytes == 0) return;
  detail::ScratchSlot* slot = stream.scratch_.get();
  if (!slot || bytes > kMaxKeptBytes || Graph::is_capturing(stream)) {
    memory_ = DeviceMemory(bytes, stream);
    return;
  }
  DeviceMemory block;
  {
    std::lock_guard<std::mutex> lock(slot->mutex);
    block = std::move(slot->block);
  }
  // An empty slot (the first lease, or another one holds the block) or a block too small: a
  // new block, which the destructor keeps if it is larger than what the slot holds by then.
  if (block.bytes() < bytes) block = DeviceMemory(std::max(std::bit_ceil(bytes), kMinKeptBytes), stream);
  memory_ = std::move(block);
  slot_ = stream.scratch_;
}

StreamScratch::~StreamScratch() {
  if (!slot_ || memory_.empty()) return;
  std::lock_guard<std::mutex> lock(slot_->mutex);
  // A lease made while this one held the block (a nested call, another thread's) may have put
  // its own back meanwhile: the larger of the two stays, the other is freed on the stream when
  // memory_ is destroyed, after the lock is released.
  if (memory_.bytes() > slot_->block.bytes()) std::swap(memory_, slot_->block);
}

void StreamScratch::trim(const Stream& stream) {
  if (!stream.scratch_) return;
  DeviceMemory block;  // freed on the stream at the end of this scope, outside the lock
  std::lock_guard<std::mutex> lock(stream.scratch_->mutex);
  block = std::move(stream.scratch_->block);
}

}  // namespace cutlet
