// A shared-memory arena: first-fit placement of live buffers and its high-water mark.
#include "shared_arena.h"

#include <algorithm>

#include "cutlet/error.h"

namespace cutlet::ir {

std::int64_t SharedArena::allocate(std::int64_t bytes, std::int64_t align, std::string what, Opcode op, Location loc,
                                   bool held) {
  CUTLET_ASSERT(bytes >= 0 && align > 0 && (align & (align - 1)) == 0, "a bad shared-memory allocation");
  // First fit: the lowest aligned gap between live buffers (kept sorted by offset).
  std::int64_t at = 0;
  auto pos = live_.begin();
  for (; pos != live_.end(); ++pos) {
    if (at + bytes <= pos->offset) break;
    at = std::max(at, (pos->offset + pos->bytes + align - 1) / align * align);
  }
  live_.insert(pos, {std::move(what), op, loc, at, bytes, next_id_++, held});
  if (at + bytes > peak_) {
    peak_ = at + bytes;
    peak_buffers_ = live_;
  }
  return at;
}

void SharedArena::release_to(std::size_t mark) {
  CUTLET_ASSERT(mark <= next_id_, "shared-memory buffers released out of order");
  std::erase_if(live_, [&](const Buffer& b) { return b.id >= mark && !b.held; });
}

void SharedArena::release(std::int64_t offset) {
  const auto n = std::erase_if(live_, [&](const Buffer& b) { return b.held && b.offset == offset; });
  CUTLET_ASSERT(n == 1, "a release of a shared-memory buffer that is not held");
}

}  // namespace cutlet::ir
