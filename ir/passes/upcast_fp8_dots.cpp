// Upcasting the FP8 operands of dots that cannot run on FP8 tensor cores.
#include <vector>

#include "cutlet/ir/ops.h"
#include "cutlet/ir/passes/passes.h"
#include "cutlet/ir/tile_dot.h"

namespace cutlet::ir {
namespace {

class Upcaster {
 public:
  explicit Upcaster(Function& f) : f_(f), warps_(f.tile_warps() > 0 ? f.tile_warps() : 4) {}

  /// Rewrites the body of `owner`'s region `which` (the function's body for kNone). Regions
  /// are looked up again after each change: adding instructions moves them.
  void region(InstId owner, std::size_t which) {
    const std::vector<InstId> ids = region_of(owner, which).body;
    std::vector<InstId> body;
    body.reserve(ids.size());
    for (InstId id : ids) {
      for (std::size_t k = 0; k < f_.inst(id).regions.size(); ++k) region(id, k);
      if (f_.inst(id).op == Opcode::TileDot && needs_upcast(f_.inst(id))) {
        // The operands cast to f16 before the dot (a dot of a tile with itself casts it once).
        auto upcast = [&](ValueId from) {
          Instruction cast;
          cast.op = Opcode::Cast;
          cast.operands = {from};
          cast.loc = f_.inst(id).loc;
          const InstId c = f_.add_inst(std::move(cast));
          const ValueId to = f_.add_value(Type::tile(f_.type_of(from).shape(), Type::f16()), c, 0);
          f_.inst(c).results = {to};
          body.push_back(c);
          return to;
        };
        const ValueId a = f_.inst(id).operands[ops::TileDot::a_operand], b = f_.inst(id).operands[ops::TileDot::b_operand];
        const ValueId a16 = upcast(a), b16 = b == a ? a16 : upcast(b);
        f_.inst(id).operands[ops::TileDot::a_operand] = a16;
        f_.inst(id).operands[ops::TileDot::b_operand] = b16;
      }
      body.push_back(id);
    }
    region_of(owner, which).body = std::move(body);
  }

 private:
  Region& region_of(InstId owner, std::size_t which) {
    return owner == kNone ? f_.body() : f_.inst(owner).regions[which];
  }

  bool needs_upcast(const Instruction& dot) const {
    const ops::TileDot d(dot);
    return f_.type_of(d.a()).element().is_fp8() && !dot_uses_wgmma(f_, dot, warps_);
  }

  Function& f_;
  int warps_;
};

}  // namespace

Function upcast_fp8_dots(Function f) {
  if (f.tile_warps() > 0) Upcaster(f).region(kNone, 0);
  return f;
}

}  // namespace cutlet::ir
