// The backward layout wishes (see layout_wishes.h).
#include "layout_wishes.h"

#include <algorithm>
#include <bit>

#include "cutlet/ir/ops.h"
#include "cutlet/ir/tile_dot.h"

namespace cutlet::ir {

namespace {

/// For each value of `fn`, the instructions (at any depth) that use it.
void collect_uses(const Function& fn, const Region& r, std::vector<std::vector<const Instruction*>>& uses) {
  for (InstId id : r.body) {
    const Instruction& inst = fn.inst(id);
    for (ValueId v : inst.operands) uses[v].push_back(&inst);
    for (const Region& sub : inst.regions) collect_uses(fn, sub, uses);
  }
}

/// Whether tile value v, or what elementwise ops make of it, is reduced along its last axis
/// or is the a operand of a dot.
bool reaches_row_use(const Function& fn, ValueId v, const std::vector<std::vector<const Instruction*>>& uses,
                     int depth = 0) {
  if (depth > 16) return false;
  for (const Instruction* u : uses[v]) {
    if (auto reduce = ops::match<ops::TileReduce>(*u);
        reduce && reduce->axis() == static_cast<int>(fn.type_of(v).shape().size()) - 1)
      return true;
    if (auto dot = ops::match<ops::TileDot>(*u); dot && dot->a() == v && !(dot_shape(fn, *u).a_transposed)) return true;
    const bool elementwise = !has_trait(u->op, TileOp) && u->regions.empty() && u->results.size() == 1 &&
                             fn.type_of(u->results[0]).is_tile() &&
                             std::ranges::equal(fn.type_of(u->results[0]).shape(), fn.type_of(v).shape());
    if (elementwise && reaches_row_use(fn, u->results[0], uses, depth + 1)) return true;
  }
  return false;
}

bool any_dot_reaches_row_use(const Function& fn, const Region& r,
                             const std::vector<std::vector<const Instruction*>>& uses) {
  for (InstId id : r.body) {
    const Instruction& inst = fn.inst(id);
    if (inst.op == Opcode::TileDot && reaches_row_use(fn, inst.results[0], uses)) return true;
    for (const Region& sub : inst.regions)
      if (any_dot_reaches_row_use(fn, sub, uses)) return true;
  }
  return false;
}

}  // namespace

bool dots_take_whole_rows(const Function& fn) {
  if (!find_instruction(fn, Opcode::TileDot)) return false;
  std::vector<std::vector<const Instruction*>> uses(fn.num_values());
  collect_uses(fn, fn.body(), uses);
  return any_dot_reaches_row_use(fn, fn.body(), uses);
}

namespace {

class Planner {
 public:
  Planner(const Function& f, int warps, bool whole_rows) : f_(f), warps_(warps), whole_rows_(whole_rows), want_(f.num_values()) {}

  std::vector<std::optional<Layout>> run() {
    region(f_.body());
    return std::move(want_);
  }

 private:
  bool is_tile(ValueId v) const { return f_.type_of(v).is_tile(); }
  /// Elements of tile v's type in 16 bytes.
  /// The elements a thread reads in a row: 16 bytes on a GPU (one vector access); on the
  /// host up to 64 (a 512-bit vector or two 256-bit ones), as many as the block's threads
  /// leave each of them without holding copies.
  int vec_for(ValueId v) const {
    Type e = f_.type_of(v).element();
    const int vec = (f_.host_target() ? 64 : 16) * 8 / (e.is_bool() ? 8 : e.bits());
    if (!f_.host_target()) return vec;
    std::int64_t elements = 1;
    for (std::int64_t x : shape(v)) elements *= x;
    const std::int64_t per_thread = std::max<std::int64_t>(1, elements / (32 * std::int64_t{warps_}));
    return static_cast<int>(std::min<std::uint64_t>(vec, std::bit_floor(static_cast<std::uint64_t>(per_thread))));
  }
  std::vector<std::int64_t> shape(ValueId v) const {
    auto s = f_.type_of(v).shape();
    return {s.begin(), s.end()};
  }
  /// Records a wish for v unless it has one (the first use seen, i.e. the last in program
  /// order, wins) or its shape differs.
  void wish(ValueId v, const std::optional<Layout>& l) {
    if (!l || !is_tile(v) || want_[v]) return;
    if (l->tile_shape() != shape(v)) return;
    want_[v] = l;
  }

  /// The layout a dot's accumulator lives in: wgmma's where the dot runs on it, else the mma
  /// layout of its shape (also for an FMA dot, whose accumulator stays where it is).
  std::optional<Layout> accumulator_layout(const Instruction& dot) const {
    if (dot_uses_wgmma(f_, dot, warps_)) return dot_acc_layout(f_, dot, warps_, whole_rows_);
    auto s = shape(dot.results[0]);
    return mma_layout(s[0], s[1], warps_, whole_rows_);
  }

  /// The layout value v is made in regardless of its uses: a dot's mma layout, also through
  /// the loops and branches that carry it, the slice of it that a reduction of it makes, and
  /// (as lowering gives an elementwise result its first tile operand's layout) that of the
  /// first operand of an elementwise op that has one. So the running max and sum of
  /// attention, carried by a loop, start in the slice of the scores' mma layout.
  std::optional<Layout> natural_layout(ValueId v, int depth = 0) const {
    const Instruction* d = f_.def_of(v);
    if (!d || depth > 16 || !is_tile(v)) return std::nullopt;
    if (d->op == Opcode::TileDot) return accumulator_layout(*d);
    if (d->op == Opcode::For || d->op == Opcode::If) {
      const std::uint32_t k = f_.value(v).index;
      const auto yielded = ops::Yield(f_.inst(d->regions[0].body.back())).values();
      if (k < yielded.size()) return natural_layout(yielded[k], depth + 1);
    }
    if (auto reduce = ops::match<ops::TileReduce>(*d)) {
      auto parent = natural_layout(reduce->source(), depth + 1);
      if (parent) return slice_layout(*parent, reduce->axis());
      return std::nullopt;
    }
    if (!has_trait(d->op, TileOp) && d->regions.empty()) {
      for (ValueId o : d->operands) {
        if (!is_tile(o) || shape(o) != shape(v)) continue;
        if (auto l = natural_layout(o, depth + 1)) return l;
      }
    }
    return std::nullopt;
  }

  void region(const Region& r) {
    for (auto it = r.body.rbegin(); it != r.body.rend(); ++it) inst(f_.inst(*it));
  }

  void inst(const Instruction& i) {
    const std::optional<Layout> out = i.results.empty() ? std::nullopt : want_[i.results[0]];
    switch (i.op) {
      case Opcode::TileBroadcast:
        if (out && !out->is_slice()) {
          const ValueId source = ops::TileBroadcast(i).source();
          Layout l = *out;
          l.shape = shape(source);
          wish(source, l);
        }
        break;
      case Opcode::TileExpandDims:
        if (out && !out->is_slice()) {
          const ops::TileExpandDims expand(i);
          wish(expand.source(), slice_layout(*out, expand.axis()));
        }
        break;
      case Opcode::TileReduce:
        if (const ops::TileReduce reduce(i); out && out->is_slice() && out->slice_dim == reduce.axis()) {
          Layout parent = *out;
          parent.slice_dim = -1;
          parent.shape = shape(reduce.source());
          wish(reduce.source(), parent);
        }
        break;
      case Opcode::TileDot: {
        // The accumulator lives in the mma layout whatever the result's uses want.
        auto mma = accumulator_layout(i);
        wish(ops::TileDot(i).acc(), mma ? mma : out);
        break;
      }
      case Opcode::TileStore: {
        // Where the stored value comes from a dot (maybe through loops), store from its layout.
        const ops::TileStore store(i);
        std::optional<Layout> l = natural_layout(store.value());
        if (!l) l = default_layout(shape(store.value()), warps_, vec_for(store.value()));
        wish(store.offsets(), l);
        wish(store.value(), l);
        if (store.mask() != kNone) wish(store.mask(), l);
        break;
      }
      case Opcode::TileAtomic: {
        // Unless the result is wanted in some layout, access 16 bytes per thread.
        auto l = out ? out : std::optional<Layout>(default_layout(shape(i.results[0]), warps_, vec_for(i.results[0])));
        const ops::TileAtomic atomic(i);
        wish(atomic.offsets(), l);
        wish(atomic.value(), l);
        break;
      }
      case Opcode::TileLoad: {
        // Unless the loaded tile is wanted in some layout, load 16 bytes per thread.
        auto l = out ? out : std::optional<Layout>(default_layout(shape(i.results[0]), warps_, vec_for(i.results[0])));
        const ops::TileLoad load(i);
        wish(load.offsets(), l);
        if (load.mask() != kNone) wish(load.mask(), l);
        break;
      }
      case Opcode::For: {
        // The uses inside the loop decide the carried layouts first (a dot's accumulator
        // stays in the mma layout across iterations), then the uses after it.
        const Region& body = i.regions[0];
        const auto next = ops::Yield(f_.inst(body.body.back())).values();
        const auto init = ops::For(i).init();
        for (std::size_t k = 0; k < i.results.size(); ++k) wish(next[k], natural_layout(next[k]));
        region(body);
        for (std::size_t k = 0; k < i.results.size(); ++k) {
          wish(body.args[k + 1], natural_layout(next[k]));
          wish(body.args[k + 1], want_[i.results[k]]);
          wish(next[k], want_[body.args[k + 1]]);
          wish(init[k], want_[body.args[k + 1]]);
        }
        break;
      }
      case Opcode::If:
        for (const Region& r : i.regions) {
          const auto yielded = ops::Yield(f_.inst(r.body.back())).values();
          for (std::size_t k = 0; k < i.results.size(); ++k) wish(yielded[k], want_[i.results[k]]);
          region(r);
        }
        break;
      case Opcode::While:
        for (const Region& r : i.regions) region(r);
        break;
      default:
        // Elementwise ops: their tile operands in the result's layout.
        if (out && !i.results.empty() && is_tile(i.results[0]))
          for (ValueId v : i.operands) wish(v, out);
        break;
    }
  }

  const Function& f_;
  int warps_;
  bool whole_rows_;
  std::vector<std::optional<Layout>> want_;
};

}  // namespace

std::vector<std::optional<Layout>> layout_wishes(const Function& fn, int warps, bool whole_rows) {
  return Planner(fn, warps, whole_rows).run();
}

}  // namespace cutlet::ir
