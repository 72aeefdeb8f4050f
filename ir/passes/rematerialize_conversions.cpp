// Rematerialization of layout conversions: a tile.convert_layout of index arithmetic (aranges,
// splats, their broadcasts and elementwise combinations) becomes that arithmetic made again in
// the target layout, which costs a few registers instead of a trip through shared memory.
#include <functional>
#include <vector>

#include "cutlet/error.h"
#include "cutlet/ir/ops.h"
#include "cutlet/ir/passes/passes.h"

namespace cutlet::ir {
namespace {

class Rematerializer {
 public:
  explicit Rematerializer(Function& f) : f_(f) {}

  void run() { region(kNone, 0); }

 private:
  static constexpr int kMaxDepth = 12;

  const Layout& layout(ValueId v) const { return *f_.type_of(v).layout(); }
  Region& region_of(InstId owner, std::size_t which) {
    return owner == kNone ? f_.body() : f_.inst(owner).regions[which];
  }

  /// Whether tile v can be made in layout l from aranges, splats and values already in l.
  bool can_make(ValueId v, const Layout& l, int depth = 0) const {
    if (layout(v) == l) return true;
    const Instruction* d = f_.def_of(v);
    if (!d || depth > kMaxDepth) return false;
    auto operand_ok = [&](ValueId o, const Layout& ol) { return can_make(o, ol, depth + 1); };
    switch (d->op) {
      case Opcode::TileArange:
      case Opcode::TileSplat: return true;
      case Opcode::TileBroadcast: {
        if (l.is_slice()) return false;
        const ValueId source = ops::TileBroadcast(*d).source();
        auto s = f_.type_of(source).shape();
        return operand_ok(source, l.with_shape({s.begin(), s.end()}));
      }
      case Opcode::TileExpandDims: {
        const ops::TileExpandDims expand(*d);
        return !l.is_slice() && operand_ok(expand.source(), slice_layout(l, expand.axis()));
      }
      case Opcode::TileConvertLayout: return operand_ok(ops::TileConvertLayout(*d).source(), l);
      case Opcode::Add:
      case Opcode::Sub:
      case Opcode::Mul:
      case Opcode::And:
      case Opcode::Or:
      case Opcode::Cmp:
      case Opcode::Cast:
        for (ValueId o : d->operands)
          if (f_.type_of(o).is_tile() && !operand_ok(o, l)) return false;
        return true;
      default: return false;
    }
  }

  /// Tile v made in layout l (can_make(v, l)): v itself, or copies of its definitions placed
  /// before the instruction being rewritten, one per value and layout in a region.
  ValueId make(ValueId v, const Layout& l) {
    if (layout(v) == l) return v;
    for (auto it = made_.rbegin(); it != made_.rend(); ++it)
      for (const auto& [key, m] : *it)
        if (key.first == v && key.second == l) return m;
    const Instruction d = *f_.def_of(v);  // a copy: adding instructions moves them
    if (d.op == Opcode::TileConvertLayout) return make(ops::TileConvertLayout(d).source(), l);
    Instruction copy = d;
    copy.results.clear();
    for (ValueId& o : copy.operands) {
      if (!f_.type_of(o).is_tile()) continue;
      if (d.op == Opcode::TileBroadcast) {
        auto s = f_.type_of(o).shape();
        o = make(o, l.with_shape({s.begin(), s.end()}));
      } else if (d.op == Opcode::TileExpandDims) {
        o = make(o, slice_layout(l, ops::TileExpandDims(d).axis()));
      } else {
        o = make(o, l);
      }
    }
    const InstId id = f_.add_inst(std::move(copy));
    const ValueId r = f_.add_value(f_.type_of(v).without_layout().with_layout(l), id, 0);
    f_.inst(id).results = {r};
    body_->push_back(id);
    made_.back().emplace_back(std::make_pair(v, l), r);
    return r;
  }

  void region(InstId owner, std::size_t which) {
    const std::vector<InstId> ids = region_of(owner, which).body;
    std::vector<InstId> body;
    std::vector<InstId>* outer = body_;
    body_ = &body;
    made_.emplace_back();
    for (InstId id : ids) {
      const std::size_t regions = f_.inst(id).regions.size();
      for (std::size_t k = 0; k < regions; ++k) region(id, k);
      // Uses of a rematerializable conversion's result read the value made anew instead.
      for (std::size_t k = 0; k < f_.inst(id).operands.size(); ++k) {
        const ValueId o = f_.inst(id).operands[k];
        const Instruction* d = f_.def_of(o);
        if (!d || d->op != Opcode::TileConvertLayout) continue;
        const ValueId src = ops::TileConvertLayout(*d).source();
        const Layout to = layout(o);
        if (!can_make(src, to)) continue;
        const ValueId made = make(src, to);
        f_.inst(id).operands[k] = made;
      }
      body.push_back(id);
    }
    made_.pop_back();
    body_ = outer;
    region_of(owner, which).body = std::move(body);
  }

  Function& f_;
  std::vector<InstId>* body_ = nullptr;
  std::vector<std::vector<std::pair<std::pair<ValueId, Layout>, ValueId>>> made_;
};

}  // namespace

Function rematerialize_conversions(Function f) {
  if (f.tile_warps() > 0) Rematerializer(f).run();
  return f;
}

}  // namespace cutlet::ir
