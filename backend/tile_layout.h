// Internal: tile layouts (see cutlet/ir/layout.h) on the machine: the coordinates each thread
// and each of its registers hold. A thread's elements are an LLVM vector of registers,
// numbered row-major over the per-dimension register indices.
#pragma once

#include <cstdint>
#include <vector>

#include <llvm/IR/IRBuilder.h>

#include "cutlet/ir/layout.h"

namespace cutlet::backend {

struct LoweringContext;

/// Layouts are IR data (cutlet/ir/layout.h); the backend maps them onto threads.
using TileLayout = ir::Layout;
using ir::default_layout;
using ir::insert_dim_layout;
using ir::mma_layout;
using ir::slice_layout;

/// The thread's position along each dimension of a layout's pattern (warp * tpw * lane_reps + lane), as
/// i32 values computed from %tid.x.
std::vector<llvm::Value*> thread_coords(LoweringContext& c, const TileLayout& l);

/// The coordinates of register r of a thread at `coords` (from thread_coords), as i32 values,
/// one per dimension of the tile (a slice's removed dimension is left out).
std::vector<llvm::Value*> element_coords(llvm::IRBuilder<>& b, const TileLayout& l, const std::vector<llvm::Value*>& coords,
                                         int r);

/// Whether the thread at `coords` holds the first copy of register r's element (an i1). Where a
/// layout covers more than its tile, or is a slice, several threads (or registers) hold the same
/// element; stores to shared memory from only one of them keep the copies from racing. Null
/// when every holder of this register is the only one (nothing to test).
llvm::Value* holds_first_copy(llvm::IRBuilder<>& b, const TileLayout& l, const std::vector<llvm::Value*>& coords, int r);

}  // namespace cutlet::backend
