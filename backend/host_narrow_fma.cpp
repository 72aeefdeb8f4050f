// Multiply-adds of 16-bit floats in host code, contracted as a GPU contracts them.
#include "host_narrow_fma.h"

#include <vector>

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/Module.h>

namespace cutlet::backend {
namespace {

bool is_narrow_float(const llvm::Type* t) {
  const llvm::Type* e = t->getScalarType();
  return e->isHalfTy() || e->isBFloatTy();
}

/// `v` when it is a product that only one instruction uses.
llvm::BinaryOperator* lone_product(llvm::Value* v) {
  auto* mul = llvm::dyn_cast<llvm::BinaryOperator>(v);
  return mul && mul->getOpcode() == llvm::Instruction::FMul && mul->hasOneUse() ? mul : nullptr;
}

}  // namespace

void contract_narrow_float_multiply_adds(llvm::Module& m) {
  for (llvm::Function& f : m) {
    std::vector<llvm::BinaryOperator*> sums;
    for (llvm::Instruction& inst : llvm::instructions(f))
      if (auto* op = llvm::dyn_cast<llvm::BinaryOperator>(&inst);
          op && (op->getOpcode() == llvm::Instruction::FAdd || op->getOpcode() == llvm::Instruction::FSub) &&
          is_narrow_float(op->getType()))
        sums.push_back(op);
    for (llvm::BinaryOperator* sum : sums) {
      const bool subtract = sum->getOpcode() == llvm::Instruction::FSub;
      llvm::BinaryOperator* mul = lone_product(sum->getOperand(0));
      bool product_subtracted = false;  // c - a * b
      if (!mul) {
        mul = lone_product(sum->getOperand(1));
        product_subtracted = subtract;
      }
      if (!mul) continue;
      llvm::IRBuilder<> b(sum);
      llvm::Value* x = mul->getOperand(0);
      llvm::Value* y = mul->getOperand(1);
      llvm::Value* addend = sum->getOperand(mul == sum->getOperand(0) ? 1 : 0);
      if (product_subtracted) x = b.CreateFNeg(x);
      else if (subtract) addend = b.CreateFNeg(addend);
      llvm::Value* fma = b.CreateIntrinsic(llvm::Intrinsic::fma, {sum->getType()}, {x, y, addend});
      fma->takeName(sum);
      sum->replaceAllUsesWith(fma);
      sum->eraseFromParent();
      mul->eraseFromParent();
    }
  }
}

}  // namespace cutlet::backend
