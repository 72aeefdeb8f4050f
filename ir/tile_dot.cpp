// The shape rules of tile.dot (see tile_dot.h).
#include "cutlet/ir/tile_dot.h"

#include "cutlet/ir/layout.h"
#include "cutlet/ir/ops.h"

namespace cutlet::ir {

DotShape dot_shape(const Function& fn, const Instruction& dot) {
  const ops::TileDot d(dot);
  const std::int64_t tr = d.transposed();
  const bool at = (tr & ATransposed) != 0, bt = (tr & BTransposed) != 0;
  auto sa = fn.type_of(d.a()).shape(), sc = fn.type_of(d.result()).shape();
  return {sc[0], sc[1], at ? sa[0] : sa[1], at, bt};
}

bool dot_uses_mma(const Function& fn, const Instruction& dot, int warps) {
  const DotShape s = dot_shape(fn, dot);
  const bool f32 = fn.type_of(ops::TileDot(dot).a()).element() == Type::f32();
  const bool tf32 = ops::TileDot(dot).tf32();
  if (f32 && !tf32) return false;
  return mma_layout(s.m, s.n, warps).has_value() && s.k % (f32 ? 8 : 16) == 0;
}

bool dot_a_from_registers(const Function& fn, const Instruction& dot) {
  const Type a = fn.type_of(ops::TileDot(dot).a());
  const Layout* l = a.layout();
  const Layout* mma = fn.type_of(dot.results[0]).layout();
  if (!l || !mma || a.element() == Type::f32() || dot_shape(fn, dot).a_transposed || l->is_shared() || l->is_dot_operand())
    return false;
  return l->rank() == 2 && !l->is_slice() && l->spt == std::vector<int>{1, 2} && l->tpw == std::vector<int>{8, 4} &&
         l->order == std::vector<int>{1, 0} && l->wpc[1] == 1 && l->wpc[0] == mma->wpc[0] && mma->wpc[1] == 1 &&
         l->shape[0] == mma->shape[0];
}

std::int64_t dot_operand_stride(bool along_k, std::int64_t cols, Type elem) {
  // 16-bit elements: rows 16 bytes apart modulo 128, so ldmatrix's eight 16-byte row reads
  // cover all banks. tf32: rows along K are read as words at row g, column q (g < 8, q < 4):
  // a stride of 4 modulo 32 words; the others at row q, column g: 8 modulo 32.
  if (elem.bits() == 32) return cols + (along_k ? 4 : 8);
  return cols + 8;
}

}  // namespace cutlet::ir
