// A structural hash of a Function, stable across processes: the compiled-kernel cache key.
#pragma once

#include <cstdint>

#include "cutlet/ir/function.h"

namespace cutlet::ir {

/// Hashes `f`'s structure: ops, types, attributes, the data flow between values (by
/// position, not by id) and the region nesting; also its name. Two functions that print
/// the same hash the same, in any process. Source locations are part of the hash only
/// `with_locations` (file names and lines: what line information in the binary records).
std::uint64_t structural_hash(const Function& f, bool with_locations = false);

}  // namespace cutlet::ir
