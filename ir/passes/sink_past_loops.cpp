// Sinking past loops: a pure instruction whose first use comes after a loop moves down to just
// before that use, so that its value is not live (in registers) through the loop. Index
// arithmetic written before a kernel's main loop for its epilogue (the store's rows, columns
// and masks) would otherwise hold registers the loop's accumulators need; LLVM does not sink
// code out of the blocks before a loop.
#include <unordered_set>
#include <vector>

#include "cutlet/ir/passes/passes.h"

namespace cutlet::ir {
namespace {

/// The values instruction `id` reads, its nested regions' included.
void reads_of(const Function& f, InstId id, std::unordered_set<ValueId>& out) {
  const Instruction& inst = f.inst(id);
  out.insert(inst.operands.begin(), inst.operands.end());
  for (const Region& r : inst.regions)
    for (InstId sub : r.body) reads_of(f, sub, out);
}

bool is_shared(const Function& f, ValueId v) {
  const Layout* l = f.type_of(v).layout();
  return l && l->is_shared();
}

/// Whether `inst` computes its results from its operands alone, so that it may run later:
/// pure, without regions, and reading no tile in shared memory (a view whose bytes a later
/// dealloc or copy may change).
bool movable(const Function& f, const Instruction& inst) {
  if (!has_trait(inst.op, Pure) || !inst.regions.empty() || inst.results.empty()) return false;
  for (ValueId v : inst.operands)
    if (is_shared(f, v)) return false;
  for (ValueId v : inst.results)
    if (is_shared(f, v)) return false;
  return true;
}

bool is_loop(Opcode op) { return op == Opcode::For || op == Opcode::While; }

void sink(Function& f, Region& r) {
  for (InstId id : r.body)
    for (Region& sub : f.inst(id).regions) sink(f, sub);
  std::vector<InstId>& body = r.body;
  std::vector<std::unordered_set<ValueId>> reads(body.size());
  for (std::size_t k = 0; k < body.size(); ++k) reads_of(f, body[k], reads[k]);
  // Backwards, so that an instruction's operands follow it down once it has moved.
  for (std::size_t i = body.size(); i-- > 0;) {
    const Instruction& inst = f.inst(body[i]);
    if (!movable(f, inst)) continue;
    bool past_loop = false;
    std::size_t j = i + 1;
    for (; j < body.size(); ++j) {
      bool used = false;
      for (ValueId v : inst.results) used = used || reads[j].count(v) > 0;
      if (used) break;
      past_loop = past_loop || is_loop(f.inst(body[j]).op);
    }
    if (j == body.size() || !past_loop) continue;
    const InstId moved = body[i];
    std::unordered_set<ValueId> moved_reads = std::move(reads[i]);
    body.erase(body.begin() + static_cast<std::ptrdiff_t>(i));
    reads.erase(reads.begin() + static_cast<std::ptrdiff_t>(i));
    body.insert(body.begin() + static_cast<std::ptrdiff_t>(j - 1), moved);
    reads.insert(reads.begin() + static_cast<std::ptrdiff_t>(j - 1), std::move(moved_reads));
  }
}

}  // namespace

Function sink_past_loops(Function f) {
  sink(f, f.body());
  return f;
}

}  // namespace cutlet::ir
