// Layout assignment: every tile value of a tile kernel gets its layout in its type, and
// tile.convert_layout ops appear where a value must move to the layout its consumer takes.
#include <functional>
#include <optional>
#include <vector>

#include "cutlet/error.h"
#include "cutlet/ir/ops.h"
#include "cutlet/ir/passes/passes.h"
#include "cutlet/ir/tile_dot.h"
#include "layout_wishes.h"

namespace cutlet::ir {
namespace {

/// The layout to scan along k in, from `base`: base itself when it holds no copies along k,
/// else one that keeps the whole axis in every thread (lanes and warps then repeat elements
/// along the other dimensions, which is harmless).
Layout scan_layout(const Layout& base, int k, int warps) {
  // A scan runs along a thread's registers, then its lanes, then its warps: repeats of the
  // lanes' pattern (a wgmma accumulator's rows) would come between them.
  if (base.lane_reps_along(k) > 1) return default_layout(base.tile_shape(), warps);
  if (base.cover(k) <= base.shape[k]) return base;
  Layout l = base;
  l.spt[k] = static_cast<int>(l.shape[k]);
  l.tpw[k] = 1;
  l.wpc[k] = 1;
  return l;
}

class Assigner {
 public:
  explicit Assigner(Function& f)
      : f_(f), warps_(f.tile_warps()), whole_rows_(dots_take_whole_rows(f)), wish_(layout_wishes(f, warps_, whole_rows_)) {}

  void run() { region(kNone, 0); }

 private:
  std::vector<std::int64_t> shape(ValueId v) const {
    auto s = f_.type_of(v).shape();
    return {s.begin(), s.end()};
  }
  bool is_tile(ValueId v) const { return f_.type_of(v).is_tile(); }
  const Layout& layout(ValueId v) const {
    const Layout* l = f_.type_of(v).layout();
    CUTLET_ASSERT(l != nullptr, "a tile used before its layout was assigned");
    return *l;
  }
  /// What the uses of v would like it in (none for values this pass made).
  std::optional<Layout> wish(ValueId v) const { return v < wish_.size() ? wish_[v] : std::nullopt; }
  void place(ValueId v, const Layout& l) { f_.set_type(v, f_.type_of(v).without_layout().with_layout(l)); }

  /// Tile v in layout l: v itself, or a tile.convert_layout of it placed before the
  /// instruction being assigned (one per value and layout in a region and those it holds).
  ValueId in(ValueId v, const Layout& l) {
    if (layout(v) == l) return v;
    for (auto it = converted_.rbegin(); it != converted_.rend(); ++it)
      for (const auto& [key, c] : *it)
        if (key.first == v && key.second == l) return c;
    Instruction conv;
    conv.op = Opcode::TileConvertLayout;
    conv.operands = {v};
    conv.loc = loc_;
    const InstId id = f_.add_inst(std::move(conv));
    const ValueId r = f_.add_value(f_.type_of(v).without_layout().with_layout(l), id, 0);
    f_.inst(id).results = {r};
    body_->push_back(id);
    converted_.back().emplace_back(std::make_pair(v, l), r);
    return r;
  }
  /// Tile v in a blocked layout: its own, or (for a slice) the default one for its shape.
  ValueId blocked(ValueId v) { return layout(v).is_slice() ? in(v, default_layout(shape(v), warps_)) : v; }

  /// Region `which` of instruction `owner` (the function's body for kNone). Instructions
  /// are added as conversions are made, so regions are looked up again, never held.
  Region& region_of(InstId owner, std::size_t which) {
    return owner == kNone ? f_.body() : f_.inst(owner).regions[which];
  }

  void region(InstId owner, std::size_t which) {
    region_with_yield(owner, which, nullptr);
  }

  /// Operand k of instruction id, moved to layout l.
  void operand_in(InstId id, std::size_t k, const Layout& l) {
    const ValueId v = in(f_.inst(id).operands[k], l);
    f_.inst(id).operands[k] = v;
  }
  void set_operand(InstId id, std::size_t k, ValueId v) { f_.inst(id).operands[k] = v; }

  void inst(InstId id) {
    const Instruction i = f_.inst(id);  // a copy: conversions add instructions
    const ValueId r = i.results.empty() ? kNone : i.results[0];
    switch (i.op) {
      case Opcode::TileArange:
      case Opcode::TileSplat: {
        auto w = wish(r);
        place(r, w ? *w : default_layout(shape(r), warps_));
        break;
      }
      case Opcode::TileBroadcast: {
        auto w = wish(r);
        constexpr auto source = ops::TileBroadcast::source_operand;
        if (w && !w->is_slice()) {
          operand_in(id, source, w->with_shape(shape(ops::TileBroadcast(i).source())));
        } else {
          set_operand(id, source, blocked(ops::TileBroadcast(i).source()));
        }
        place(r, layout(ops::TileBroadcast(f_.inst(id)).source()).with_shape(shape(r)));
        break;
      }
      case Opcode::TileExpandDims: {
        const ops::TileExpandDims expand(i);
        constexpr auto source = ops::TileExpandDims::source_operand;
        const int axis = expand.axis();
        auto w = wish(r);
        if (w && !w->is_slice()) {
          operand_in(id, source, slice_layout(*w, axis));
          place(r, *w);
          break;
        }
        const Layout& lx = layout(expand.source());
        if (lx.is_slice() && lx.slice_dim == axis) {
          Layout dst = lx;
          dst.slice_dim = -1;
          place(r, dst.with_shape(shape(r)));
          break;
        }
        set_operand(id, source, blocked(expand.source()));
        place(r, insert_dim_layout(layout(ops::TileExpandDims(f_.inst(id)).source()), axis, shape(r)));
        break;
      }
      case Opcode::TileLoad:
      case Opcode::TileStore:
      case Opcode::TileAtomic: {
        // Everything in the offsets' layout: the value stored, the mask, the result. (The
        // three ops have ptr and offsets first, then tiles; a load's padding is a scalar.)
        static_assert(ops::TileLoad::offsets_operand == 1 && ops::TileStore::offsets_operand == 1 &&
                      ops::TileAtomic::offsets_operand == 1);
        const Layout l = layout(i.operands[ops::TileLoad::offsets_operand]);
        for (std::size_t k = 2; k < f_.inst(id).operands.size(); ++k)
          if (is_tile(f_.inst(id).operands[k])) operand_in(id, k, l);
        if (r != kNone) place(r, l);
        break;
      }
      case Opcode::TileDot: {
        // Tensor cores take the accumulator in their layout; FMAs in the accumulator's own.
        // The operands a and b are read through shared memory in any layout.
        if (dot_uses_mma(f_, i, warps_)) {
          const Layout mma = *dot_acc_layout(f_, i, warps_, whole_rows_);
          operand_in(id, ops::TileDot::acc_operand, mma);
          place(r, mma);
        } else {
          place(r, layout(ops::TileDot(i).acc()));
        }
        break;
      }
      case Opcode::TileReduce:
      case Opcode::TileReduceWith: {
        // The first input in a blocked layout, the others (reduce_with's) in its layout.
        const int axis = i.op == Opcode::TileReduce ? ops::TileReduce(i).axis() : ops::TileReduceWith(i).axis();
        set_operand(id, 0, blocked(i.operands[0]));
        const Layout l = layout(f_.inst(id).operands[0]);
        for (std::size_t k = 1; k < f_.inst(id).operands.size(); ++k) operand_in(id, k, l);
        for (std::size_t k = 0; k < i.regions.size(); ++k) region(id, k);
        for (ValueId res : i.results)
          if (is_tile(res)) place(res, slice_layout(l, axis));
        break;
      }
      case Opcode::TileScan: {
        const int axis = ops::TileScan(i).axis();
        set_operand(id, 0, blocked(ops::TileScan(i).inputs()[0]));
        const Layout l = scan_layout(layout(f_.inst(id).operands[0]), axis, warps_);
        for (std::size_t k = 0; k < f_.inst(id).operands.size(); ++k) operand_in(id, k, l);
        for (std::size_t k = 0; k < i.regions.size(); ++k) region(id, k);
        for (ValueId res : i.results) place(res, l);
        break;
      }
      case Opcode::TilePermute:
      case Opcode::TileReshape:
        // Through shared memory from any layout, into the default one.
        place(r, default_layout(shape(r), warps_));
        break;
      case Opcode::TileConvertLayout:
        CUTLET_ASSERT(f_.type_of(r).layout(), "a tile.convert_layout without a target layout");
        break;
      case Opcode::For: {
        // Carried tiles keep their initial value's layout; the yielded ones move to it.
        const std::vector<ValueId> args = i.regions[0].args;
        const auto inits = ops::For(i).init();
        for (std::size_t k = 0; k < i.results.size(); ++k) {
          const ValueId init = inits[k];
          if (!is_tile(init)) continue;
          place(args[k + 1], layout(init));
          place(i.results[k], layout(init));
        }
        region_with_yield(id, 0, [&](std::size_t k) { return args[k + 1]; });
        break;
      }
      case Opcode::If: {
        // The results take the then-branch's layouts; the else-branch's yields move to them.
        region(id, 0);
        const auto yielded = ops::Yield(f_.inst(f_.inst(id).regions[0].body.back())).values();
        for (std::size_t k = 0; k < i.results.size(); ++k)
          if (is_tile(i.results[k])) place(i.results[k], layout(yielded[k]));
        region_with_yield(id, 1, [&](std::size_t k) { return i.results[k]; });
        break;
      }
      case Opcode::While:
        for (std::size_t k = 0; k < i.regions.size(); ++k) region(id, k);
        break;
      default: {
        // (A terminator's tiles keep their layouts: each region's owner moves them.)
        if (has_trait(i.op, TileOp) || has_trait(i.op, Terminator) || !i.regions.empty()) break;
        // Elementwise ops on tiles: every tile operand and the result in one layout, the one
        // the result's uses want, else the first tile operand's.
        std::optional<Layout> l;
        for (ValueId v : i.operands)
          if (is_tile(v)) {
            l = layout(v);
            break;
          }
        if (!l) break;
        if (r != kNone)
          if (auto w = wish(r); w && is_tile(r) && w->tile_shape() == l->tile_shape()) l = w;
        for (std::size_t k = 0; k < f_.inst(id).operands.size(); ++k)
          if (is_tile(f_.inst(id).operands[k])) operand_in(id, k, *l);
        for (ValueId res : f_.inst(id).results)
          if (is_tile(res)) place(res, *l);
        break;
      }
    }
  }

  /// Assigns region `which` of instruction `owner`; with a `target`, moves each tile its
  /// terminator yields to the layout of target(k), with conversions placed before it.
  void region_with_yield(InstId owner, std::size_t which, const std::function<ValueId(std::size_t)>& target) {
    const std::vector<InstId> ids = region_of(owner, which).body;
    std::vector<InstId> body;
    std::vector<InstId>* outer = body_;
    body_ = &body;
    converted_.emplace_back();
    for (std::size_t n = 0; n < ids.size(); ++n) {
      const InstId at = ids[n];
      loc_ = f_.inst(at).loc;
      if (target && n + 1 == ids.size()) {
        for (std::size_t k = 0; k < f_.inst(at).operands.size(); ++k) {
          const ValueId v = f_.inst(at).operands[k];
          if (is_tile(v)) {
            const ValueId moved = in(v, layout(target(k)));
            f_.inst(at).operands[k] = moved;
          }
        }
      } else {
        inst(at);
      }
      body.push_back(at);
    }
    converted_.pop_back();
    body_ = outer;
    region_of(owner, which).body = std::move(body);
  }

  Function& f_;
  int warps_;
  bool whole_rows_;
  std::vector<std::optional<Layout>> wish_;
  std::vector<InstId>* body_ = nullptr;
  std::vector<std::vector<std::pair<std::pair<ValueId, Layout>, ValueId>>> converted_;
  Location loc_;
};

}  // namespace

Function assign_layouts(Function f) {
  if (f.tile_warps() > 0) Assigner(f).run();
  return f;
}

}  // namespace cutlet::ir
