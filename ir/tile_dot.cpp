// The shape rules of tile.dot (see tile_dot.h).
#include "cutlet/ir/tile_dot.h"

#include "cutlet/ir/layout.h"

namespace cutlet::ir {

DotShape dot_shape(const Function& fn, const Instruction& dot) {
  const std::int64_t tr = dot.attrs.size() > 1 ? dot.int_attr(1) : 0;
  const bool at = (tr & ATransposed) != 0, bt = (tr & BTransposed) != 0;
  auto sa = fn.type_of(dot.operands[0]).shape(), sc = fn.type_of(dot.results[0]).shape();
  return {sc[0], sc[1], at ? sa[0] : sa[1], at, bt};
}

bool dot_uses_mma(const Function& fn, const Instruction& dot, int warps) {
  const DotShape s = dot_shape(fn, dot);
  const bool f32 = fn.type_of(dot.operands[0]).element() == Type::f32();
  const bool tf32 = dot.int_attr() != 0;
  if (f32 && !tf32) return false;
  return mma_layout(s.m, s.n, warps).has_value() && s.k % (f32 ? 8 : 16) == 0;
}

std::int64_t dot_operand_stride(bool along_k, std::int64_t cols, Type elem) {
  // 16-bit elements: rows 16 bytes apart modulo 128, so ldmatrix's eight 16-byte row reads
  // cover all banks. tf32: rows along K are read as words at row g, column q (g < 8, q < 4):
  // a stride of 4 modulo 32 words; the others at row q, column g: 8 modulo 32.
  if (elem.bits() == 32) return cols + (along_k ? 4 : 8);
  return cols + 8;
}

}  // namespace cutlet::ir
