// Dead-code elimination over structured regions.
#include <vector>

#include "cutlet/ir/passes/passes.h"

namespace cutlet::ir {
namespace {

/// What the op table's traits allow to drop when the results are unused: pure ops, ops that
/// only observe memory or state (loads of every kind, activemask) and allocations.
bool removable(const Instruction& inst) {
  if (!inst.regions.empty() || has_trait(inst.op, WritesMemory)) return false;
  return has_trait(inst.op, Pure) || has_trait(inst.op, ReadsMemory) || has_trait(inst.op, Allocates);
}

void count_uses(const Function& f, const Region& r, std::vector<std::uint32_t>& uses) {
  for (InstId id : r.body) {
    const Instruction& inst = f.inst(id);
    for (auto v : inst.operands) ++uses[v];
    for (const auto& sub : inst.regions) count_uses(f, sub, uses);
  }
}

bool sweep(Function& f, Region& r, std::vector<std::uint32_t>& uses) {
  bool changed = false;
  std::vector<InstId> kept;
  kept.reserve(r.body.size());
  // Walk backwards so that removing a use can free its producer in the same sweep.
  for (auto it = r.body.rbegin(); it != r.body.rend(); ++it) {
    Instruction& inst = f.inst(*it);
    for (auto& sub : inst.regions) changed |= sweep(f, sub, uses);
    bool dead = removable(inst);
    for (auto res : inst.results) dead = dead && uses[res] == 0;
    if (dead) {
      for (auto v : inst.operands) --uses[v];
      changed = true;
    } else {
      kept.push_back(*it);
    }
  }
  r.body.assign(kept.rbegin(), kept.rend());
  return changed;
}

}  // namespace

Function dead_code_elimination(Function f) {
  // An alloca whose pointer is only stored through is still "used" by those stores; those
  // are left to LLVM, which removes dead local variables anyway.
  for (;;) {
    std::vector<std::uint32_t> uses(f.num_values(), 0);
    count_uses(f, f.body(), uses);
    if (!sweep(f, f.body(), uses)) break;
  }
  return f;
}

}  // namespace cutlet::ir
