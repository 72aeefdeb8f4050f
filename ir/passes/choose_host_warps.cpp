// The warps of a tile kernel traced for the host.
#include <algorithm>
#include <cstdint>
#include <functional>

#include "cutlet/ir/ops.h"
#include "cutlet/ir/passes/passes.h"

namespace cutlet::ir {

namespace {

/// Whether `inst` sees how many threads run the kernel: their indices and the block's shape,
/// warp operations, barrier reductions, and what each thread does once (scalar atomics,
/// printing, calls of device functions that may do either).
bool sees_threads(const Instruction& inst) {
  switch (inst.op) {
    case Opcode::Special: {
      const SpecialReg r = ops::Special(inst).reg();
      return r != SpecialReg::BlockIdxX && r != SpecialReg::BlockIdxY && r != SpecialReg::BlockIdxZ &&
             r != SpecialReg::GridDimX && r != SpecialReg::GridDimY && r != SpecialReg::GridDimZ;
    }
    case Opcode::BarrierReduce:
    case Opcode::Shuffle:
    case Opcode::Vote:
    case Opcode::Match:
    case Opcode::Redux:
    case Opcode::ActiveMask:
    case Opcode::Atomic:
    case Opcode::Print:
    case Opcode::Call:
    case Opcode::GridSync: return true;
    default: return false;
  }
}

}  // namespace

Function choose_host_warps(Function f) {
  if (!f.host_target() || f.tile_warps() <= 0) return f;
  std::int64_t largest = 0;
  bool per_thread = false;
  std::function<void(const Region&)> walk = [&](const Region& r) {
    auto see = [&](ValueId v) {
      const Type t = f.type_of(v);
      if (!t.is_tile()) return;
      std::int64_t n = 1;
      for (std::int64_t e : t.shape()) n *= e;
      largest = std::max(largest, n);
    };
    for (ValueId a : r.args) see(a);
    for (InstId id : r.body) {
      per_thread = per_thread || sees_threads(f.inst(id));
      for (ValueId v : f.inst(id).results) see(v);
      for (const Region& sub : f.inst(id).regions) walk(sub);
    }
  };
  walk(f.body());
  if (per_thread) return f;  // per-thread code in a tile kernel: its threads as they are
  int warps = 1;
  while (warps < f.tile_warps() && largest >= std::int64_t{2} * warps * 32 * kHostElementsPerThread) warps *= 2;
  f.set_tile_warps(warps);
  return f;
}

}  // namespace cutlet::ir
