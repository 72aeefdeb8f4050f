// The kernel's shared-memory arena: a stack of live buffers and its high-water mark.
#include "shared_arena.h"

#include "cutlet/error.h"

namespace cutlet::backend {

std::int64_t SharedArena::allocate(std::int64_t bytes, std::int64_t align, std::string what, std::string op,
                                   ir::Location loc) {
  CUTLET_ASSERT(bytes >= 0 && align > 0 && (align & (align - 1)) == 0, "a bad shared-memory allocation");
  const std::int64_t at = (top() + align - 1) / align * align;
  live_.push_back({std::move(what), std::move(op), loc, at, bytes});
  if (at + bytes > peak_) {
    peak_ = at + bytes;
    peak_buffers_ = live_;
  }
  return at;
}

void SharedArena::release_to(std::size_t mark) {
  CUTLET_ASSERT(mark <= live_.size(), "shared-memory buffers released out of order");
  live_.resize(mark);
}

}  // namespace cutlet::backend
