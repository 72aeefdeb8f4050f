// The lanes of an LLVM vector value and a vector made of lanes: how a thread's tile registers
// (one vector per tile) are taken apart and put back together.
#pragma once

#include <cstdint>
#include <vector>

#include <llvm/IR/IRBuilder.h>

namespace cutlet::backend {

/// The lanes of vector `v` in order, or {v} when it is a scalar.
inline std::vector<llvm::Value*> lanes_of(llvm::IRBuilder<>& b, llvm::Value* v) {
  auto* vt = llvm::dyn_cast<llvm::FixedVectorType>(v->getType());
  if (!vt) return {v};
  std::vector<llvm::Value*> out(vt->getNumElements());
  for (unsigned i = 0; i < vt->getNumElements(); ++i) out[i] = b.CreateExtractElement(v, static_cast<std::uint64_t>(i));
  return out;
}

/// A vector of `elem` holding `lanes` in order.
inline llvm::Value* vector_of(llvm::IRBuilder<>& b, llvm::Type* elem, const std::vector<llvm::Value*>& lanes) {
  llvm::Value* v = llvm::PoisonValue::get(llvm::FixedVectorType::get(elem, static_cast<unsigned>(lanes.size())));
  for (std::size_t i = 0; i < lanes.size(); ++i) v = b.CreateInsertElement(v, lanes[i], static_cast<std::uint64_t>(i));
  return v;
}

}  // namespace cutlet::backend
