// Internal: state and tables shared by the IR -> LLVM IR lowering files.
#pragma once

#include <array>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

#include "cutlet/ir/function.h"
#include "shared_arena.h"
#include "tile_layout.h"

namespace cutlet::backend {

/// Code-generation choices that change how ops are lowered.
struct LoweringOptions {
  bool fma_contraction = true;
  bool flush_denormals = false;
  bool approx_math = false;
  bool line_info = false;
};

/// The state of lowering one function.
struct LoweringContext {
  const ir::Function& fn;
  llvm::LLVMContext& ctx;
  llvm::Module& module;
  llvm::Function* kernel;
  llvm::IRBuilder<>& b;
  llvm::IRBuilder<>& entry;  ///< inserts at the top of the entry block (allocas)
  std::vector<llvm::Value*> values;
  LoweringOptions options;
  /// Tile values: the layout each was lowered in (its type's, see result_layout).
  std::vector<std::optional<TileLayout>> layouts = std::vector<std::optional<TileLayout>>(fn.num_values());
  int warps = fn.tile_warps() > 0 ? fn.tile_warps() : 4;
  /// A buffer of a 2-D tile in shared memory: row-major rows of `stride` elements from `base`.
  struct SharedTile {
    llvm::Value* base;
    std::int64_t stride;
  };
  /// The arena offsets of the tile.local_alloc buffers live now, by value.
  std::map<ir::ValueId, std::int64_t> local_buffers;
  /// The kernel's own shared memory (conversions, reductions, stage rings: see
  /// shared_arena.h), at the start of its dynamic shared memory; dynamic_shared() gives the
  /// user the memory after it.
  SharedArena arena;
  /// The op being lowered (named by the arena's buffers).
  const ir::Instruction* current = nullptr;
  /// A kernel's shared_arrays: their offsets in the arena, where they live for the whole
  /// kernel (a device function's arrays are static shared variables).
  std::map<const ir::Instruction*, std::int64_t> shared_arrays;
  /// The pointers dynamic_shared() returned, moved past the pool once its size is known.
  std::vector<llvm::GetElementPtrInst*> user_dynamic_shared;

  llvm::Value* get(ir::ValueId v) const { return values.at(v); }
  /// The LLVM type of value v: a tile is a vector of the thread's registers.
  llvm::Type* type_of(ir::ValueId v) const;
};

/// The start of the kernel's dynamic shared memory (one external array per module).
llvm::GlobalVariable* dynamic_shared_base(LoweringContext& c);
/// Places a buffer of `bytes` in the kernel's shared-memory arena for the op being lowered
/// (c.current), live until that op is lowered; returns its byte offset in dynamic shared memory.
std::int64_t arena_allocate(LoweringContext& c, std::int64_t bytes, std::int64_t align, std::string what);
/// The dynamic shared memory a lowered kernel module reserved (0 if none).
int reserved_dynamic_shared(const llvm::Module& module);

/// The LLVM type of an IR scalar or pointer type.
llvm::Type* llvm_type(llvm::LLVMContext& ctx, ir::Type t);

/// Lowers one non-region instruction; returns its result (nullptr when it has none).
using LowerFn = llvm::Value* (*)(LoweringContext&, const ir::Instruction&);

/// One entry per opcode; region ops and terminators are handled by the walker itself.
struct LoweringTable {
  std::array<LowerFn, 256> fns{};
  void set(ir::Opcode op, LowerFn fn) { fns[static_cast<int>(op)] = fn; }
  LowerFn get(ir::Opcode op) const { return fns[static_cast<int>(op)]; }
};

/// Line-table debug info for one kernel (see debug_info.cpp).
class DebugInfo;

/// Each family file registers its ops.
void register_elementwise(LoweringTable& t);
void register_memory(LoweringTable& t);
void register_vector(LoweringTable& t);
void register_sync(LoweringTable& t);
void register_warp(LoweringTable& t);
void register_math(LoweringTable& t);
void register_diagnostics(LoweringTable& t);
void register_calls(LoweringTable& t);
void register_tiles(LoweringTable& t);
void register_tile_dot(LoweringTable& t);
void register_tile_reduce(LoweringTable& t);
void register_tile_shared(LoweringTable& t);

/// The layout tile value v is made in: its type's (assigned by ir::assign_layouts).
const TileLayout& result_layout(const LoweringContext& c, ir::ValueId v);
/// Tile operands of an elementwise op (add, cmp, select, cast, math, ...) are brought to
/// the result's layout (assign-layouts placed them so) and the results get it; the values the
/// op should see are swapped into c.values until restore_tile_operands.
using SavedValues = std::vector<std::pair<ir::ValueId, llvm::Value*>>;
SavedValues prepare_tile_operands(LoweringContext& c, const ir::Instruction& inst);
void restore_tile_operands(LoweringContext& c, const SavedValues& saved);
/// The lowering of `op` (nullptr for region ops and terminators).
LowerFn lowering_of(ir::Opcode op);
/// Tile value v in layout `l`: as it is when its layout places elements as `l` does, else
/// converted through shared memory.
llvm::Value* tile_in_layout(LoweringContext& c, ir::ValueId v, const TileLayout& l);

/// A warp shuffle (shfl.sync `kind` over the lanes of `mask`, with the clamp of CUDA's
/// __shfl_*_sync at width 32) of any scalar of 1 to 64 bits: narrower values travel in a
/// 32-bit word, 64-bit ones as two halves.
llvm::Value* warp_shuffle(LoweringContext& c, ir::ShuffleKind kind, llvm::Value* mask, llvm::Value* v, llvm::Value* lane);

/// The PTX type suffix of a scalar for inline PTX ("f32", "u64", "b16", ...).
std::string ptx_type(ir::Type t);
/// The inline-asm register constraint of a scalar ("f", "d", "r", "l", "h").
std::string ptx_constraint(ir::Type t);
/// The natural alignment of a scalar.
llvm::Align natural_align(ir::Type elem);
/// Calls inline PTX `text` with `constraints` (memory is always clobbered).
llvm::Value* inline_ptx(LoweringContext& c, llvm::Type* result, const std::string& text, const std::string& constraints,
                        std::vector<llvm::Value*> args);

/// Builds an LLVM module for `fn`: a kernel entry point, or (for a device function) a
/// visible function other code can link against; the device functions it calls come first.
/// `arena`, if given, receives the kernel's shared-memory arena (its peak and the buffers live then).
std::unique_ptr<llvm::Module> lower_to_llvm(const ir::Function& fn, llvm::LLVMContext& ctx, const LoweringOptions& options,
                                            SharedArena* arena = nullptr);

}  // namespace cutlet::backend
