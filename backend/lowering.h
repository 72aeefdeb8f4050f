// Internal: state and tables shared by the IR -> LLVM IR lowering files.
#pragma once

#include <array>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

#include "cutlet/ir/function.h"
#include "cutlet/ir/ops.h"
#include "host_block.h"
#include "tile_layout.h"

namespace cutlet::backend {

/// Code-generation choices that change how ops are lowered.
struct LoweringOptions {
  bool fma_contraction = true;
  bool flush_denormals = false;
  bool approx_math = false;
  bool line_info = false;
  /// Lower for the host CPU (host_kernel.cpp) rather than NVPTX: a kernel takes one more
  /// parameter, its thread's special registers (kHostThreadStateWords words, host_block.h);
  /// barriers, warp operations, shared memory and device functions' special registers call
  /// the cutlet_host_* functions of host_block.h; atomics and fences are LLVM's own.
  bool host = false;
  /// Launch bounds of a GPU kernel (0: none): nvvm.annotations maxntidx and minctasm, which
  /// the NVPTX backend prints as .maxntid and .minnctapersm.
  int max_block_threads = 0;
  int min_blocks_per_sm = 0;
  /// On the host, lower a kernel as its block's threads in phases (host_phases.h) rather
  /// than as one thread (run as a fiber or in a loop over the block).
  bool host_phases = false;
  /// On the host, check every access of a kernel's loads, stores and atomics (host_check.h).
  bool checked = false;
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
  int warps = fn.tile_warps() > 0 ? fn.tile_warps() : 4;
  /// A buffer of a 2-D tile in shared memory: row-major rows of `stride` elements from `base`.
  struct SharedTile {
    llvm::Value* base;
    std::int64_t stride;
  };
  /// The op being lowered, and how many of its shared-memory buffers (Instruction::shared,
  /// placed by ir::allocate_shared at the start of the dynamic shared memory) it took so far.
  const ir::Instruction* current = nullptr;
  std::size_t shared_taken = 0;
  /// The pointers dynamic_shared() returned, moved past the pool once its size is known.
  std::vector<llvm::GetElementPtrInst*> user_dynamic_shared;
  /// For the host: the kernel's thread-state parameter (nullptr in device functions), and
  /// the block's shared memory once a lowering asked for it.
  llvm::Value* host_thread_state = nullptr;
  llvm::Value* host_shared = nullptr;
  /// For the host: the function is a kernel's block in phases (host_phases.h), which a failed
  /// assert_ leaves returning kPhasesAssertFailed.
  bool in_phases = false;

  llvm::Value* get(ir::ValueId v) const { return values.at(v); }
  /// The LLVM type of value v: a tile is a vector of the thread's registers.
  llvm::Type* type_of(ir::ValueId v) const;
};

/// The start of the kernel's dynamic shared memory (one external array per module; on the
/// host, the running block's shared memory), a pointer in address space 3.
llvm::Value* dynamic_shared_base(LoweringContext& c);
/// Special register `r` of the running thread (on the host: from the thread's state).
llvm::Value* special_register(LoweringContext& c, ir::SpecialReg r);
/// A call of host runtime function `name` (host_block.h) returning `ret`, for host lowerings.
llvm::Value* host_call(LoweringContext& c, const char* name, llvm::Type* ret, std::vector<llvm::Value*> args = {});
/// The next of the shared-memory buffers allocate-shared placed for the op being lowered
/// (c.current), which must be `bytes` long: its byte offset in dynamic shared memory. An op
/// lowered with other sizes than shared_requests gave is an InternalError.
std::int64_t take_shared(LoweringContext& c, std::int64_t bytes);
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
void register_bulk_async(LoweringTable& t);
/// Whether `op` is one of Hopper's bulk-copy or mbarrier ops (lower_bulk_async.cpp; sm_90).
bool is_bulk_async(ir::Opcode op);

/// The layout tile value v is made in: its type's (assigned by ir::assign_layouts).
const TileLayout& result_layout(const LoweringContext& c, ir::ValueId v);
/// An elementwise op on tiles (add, cmp, select, cast, math, ...) works on the thread's
/// registers: its tile operands' layouts place elements as its result's does (assign-layouts
/// converted them explicitly; anything else is an InternalError).
void check_elementwise_layouts(LoweringContext& c, const ir::Instruction& inst);
/// The lowering of `op` (nullptr for region ops and terminators).
LowerFn lowering_of(ir::Opcode op);
/// Tile value v, which an op reads in layout `l`: its registers, when its layout places
/// elements as `l` does. Only tile.convert_layout moves tiles between placements; an operand
/// in another placement is an InternalError (a missing conversion).
llvm::Value* tile_in_layout(LoweringContext& c, ir::ValueId v, const TileLayout& l);

/// A warp shuffle (shfl.sync `kind` over the lanes of `mask`, with the clamp of CUDA's
/// __shfl_*_sync at width 32) of any scalar of 1 to 64 bits: narrower values travel in a
/// 32-bit word, 64-bit ones as two halves.
llvm::Value* warp_shuffle(LoweringContext& c, ir::ShuffleKind kind, llvm::Value* mask, llvm::Value* v, llvm::Value* lane);

/// `access()` (a load, store or atomic of `bytes` bytes at `ptr`, which returns its result or
/// nullptr), behind the check of checked execution on the host (LoweringOptions::checked,
/// host_check.h) where it is on for a kernel: an access the check refuses is skipped, a load
/// giving zero. Otherwise just `access()`.
llvm::Value* checked_access(LoweringContext& c, const ir::Instruction& inst, llvm::Value* ptr, std::uint64_t bytes,
                            bool write, bool atomic, const std::function<llvm::Value*()>& access);

/// The host's warp collective (host_block.h) of a vote, match or redux instruction.
HostWarpOp host_warp_op(const ir::Function& fn, const ir::Instruction& inst);

/// The PTX type suffix of a scalar for inline PTX ("f32", "u64", "b16", ...).
std::string ptx_type(ir::Type t);
/// The inline-asm register constraint of a scalar ("f", "d", "r", "l", "h").
std::string ptx_constraint(ir::Type t);
/// The natural alignment of a scalar.
llvm::Align natural_align(ir::Type elem);
/// Calls inline PTX `text` with `constraints` (memory is always clobbered).
llvm::Value* inline_ptx(LoweringContext& c, llvm::Type* result, const std::string& text, const std::string& constraints,
                        std::vector<llvm::Value*> args);

/// Lowers the instructions `ids` (of one region, in order) as the walker lowers a region's;
/// returns the operands of a terminator among them.
std::vector<llvm::Value*> lower_instructions(LoweringContext& c, DebugInfo* debug, std::span<const ir::InstId> ids);

/// Builds an LLVM module for `fn`: a kernel entry point, or (for a device function) a
/// visible function other code can link against; the device functions it calls come first.
/// Functions that did not go through the pipeline get their layouts and shared memory first;
/// `lowered`, if given, receives the function as lowered (its shared-memory plan included).
std::unique_ptr<llvm::Module> lower_to_llvm(const ir::Function& fn, llvm::LLVMContext& ctx, const LoweringOptions& options,
                                            ir::Function* lowered = nullptr);

}  // namespace cutlet::backend
