// What is known at compile time about the integer tiles that index memory, for
// choosing vector accesses (after Triton's axis analysis).
#pragma once

#include <cstdint>
#include <vector>

#include "cutlet/ir/function.h"

namespace cutlet::ir {

/// Per dimension of an integer or bool tile:
///  - contiguity: elements come in runs of this many consecutive values (+1 each) along it;
///  - divisibility: the first value of each run is a multiple of this (a power of two);
///  - constancy: elements come in runs of this many equal values along it.
struct AxisInfo {
  std::vector<std::int64_t> contiguity, divisibility, constancy;
};

/// The axis facts of tile value v of f.
AxisInfo axis_info(const Function& f, ValueId v);

/// The largest power of two known to divide scalar v (for a pointer: its byte alignment).
std::int64_t scalar_divisibility(const Function& f, ValueId v);

}  // namespace cutlet::ir
