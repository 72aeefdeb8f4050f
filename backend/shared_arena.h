// Internal: the one shared-memory arena of a kernel. Every buffer the tile lowering needs
// (layout conversions, cross-warp reductions and scans, dot operands staged from registers,
// the stage rings of pipelined loops) is placed in the kernel's dynamic shared memory by
// liveness, as Triton's allocation analysis does: a buffer is live from its allocation until
// the op (or loop) that allocated it has been lowered, and buffers whose lifetimes do not
// overlap share bytes. Lifetimes nest (an op inside a loop lives inside the loop's stage
// rings), so the live buffers always form a stack and each new buffer goes on its top; the
// arena's size is the highest the stack ever grew.
//
// Reuse is safe because every op that writes a buffer crosses a block barrier first (after
// the previous user's reads of the same bytes), and a pipelined loop waits for its last
// cp.async copies before its stage rings are released.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cutlet/ir/function.h"

namespace cutlet::backend {

class SharedArena {
 public:
  /// One live buffer: what it holds, for whom, and where in the arena.
  struct Buffer {
    std::string what;     ///< "layout conversion", "stage ring (3 x 10240 bytes)", ...
    std::string op;       ///< the IR op it serves ("tile.dot")
    ir::Location loc;     ///< that op's source line
    std::int64_t offset = 0;
    std::int64_t bytes = 0;
  };

  /// Places `bytes` at the top of the live buffers, aligned to `align` (a power of two);
  /// returns the byte offset in the arena. The buffer lives until release_to() of a mark
  /// taken before it.
  std::int64_t allocate(std::int64_t bytes, std::int64_t align, std::string what, std::string op, ir::Location loc);
  /// The current top of the stack, to release back to.
  std::size_t mark() const { return live_.size(); }
  /// Ends the lives of the buffers allocated since `mark`.
  void release_to(std::size_t mark);

  /// The arena's size: the most bytes ever live at once.
  std::int64_t peak() const { return peak_; }
  /// The buffers that were live when the arena reached its peak, bottom first.
  const std::vector<Buffer>& peak_buffers() const { return peak_buffers_; }

 private:
  std::int64_t top() const { return live_.empty() ? 0 : live_.back().offset + live_.back().bytes; }
  std::vector<Buffer> live_;
  std::vector<Buffer> peak_buffers_;
  std::int64_t peak_ = 0;
};

}  // namespace cutlet::backend
