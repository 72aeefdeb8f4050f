// What each op needs in shared memory: the sizes the allocate-shared pass places in a
// kernel's arena and the backend's lowering of the op uses, one rule per op.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cutlet/ir/function.h"

namespace cutlet::ir {

/// How long a shared-memory buffer lives.
enum class SharedLifetime : std::uint8_t {
  Op,       ///< while its op runs (scratch); later ops may reuse the bytes
  Dealloc,  ///< from its tile.local_alloc to the tile.local_dealloc of its result
  Kernel,   ///< the whole kernel (the user's shared_arrays)
};

/// A buffer an op asks for.
struct SharedRequest {
  std::int64_t bytes = 0;
  std::int64_t align = 16;
  SharedLifetime lifetime = SharedLifetime::Op;
  std::string what;  ///< for the arena's report: "layout conversion", "dot operand a", ...
};

/// The shared memory op `inst` of `f` (whose tiles have layouts) needs, in the order its
/// lowering uses the buffers:
///  - tile.convert_layout between layouts of different placements: the tile, row-major;
///  - tile.permute and tile.reshape: the source tile, row-major;
///  - tile.reduce, tile.reduce_with and tile.scan whose axis spans several warps: a slot per
///    warp along the axis and per result element, one buffer per component;
///  - tile.dot: each operand held in registers that its fragments are not read from (see
///    dot_a_fits_registers), in rows padded for its reads;
///  - tile.local_alloc: its buffer, 128-byte aligned, until its tile.local_dealloc;
///  - shared_alloc in a kernel (a shared_array): the array, for the whole kernel.
/// Booleans take a byte each. Other ops need none.
std::vector<SharedRequest> shared_requests(const Function& f, const Instruction& inst);

/// The bytes a tile element of scalar type `t` takes in shared memory (a bool: one).
std::int64_t shared_element_bytes(Type t);

}  // namespace cutlet::ir
