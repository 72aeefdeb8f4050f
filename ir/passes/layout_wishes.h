// Internal to the layout passes: the layouts tile values' uses would like them in, so that
// assign-layouts makes values in the layout their consumers want instead of converting them.
#pragma once

#include <optional>
#include <vector>

#include "cutlet/ir/function.h"
#include "cutlet/ir/layout.h"

namespace cutlet::ir {

/// For each value of `fn`, the layout its uses would like it in, if any: walking backwards,
/// a broadcast wants its operand in its own result's layout, an expand_dims wants the slice of
/// it, elementwise ops, loads and stores pass their wishes on to their tile operands, a dot
/// wants its accumulator in the mma layout, and loops pass them between carried values. Tile
/// sources (arange, splat) are then made directly in the wanted layout.
/// `whole_rows`: the kernel's dots give each warp whole rows (dots_take_whole_rows).
std::vector<std::optional<Layout>> layout_wishes(const Function& fn, int warps, bool whole_rows);

/// Whether the dots of `fn` give each warp whole rows (see mma_layout in layout.h): true when a dot's
/// result is reduced along its rows or becomes the a operand of another dot, as attention's
/// S = Q K^T is (row max and sum, then P V). Rows then reduce within a warp, with shuffles
/// only, and P's accumulator registers are the next dot's a fragments, as in FlashAttention.
bool dots_take_whole_rows(const Function& fn);

}  // namespace cutlet::ir
