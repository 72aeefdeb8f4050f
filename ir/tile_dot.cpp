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
  const Type elem = fn.type_of(ops::TileDot(dot).a()).element();
  if (elem.is_fp8()) return dot_uses_wgmma(fn, dot, warps);  // others are upcast to f16 first
  const bool f32 = elem == Type::f32();
  const bool tf32 = ops::TileDot(dot).tf32();
  if (f32 && !tf32) return false;
  if (fn.host_target()) return false;  // no tensor cores: FMAs
  return mma_layout(s.m, s.n, warps).has_value() && s.k % (f32 ? 8 : 16) == 0;
}

bool dot_uses_wgmma(const Function& fn, const Instruction& dot, int warps) {
  if (!fn.tile_wgmma()) return false;
  const ops::TileDot d(dot);
  const Type a = fn.type_of(d.a()).element(), b = fn.type_of(d.b()).element();
  const DotShape s = dot_shape(fn, dot);
  if (a.is_fp8() && b.is_fp8()) {
    // FP8: k32 MMAs reading both operands K-major from shared memory (no transpose bits).
    if (s.a_transposed || !s.b_transposed || s.k % 32 != 0) return false;
  } else if (a != b || (a != Type::f16() && a != Type::bf16())) {
    return false;
  }
  if (!wgmma_layout(s.m, s.n, warps) || s.k % 16 != 0) return false;
  if (s.n > 256 && s.n % 256 != 0) return false;
  // The operands held MN-major (b as given, a transposed) swizzle rows of M or N elements.
  if (!s.b_transposed && s.n % 16 != 0) return false;
  return true;
}

std::optional<Layout> dot_acc_layout(const Function& fn, const Instruction& dot, int warps, bool whole_rows) {
  const DotShape s = dot_shape(fn, dot);
  if (dot_uses_wgmma(fn, dot, warps)) return wgmma_layout(s.m, s.n, warps);
  if (!dot_uses_mma(fn, dot, warps)) return std::nullopt;
  return mma_layout(s.m, s.n, warps, whole_rows);
}

Layout dot_operand_shared_layout(const Function& fn, const Instruction& dot, int k, const std::vector<std::int64_t>& shape) {
  const Type elem = fn.type_of(k == 0 ? ops::TileDot(dot).a() : ops::TileDot(dot).b()).element();
  const int warps = fn.tile_warps() > 0 ? fn.tile_warps() : 4;
  if (dot_uses_wgmma(fn, dot, warps)) {
    const std::int64_t row_bytes = shape[1] * (elem.bits() / 8);
    const int swizzle = row_bytes % 128 == 0 ? 128 : row_bytes % 64 == 0 ? 64 : 32;
    Layout l = shared_layout(shape, {swizzle / (elem.bits() / 8), 1});
    l.swizzle = swizzle;
    return l;
  }
  const bool along_k = (k == 0) != dot_shape(fn, dot).transposed(k);
  return shared_layout(shape, {dot_operand_stride(along_k, shape[1], elem), 1});
}

Layout dot_operand_ring_layout(const Layout& stage, int stages, int elem_bytes) {
  const std::int64_t line = stage.swizzle ? 1024 : 128;
  const std::int64_t bytes = stage.shared_elements() * elem_bytes;
  const std::int64_t stage_elems = (bytes + line - 1) / line * line / elem_bytes;
  Layout ring = shared_layout({stages, stage.shape[0], stage.shape[1]}, {stage_elems, stage.strides[0], stage.strides[1]});
  ring.swizzle = stage.swizzle;
  return ring;
}

bool feeds_dot_wait(const Function& fn, ValueId v) {
  for (std::size_t i = 0; i < fn.num_insts(); ++i) {
    const Instruction& inst = fn.inst(static_cast<InstId>(i));
    if (inst.op == Opcode::TileDotWait && inst.operands[0] == v) return true;
  }
  return false;
}

bool dot_a_from_registers(const Function& fn, const Instruction& dot) {
  const Type a = fn.type_of(ops::TileDot(dot).a());
  const Layout* l = a.layout();
  const Layout* mma = fn.type_of(dot.results[0]).layout();
  if (!l || !mma || a.element().bits() != 16 || dot_shape(fn, dot).a_transposed || l->is_shared() || l->is_dot_operand())
    return false;
  // wgmma: a in the wgmma layout of the result's rows, whatever its width (its n8 blocks are
  // the k-steps' fragments).
  if (mma->is_wgmma()) return l->is_wgmma() && !l->is_slice() && l->shape[0] == mma->shape[0] && l->wpc == mma->wpc;
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
