// Internal to allocate-shared: first-fit placement of live buffers in one arena and its
// high-water mark. Each new buffer goes at the lowest aligned offset where it overlaps no
// live buffer, so buffers whose lifetimes do not overlap share bytes; the arena's size is the
// highest end ever live.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cutlet/ir/function.h"

namespace cutlet::ir {

class SharedArena {
 public:
  /// One live buffer: what it holds, for whom, and where in the arena.
  struct Buffer {
    std::string what;     ///< "layout conversion", "cp.async stage ring of a (...)", ...
    Opcode op{};          ///< the IR op it serves
    Location loc;         ///< that op's source line
    std::int64_t offset = 0;
    std::int64_t bytes = 0;
    std::size_t id = 0;  ///< allocation number
    bool held = false;   ///< released by release(offset) only
  };

  /// Places `bytes` at the lowest offset aligned to `align` (a power of two) where they
  /// overlap no live buffer; returns that byte offset in the arena. The buffer lives until
  /// release_to() of a mark taken before it, or, when `held`, until release(offset).
  std::int64_t allocate(std::int64_t bytes, std::int64_t align, std::string what, Opcode op, Location loc,
                        bool held = false);
  /// The number of allocations so far, to release back to.
  std::size_t mark() const { return next_id_; }
  /// Ends the lives of the buffers allocated since `mark` that are not held.
  void release_to(std::size_t mark);
  /// Ends the life of the held buffer at `offset`.
  void release(std::int64_t offset);

  /// The arena's size: the most bytes ever live at once.
  std::int64_t peak() const { return peak_; }
  /// The buffers that were live when the arena reached its peak, bottom first.
  const std::vector<Buffer>& peak_buffers() const { return peak_buffers_; }

 private:
  std::vector<Buffer> live_;  ///< by offset
  std::size_t next_id_ = 0;
  std::vector<Buffer> peak_buffers_;
  std::int64_t peak_ = 0;
};

}  // namespace cutlet::ir
