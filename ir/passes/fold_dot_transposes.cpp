// Folding tile transposes into the dots that read them.
#include "cutlet/ir/passes/passes.h"

#include <vector>

#include "cutlet/ir/ops.h"

namespace cutlet::ir {
namespace {

/// The operand of `v`'s definition when that is a transpose of a 2-D tile, else kNone.
ValueId transposed_source(const Function& f, ValueId v) {
  const Instruction* d = f.def_of(v);
  if (!d || d->op != Opcode::TilePermute) return kNone;
  const ops::TilePermute permute(*d);
  return permute.perm() == std::vector<int>{1, 0} ? permute.source() : kNone;
}

void fold(Function& f, const Region& r) {
  for (InstId id : r.body) {
    for (const Region& sub : f.inst(id).regions) fold(f, sub);
    Instruction& inst = f.inst(id);
    if (inst.op != Opcode::TileDot) continue;
    for (const std::size_t k : {ops::TileDot::a_operand, ops::TileDot::b_operand}) {
      const std::int64_t bit = k == ops::TileDot::a_operand ? ATransposed : BTransposed;
      const ValueId src = transposed_source(f, inst.operands[k]);
      const std::int64_t transposed = ops::TileDot(inst).transposed();
      if (src == kNone || (transposed & bit)) continue;
      inst.operands[k] = src;
      inst.attrs[ops::TileDot::transposed_attr] = transposed | bit;
    }
  }
}

}  // namespace

Function fold_dot_transposes(Function f) {
  fold(f, f.body());
  return f;
}

}  // namespace cutlet::ir
