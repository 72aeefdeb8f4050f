// The allocate-shared pass (see passes.h): every shared-memory buffer of a function in one
// arena, placed by liveness in program order.
#include <map>

#include "cutlet/error.h"
#include "cutlet/ir/passes/passes.h"
#include "cutlet/ir/ops.h"
#include "cutlet/ir/shared_memory.h"
#include "shared_arena.h"

namespace cutlet::ir {
namespace {

class Allocator {
 public:
  explicit Allocator(Function& f) : f_(f) {}

  void run() {
    if (f_.is_kernel()) place_kernel_arrays(f_.body());
    walk(f_.body());
    std::vector<SharedPeakBuffer> peak;
    for (const SharedArena::Buffer& b : arena_.peak_buffers()) peak.push_back({{b.offset, b.bytes, b.what}, b.op, b.loc});
    f_.set_shared_plan(arena_.peak(), std::move(peak));
  }

 private:
  void place_kernel_arrays(const Region& r) {
    for (InstId id : r.body) {
      Instruction& inst = f_.inst(id);
      for (const Region& sub : inst.regions) place_kernel_arrays(sub);
      if (inst.op == Opcode::SharedAlloc) place(inst);
    }
  }

  void walk(const Region& r) {
    for (InstId id : r.body) {
      Instruction& inst = f_.inst(id);
      if (inst.op == Opcode::SharedAlloc) continue;  // placed first
      if (inst.op == Opcode::TileLocalDealloc) {
        auto it = held_.find(ops::TileLocalDealloc(inst).buffer());
        CUTLET_ASSERT(it != held_.end(), "tile.local_dealloc of a buffer that is not live");
        arena_.release(it->second);
        held_.erase(it);
        continue;
      }
      const std::size_t mark = arena_.mark();
      place(inst);
      for (const Region& sub : inst.regions) walk(sub);
      arena_.release_to(mark);
    }
  }

  /// Places the buffers `inst` asks for.
  void place(Instruction& inst) {
    inst.shared.clear();
    for (SharedRequest& q : shared_requests(f_, inst)) {
      const bool held = q.lifetime != SharedLifetime::Op;
      const std::int64_t at = arena_.allocate(q.bytes, q.align, q.what, inst.op, inst.loc, held);
      if (q.lifetime == SharedLifetime::Dealloc) held_[inst.results.at(0)] = at;
      inst.shared.push_back({at, q.bytes, std::move(q.what)});
    }
  }

  Function& f_;
  SharedArena arena_;
  std::map<ValueId, std::int64_t> held_;  ///< live tile.local_alloc buffers, by value
};

}  // namespace

Function allocate_shared(Function f) {
  Allocator(f).run();
  return f;
}

}  // namespace cutlet::ir
