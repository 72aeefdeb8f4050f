// Internal: choosing tile layouts ahead of lowering, so that values meet in the layout their
// consumers want instead of being converted through shared memory.
#pragma once

#include <optional>
#include <vector>

#include "cutlet/ir/function.h"
#include "tile_layout.h"

namespace cutlet::backend {

/// For each value of `fn`, the layout its uses would like it in, if any: walking backwards,
/// a broadcast wants its operand in its own result's layout, an expand_dims wants the slice of
/// it, elementwise ops, loads and stores pass their wishes on to their tile operands, a dot
/// wants its accumulator in the mma layout, and loops pass them between carried values. Tile
/// sources (arange, splat) are then made directly in the wanted layout.
/// `whole_rows`: the kernel's dots give each warp whole rows (dots_take_whole_rows).
std::vector<std::optional<TileLayout>> plan_layouts(const ir::Function& fn, int warps, bool whole_rows);

/// The mma accumulator layout of an M x N dot on `warps` warps, if tensor cores apply: the
/// warps split M and N so that each warp's part is as square as can be (the fewest fragment
/// reads per mma), or, with `whole_rows`, split M alone where M allows it (each warp holds
/// whole rows of the result).
std::optional<TileLayout> mma_layout(std::int64_t m, std::int64_t n, int warps, bool whole_rows = false);

/// Whether the dots of `fn` give each warp whole rows (see mma_layout): true when a dot's
/// result is reduced along its rows or becomes the a operand of another dot, as attention's
/// S = Q K^T is (row max and sum, then P V). Rows then reduce within a warp, with shuffles
/// only, and P's accumulator registers are the next dot's a fragments, as in FlashAttention.
bool dots_take_whole_rows(const ir::Function& fn);

}  // namespace cutlet::backend
