// Dead-code elimination over structured regions.
#include <vector>

#include "cutlet/ir/passes/passes.h"

namespace cutlet::ir {
namespace {

bool removable(const Instruction& inst) {
  switch (inst.op) {
    case Opcode::Load:
    case Opcode::VecLoad:
    case Opcode::TileLoad:
    case Opcode::Alloca:
    case Opcode::SharedAlloc:
    case Opcode::ActiveMask:
      return true;
    default:
      return has_trait(inst.op, Pure);
  }
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
