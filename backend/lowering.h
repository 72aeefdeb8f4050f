// Internal: state and tables shared by the IR -> LLVM IR lowering files.
#pragma once

#include <array>
#include <string>
#include <vector>

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

#include "cutlet/ir/function.h"

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

  llvm::Value* get(ir::ValueId v) const { return values.at(v); }
};

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
std::unique_ptr<llvm::Module> lower_to_llvm(const ir::Function& fn, llvm::LLVMContext& ctx, const LoweringOptions& options);

}  // namespace cutlet::backend
