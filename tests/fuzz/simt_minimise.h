// Shrinking a failing per-thread program to a small one that still fails.
#pragma once

#include <functional>

#include "fuzz/simt_program.h"

namespace cutlet::fuzz {

/// True when a program still shows the failure being minimised.
using StillFails = std::function<bool(const SimtProgram&)>;

/// The number of single edits `shrink_step` can make to `p`.
int shrink_step_count(const SimtProgram& p);
/// `p` with edit `k` (0 <= k < shrink_step_count) made: a statement dropped, an if replaced by
/// one of its branches, or an expression replaced by an operand of its type or by 0 or 1.
SimtProgram shrink_step(const SimtProgram& p, int k);

/// Greedily applies the edits of shrink_step that keep `fails` true (and the program
/// defined on the host for random data), until none does or `max_tries` calls of `fails`.
SimtProgram minimise_simt(SimtProgram p, const StillFails& fails, int max_tries = 300);

}  // namespace cutlet::fuzz
