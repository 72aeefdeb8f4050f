// Ordering a tile kernel's straight-line code for registers, before LLVM's optimizations (see
// order_for_registers.h).
#include "order_for_registers.h"

#include <vector>

#include <llvm/Analysis/LoopInfo.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/InlineAsm.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/PassManager.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Transforms/Scalar/Scalarizer.h>

namespace cutlet::backend {
namespace {

/// Whether `i` may move within its block: no effects, no memory, not a phi, a terminator,
/// an alloca or a convergent call; calls of libdevice's math functions (pure) may.
bool movable(const llvm::Instruction& i) {
  if (llvm::isa<llvm::PHINode>(i) || i.isTerminator() || llvm::isa<llvm::AllocaInst>(i)) return false;
  if (const auto* call = llvm::dyn_cast<llvm::CallBase>(&i)) {
    if (call->isInlineAsm() || call->isConvergent()) return false;
    const llvm::Function* callee = call->getCalledFunction();
    if (callee && callee->getName().starts_with("__nv_")) return true;
  }
  return !i.mayHaveSideEffects() && !i.mayReadFromMemory();
}

void sink_to_first_use(llvm::BasicBlock& bb) {
  std::vector<llvm::Instruction*> insts;
  for (llvm::Instruction& i : bb) insts.push_back(&i);
  for (auto it = insts.rbegin(); it != insts.rend(); ++it) {
    llvm::Instruction* i = *it;
    if (!movable(*i)) continue;
    llvm::Instruction* first = nullptr;
    bool local = true;
    for (llvm::User* u : i->users()) {
      auto* ui = llvm::cast<llvm::Instruction>(u);
      if (ui->getParent() != &bb || llvm::isa<llvm::PHINode>(ui)) {
        local = false;
        break;
      }
      if (!first || ui->comesBefore(first)) first = ui;
    }
    if (local && first && first != i->getNextNode()) i->moveBefore(first);
  }
}

}  // namespace

void order_for_registers(llvm::Function& f) {
  if (f.isDeclaration()) return;
  {
    llvm::FunctionAnalysisManager fam;
    llvm::PassBuilder pb;
    pb.registerFunctionAnalyses(fam);
    llvm::ScalarizerPass().run(f, fam);
  }
  llvm::DominatorTree dt(f);
  llvm::LoopInfo loops(dt);
  for (llvm::BasicBlock& bb : f)
    if (!loops.getLoopFor(&bb)) sink_to_first_use(bb);
}

}  // namespace cutlet::backend
