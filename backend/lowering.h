// Internal: state and tables shared by the IR -> LLVM IR lowering files.
#pragma once

#include <array>
#include <vector>

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

#include "cutlet/ir/function.h"

namespace cutlet::backend {

/// The state of lowering one function.
struct LoweringContext {
  const ir::Function& fn;
  llvm::LLVMContext& ctx;
  llvm::Module& module;
  llvm::Function* kernel;
  llvm::IRBuilder<>& b;
  llvm::IRBuilder<>& entry;  ///< inserts at the top of the entry block (allocas)
  std::vector<llvm::Value*> values;

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

/// Each family file registers its ops.
void register_elementwise(LoweringTable& t);
void register_memory(LoweringTable& t);

/// Builds an LLVM module with one kernel for `fn`.
std::unique_ptr<llvm::Module> lower_to_llvm(const ir::Function& fn, llvm::LLVMContext& ctx, bool fma_contraction);

}  // namespace cutlet::backend
