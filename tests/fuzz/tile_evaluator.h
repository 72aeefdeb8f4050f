// The host reference of a TileProgram, with an error bound for every element.
#pragma once

#include <cstdint>
#include <vector>

#include <cutlet/language/half.h>

#include "fuzz/tile_program.h"

namespace cutlet::fuzz {

/// A launch's inputs: x and y [rows, cols], bh and bb [n, n].
struct TileData {
  std::vector<float> x, y;
  std::vector<half> bh;
  std::vector<bfloat16> bb;
};

/// Random non-zero inputs for `p` (the same for the same seed).
TileData random_tile_data(const TileProgram& p, std::uint64_t seed);

/// The outputs and, per element, how far the GPU's may be from them: 0 where every
/// operation is exact (then the results must be equal), else a bound from the rounding of
/// sums in another order (reductions, scans, dot) carried through the later operations.
struct TileExpected {
  std::vector<float> out, out_row;
  std::vector<double> out_error, row_error;
};

TileExpected evaluate_tile(const TileProgram& p, const TileData& data);

}  // namespace cutlet::fuzz
