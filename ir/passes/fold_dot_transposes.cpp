// Folding tile transposes into the dots that read them.
#include "cutlet/ir/passes/passes.h"

namespace cutlet::ir {
namespace {

/// The operand of `v`'s definition when that is a transpose of a 2-D tile, else kNone.
ValueId transposed_source(const Function& f, ValueId v) {
  const Instruction* d = f.def_of(v);
  if (!d || d->op != Opcode::TilePermute || d->attrs.size() != 2) return kNone;
  return d->int_attr(0) == 1 && d->int_attr(1) == 0 ? d->operands[0] : kNone;
}

void fold(Function& f, const Region& r) {
  for (InstId id : r.body) {
    for (const Region& sub : f.inst(id).regions) fold(f, sub);
    Instruction& inst = f.inst(id);
    if (inst.op != Opcode::TileDot) continue;
    for (int k = 0; k < 2; ++k) {
      const std::int64_t bit = k == 0 ? ATransposed : BTransposed;
      const ValueId src = transposed_source(f, inst.operands[k]);
      if (src == kNone || (inst.int_attr(1) & bit)) continue;
      inst.operands[k] = src;
      inst.attrs[1] = inst.int_attr(1) | bit;
    }
  }
}

}  // namespace

Function fold_dot_transposes(Function f) {
  fold(f, f.body());
  return f;
}

}  // namespace cutlet::ir
