// Internal: multi-stage software pipelining of tile loops. A tile load in a loop body whose
// only use is an operand of a tensor-core dot is not loaded into registers: it is copied
// global -> shared memory with cp.async into a ring of `stages` buffers, filled iterations
// ahead and laid out as the dot reads its fragments, so the copies of later iterations overlap
// the math of this one (as Triton's and CUTLASS's multistage mainloops do).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "cutlet/ir/function.h"
#include "cutlet/ir/tile_dot.h"
#include "tile_layout.h"

namespace cutlet::backend {

/// One load of a loop body lowered to cp.async copies into stage buffers.
struct AsyncCopy {
  ir::InstId load;     ///< the tile.load
  ir::InstId dot;      ///< the tile.dot that reads it
  int operand = 0;     ///< as its a (0) or b (1)
  TileLayout layout;   ///< how the block's threads share the copy
  int width = 1;       ///< elements per cp.async (4, 8 or 16 bytes)
  std::int64_t rows = 0, cols = 0;  ///< the tile (2-D)
  std::int64_t stride = 0;          ///< elements per row in shared memory (padded)
  std::int64_t stage_bytes = 0;     ///< one stage's buffer, 128-byte multiple
  std::int64_t offset = 0;          ///< stage 0's buffer in the reserved dynamic shared memory
};

/// The loads among `candidates` (loads of `loop`'s body whose addresses depend only on the
/// induction variable and values from before the loop) that become cp.async copies: each is
/// used only as the a or b operand of one tensor-core dot of the body, reads global memory
/// in pieces of 4 to 16 aligned bytes, and pads masked-off elements with zero.
std::vector<AsyncCopy> plan_async_copies(const ir::Function& fn, const ir::Instruction& loop,
                                         const std::vector<ir::InstId>& candidates, int warps);

/// The dot of `loop`'s body (at its top level) whose a and b are `copies`' only two loads,
/// if there is one: its fragments can be pipelined across iterations (see DotPipeline).
std::optional<ir::InstId> fragment_pipelined_dot(const ir::Instruction& loop, const std::vector<AsyncCopy>& copies);

/// The stages of the function's pipelined loops (KernelOptions::tile_stages, default 3).
int pipeline_stages(const ir::Function& fn);

using ir::DotShape;
using ir::dot_shape;
using ir::dot_uses_mma;

/// The row stride, in elements, of a dot operand held in shared memory as `rows` of `cols`
/// (`along_k`: its rows run along K, as a [M, K] a or a transposed b [N, K]; otherwise along
/// M or N, as a [K, N] b or a transposed a): rows are padded so that the fragment reads of a
/// warp hit distinct banks.
std::int64_t dot_operand_stride(bool along_k, std::int64_t cols, ir::Type elem);

}  // namespace cutlet::backend
