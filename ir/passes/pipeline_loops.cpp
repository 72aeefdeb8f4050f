// Software pipelining of tile loops, written out as IR (see passes.h): rings of stage buffers
// filled with asynchronous copies iterations ahead, loads issued one iteration ahead into
// registers, and the operands of a loop's dots that come from before it staged in shared
// memory once.
#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "cutlet/error.h"
#include "cutlet/ir/axis_info.h"
#include "cutlet/ir/ops.h"
#include "cutlet/ir/passes/passes.h"
#include "cutlet/ir/tile_dot.h"

namespace cutlet::ir {

int pipeline_stages(const Function& f) { return f.tile_stages() > 0 ? f.tile_stages() : kDefaultPipelineStages; }

namespace {

bool is_zero_constant(const Function& f, ValueId v) {
  const Instruction* d = f.def_of(v);
  if (!d || d->op != Opcode::Const) return false;
  const Attribute value = ops::Const(*d).value();
  if (auto* i = std::get_if<std::int64_t>(&value)) return *i == 0;
  if (auto* x = std::get_if<double>(&value)) return *x == 0.0;
  return false;
}

/// The instructions of region `r` and of the regions nested in it that use value `v`.
void uses_in(const Function& f, const Region& r, ValueId v, std::vector<const Instruction*>& out) {
  for (InstId id : r.body) {
    const Instruction& inst = f.inst(id);
    if (std::find(inst.operands.begin(), inst.operands.end(), v) != inst.operands.end()) out.push_back(&inst);
    for (const Region& nested : inst.regions) uses_in(f, nested, v, out);
  }
}

/// Replaces every use of `from` in region `r` (at any depth) by `to`.
void replace_uses(Function& f, const Region& r, ValueId from, ValueId to) {
  for (InstId id : r.body) {
    for (ValueId& o : f.inst(id).operands)
      if (o == from) o = to;
    for (const Region& nested : f.inst(id).regions) replace_uses(f, nested, from, to);
  }
}

/// The values defined in region `r` (results and region arguments, at any depth).
void defined_in(const Function& f, const Region& r, std::set<ValueId>& out) {
  out.insert(r.args.begin(), r.args.end());
  for (InstId id : r.body) {
    const Instruction& inst = f.inst(id);
    out.insert(inst.results.begin(), inst.results.end());
    for (const Region& sub : inst.regions) defined_in(f, sub, out);
  }
}

/// A load of the loop body that becomes asynchronous copies into a ring of stages.
struct Copy {
  InstId load;
  Type stage;         ///< one stage: the load's tile in a shared layout of padded rows
  Type ring;          ///< the ring: [stages] of those
  Layout layout;      ///< how the block's threads share a copy: `width` elements each
  std::int64_t width;
  std::string what;        ///< the ring's use, for reports: "the dot's a operand"
  InstId dot = kNone;      ///< the tensor-core dot that reads it
  int operand = 0;         ///< as its a (0) or b (1)
  ValueId buffer = kNone;  ///< the ring, once allocated
};

/// in_flight_accumulator's answer for a loop whose dot's accumulator is not carried alone.
constexpr std::size_t kNotCarried = static_cast<std::size_t>(-1);

class Pipeliner {
 public:
  explicit Pipeliner(Function& f) : f_(f), warps_(f.tile_warps()), stages_(pipeline_stages(f)) {}

  void run() { region(kNone, 0); }

 private:
  // --- Emitting instructions into `out_` ---------------------------------------------------

  ValueId emit(Opcode op, std::vector<ValueId> operands, std::vector<Attribute> attrs = {},
               std::optional<Type> result = std::nullopt) {
    Instruction inst;
    inst.op = op;
    inst.operands = std::move(operands);
    inst.attrs = std::move(attrs);
    inst.loc = loc_;
    const InstId id = f_.add_inst(std::move(inst));
    ValueId r = kNone;
    if (result) {
      r = f_.add_value(*result, id, 0);
      f_.inst(id).results = {r};
    }
    out_->push_back(id);
    return r;
  }
  ValueId constant(Type t, std::int64_t v) { return emit(Opcode::Const, {}, {v}, t); }
  ValueId i32(std::int64_t v) { return constant(Type::i32(), v); }
  ValueId add(ValueId a, ValueId b) { return emit(Opcode::Add, {a, b}, {}, f_.type_of(a)); }
  ValueId compare(Predicate p, ValueId a, ValueId b) {
    return emit(Opcode::Cmp, {a, b}, {static_cast<std::int64_t>(p)}, Type::i1());
  }
  ValueId select(ValueId c, ValueId a, ValueId b) { return emit(Opcode::Select, {c, a, b}, {}, f_.type_of(a)); }
  void barrier() { emit(Opcode::Barrier, {}); }
  /// Tile v in layout l (a tile.convert_layout unless it is there already).
  ValueId in_layout(ValueId v, const Layout& l) {
    const Type t = f_.type_of(v);
    if (*t.layout() == l) return v;
    return emit(Opcode::TileConvertLayout, {v}, {}, t.without_layout().with_layout(l));
  }

  // --- The loop's facts ---------------------------------------------------------------------

  /// The tile loads at the top level of `loop`'s body whose operands depend only on the
  /// induction variable and values from before the loop, through pure ops; `closure` gets
  /// those ops and the loads, in body order.
  std::vector<InstId> hoistable_loads(const Instruction& loop, std::vector<InstId>& closure) const {
    const Region& r = loop.regions[0];
    std::map<InstId, int> position;
    for (std::size_t i = 0; i < r.body.size(); ++i) position[r.body[i]] = static_cast<int>(i);
    const std::set<ValueId> carried(r.args.begin() + 1, r.args.end());
    std::set<InstId> needed;
    std::function<bool(ValueId)> ok = [&](ValueId v) {
      if (carried.count(v)) return false;
      if (v == r.args[0]) return true;
      const InstId d = f_.value(v).def;
      if (d == kNone || !position.count(d)) return true;  // defined before the loop
      const Instruction& di = f_.inst(d);
      if (!has_trait(di.op, Pure) || !di.regions.empty()) return false;
      for (ValueId o : di.operands)
        if (!ok(o)) return false;
      needed.insert(d);
      return true;
    };
    std::vector<InstId> loads;
    for (InstId id : r.body) {
      const Instruction& inst = f_.inst(id);
      if (inst.op != Opcode::TileLoad) continue;
      const std::set<InstId> before = needed;
      bool all = true;
      for (ValueId o : inst.operands) all = all && ok(o);
      if (!all) {
        needed = before;
        continue;
      }
      loads.push_back(id);
      needed.insert(id);
    }
    closure.assign(needed.begin(), needed.end());
    std::sort(closure.begin(), closure.end(), [&](InstId a, InstId b) { return position[a] < position[b]; });
    return loads;
  }

  /// The load `id` as asynchronous copies, if it is the a or b of one tensor-core dot of the
  /// body (its only use), reads global memory in aligned pieces of 4 to 16 bytes and pads
  /// masked-off elements with zero (what cp.async fills).
  std::optional<Copy> as_copy(const Instruction& loop, InstId id) const {
    const Instruction& load = f_.inst(id);
    const ops::TileLoad view(load);
    const ValueId ptr = view.ptr(), offsets = view.offsets(), mask = view.mask();
    if (f_.type_of(ptr).address_space() != AddressSpace::Global) return std::nullopt;
    if (view.other() != kNone && !is_zero_constant(f_, view.other())) return std::nullopt;
    const Type t = f_.type_of(load.results[0]);
    if (t.shape().size() != 2) return std::nullopt;
    std::vector<const Instruction*> uses;
    uses_in(f_, loop.regions[0], load.results[0], uses);
    if (uses.size() != 1 || uses[0]->op != Opcode::TileDot) return std::nullopt;
    const Instruction& dot = *uses[0];
    const ops::TileDot d(dot);
    const int operand = d.a() == load.results[0] ? 0 : d.b() == load.results[0] ? 1 : -1;
    if (operand < 0 || d.a() == d.b() || !dot_uses_mma(f_, dot, warps_)) return std::nullopt;
    const Type elem = t.element();
    const int bytes = elem.bits() / 8;
    const std::int64_t rows = t.shape()[0], cols = t.shape()[1];
    Copy c{id, Type::void_type(), Type::void_type(), default_layout({rows, cols}, warps_, 16 / bytes), 1,
           std::string("the dot's ") + (operand == 0 ? "a" : "b") + " operand", static_cast<InstId>(&dot - &f_.inst(0)),
           operand};
    const AxisInfo off = axis_info(f_, offsets);
    std::int64_t w = std::min<std::int64_t>({c.layout.spt[1], cols, off.contiguity[1], off.divisibility[1],
                                             scalar_divisibility(f_, ptr) / bytes});
    if (mask != kNone) w = std::min(w, axis_info(f_, mask).constancy[1]);
    while (c.width * 2 <= w) c.width *= 2;
    if (c.width * bytes < 4) return std::nullopt;  // cp.async copies 4, 8 or 16 bytes
    const std::vector<std::int64_t> shape{rows, cols}, ring_shape{stages_, rows, cols};
    const Layout stage = dot_operand_shared_layout(f_, dot, operand, shape);
    c.stage = Type::tile(shape, elem, stage);
    c.ring = Type::tile(ring_shape, elem, dot_operand_ring_layout(stage, stages_, bytes));
    return c;
  }

  /// The dot of `loop`'s body (at its top level) whose a and b are the two `copies`, if
  /// there is one: it is pipelined at the level of its k-steps too (see split_dot).
  std::optional<InstId> fragment_dot(const Instruction& loop, const std::vector<Copy>& copies) const {
    if (copies.size() != 2 || copies[0].dot != copies[1].dot || copies[0].operand == copies[1].operand) return std::nullopt;
    // wgmma reads whole stages from shared memory itself: there are no fragments to read ahead.
    if (dot_uses_wgmma(f_, f_.inst(copies[0].dot), warps_)) return std::nullopt;
    const auto& body = loop.regions[0].body;
    if (std::find(body.begin(), body.end(), copies[0].dot) == body.end()) return std::nullopt;
    return copies[0].dot;
  }

  /// The k-steps of tensor-core dot `dot`: elements of K per mma.sync.
  std::int64_t k_step(const Instruction& dot) const {
    return f_.type_of(ops::TileDot(dot).a()).element() == Type::f32() ? 8 : 16;
  }

  /// Operand k's fragments of the k-steps from `k0` of tensor-core dot `dot` (k_step(dot)
  /// elements of K), read from `view`, operand k as the dot reads it in shared memory.
  ValueId fragments(const Instruction& dot, int k, ValueId view, std::int64_t k0) {
    const Type vt = f_.type_of(view);
    const bool transposed = dot_shape(f_, dot).transposed(k);
    const std::size_t kdim = (k == 0) == transposed ? 0 : 1;
    std::vector<std::int64_t> shape(vt.shape().begin(), vt.shape().end());
    std::vector<Attribute> offsets(shape.size(), std::int64_t{0});
    offsets[kdim] = k0;
    shape[kdim] = k_step(dot);
    const Type elem = vt.element();
    const ValueId part = emit(Opcode::TileLocalSlice, {view}, offsets, Type::tile(shape, elem, shared_layout(shape, vt.layout()->strides)));
    const Layout& mma = *f_.type_of(dot.results[0]).layout();
    const int k_width = elem.bits() == 32 ? 1 : 2;
    return emit(Opcode::TileLocalLoad, {part}, {}, Type::tile(shape, elem, dot_operand_layout(mma, k, shape, k_width, transposed)));
  }

  /// Emits tensor-core dot `id` (its a and b the current stage's views) k-step by k-step, as
  /// CUTLASS's multistage mainloop does: each k-step's math runs on fragments read one k-step
  /// earlier, the first k-step's (`first`) by the previous iteration; before the last k-step's
  /// math, `turn` waits for the next stage and refills this one, and the next stage's first
  /// fragments are read from `next_views`. The last k-step is the dot itself (its result is
  /// the sum). Returns the next stage's first fragments, a's then b's.
  std::vector<ValueId> split_dot(InstId id, const std::vector<ValueId>& first, const std::function<void()>& turn,
                                 const std::function<std::vector<ValueId>()>& next_views) {
    const Instruction dot = f_.inst(id);
    loc_ = dot.loc;
    const std::int64_t step = k_step(dot), K = dot_shape(f_, dot).k;
    const Type acc_type = f_.type_of(dot.results[0]);
    std::vector<ValueId> cur = first;
    ValueId acc = ops::TileDot(dot).acc();
    for (std::int64_t k0 = 0; k0 < K; k0 += step) {
      std::vector<ValueId> next;
      if (k0 + step < K) {
        next.push_back(fragments(dot, 0, ops::TileDot(dot).a(), k0 + step));
        next.push_back(fragments(dot, 1, ops::TileDot(dot).b(), k0 + step));
      } else {
        turn();
        const std::vector<ValueId> views = next_views();
        loc_ = dot.loc;
        for (int k = 0; k < 2; ++k) next.push_back(fragments(dot, k, views[static_cast<std::size_t>(k)], 0));
      }
      if (k0 + step < K) {
        acc = emit(Opcode::TileDot, {cur[0], cur[1], acc}, dot.attrs, acc_type);
      } else {
        f_.inst(id).operands = {cur[0], cur[1], acc};
        out_->push_back(id);
      }
      cur = std::move(next);
    }
    return cur;
  }

  // --- Rewriting ----------------------------------------------------------------------------

  /// Region `which` of instruction `owner` (the function's body for kNone), looked up afresh:
  /// emitting instructions moves the regions they hold.
  Region& region_of(InstId owner, std::size_t which) { return owner == kNone ? f_.body() : f_.inst(owner).regions[which]; }

  /// Pipelines the loops of region `which` of `owner` (inner loops first).
  void region(InstId owner, std::size_t which) {
    std::map<ValueId, StagedOperand> outer = std::move(staged_);
    staged_.clear();
    std::vector<InstId> body;
    const std::vector<InstId> ids = region_of(owner, which).body;
    for (InstId id : ids) {
      for (std::size_t k = 0; k < f_.inst(id).regions.size(); ++k) region(id, k);
      if (f_.inst(id).op == Opcode::For && warps_ > 0) loop(id, body);
      else body.push_back(id);
      for (const auto& [from, to] : replaced_after_loop_) replace_uses(f_, region_of(owner, which), from, to);
      replaced_after_loop_.clear();
    }
    release_staged(body);
    region_of(owner, which).body = std::move(body);
    staged_ = std::move(outer);
  }

  /// Releases the buffers of the region's staged operands, each after the last loop reading it.
  void release_staged(std::vector<InstId>& body) {
    for (const auto& [value, s] : staged_) {
      std::vector<InstId> dealloc;
      out_ = &dealloc;
      loc_ = f_.inst(s.last_loop).loc;
      emit(Opcode::TileLocalDealloc, {s.buffer});
      auto at = std::find(body.begin(), body.end(), s.last_loop);
      CUTLET_ASSERT(at != body.end(), "a staged operand's loop is in its region");
      // After the loop's own epilogue: its wait for the last copies and its rings' releases.
      for (++at; at != body.end() && (f_.inst(*at).op == Opcode::TileAsyncWait || f_.inst(*at).op == Opcode::TileLocalDealloc); ++at) {
      }
      body.insert(at, dealloc.front());
    }
    out_ = nullptr;  // `dealloc` is gone
  }

  /// Copies of the pure instructions of `closure` with the induction variable `iv_arg` read
  /// as `iv`, emitted in order; loads are handed to `on_load` with the copies' value map.
  void clone_closure(const std::vector<InstId>& closure, ValueId iv_arg, ValueId iv,
                     const std::function<void(InstId, const std::map<ValueId, ValueId>&)>& on_load) {
    std::map<ValueId, ValueId> map{{iv_arg, iv}};
    for (InstId id : closure) {
      const Instruction inst = f_.inst(id);  // a copy: adding instructions moves them
      if (inst.op == Opcode::TileLoad) {
        on_load(id, map);
        continue;
      }
      std::vector<ValueId> ops;
      for (ValueId o : inst.operands) ops.push_back(map.count(o) ? map.at(o) : o);
      const std::optional<Type> t = inst.results.empty() ? std::nullopt : std::optional(f_.type_of(inst.results[0]));
      loc_ = inst.loc;
      map[inst.results.empty() ? kNone : inst.results[0]] = emit(inst.op, std::move(ops), inst.attrs, t);
    }
  }
  static ValueId mapped(const std::map<ValueId, ValueId>& m, ValueId v) { return m.count(v) ? m.at(v) : v; }

  /// The copy `c` of the load's tile for the iteration `map` computes into `stage`; zeros
  /// where `valid` is false.
  void issue_copy(const Copy& c, const std::map<ValueId, ValueId>& map, ValueId stage, ValueId valid) {
    const Instruction load = f_.inst(c.load);
    loc_ = load.loc;
    const ops::TileLoad view(load);
    std::vector<ValueId> ops{stage, mapped(map, view.ptr()), in_layout(mapped(map, view.offsets()), c.layout), valid};
    if (view.mask() != kNone) ops.push_back(in_layout(mapped(map, view.mask()), c.layout));
    emit(Opcode::TileAsyncCopy, std::move(ops), {c.width});
  }

  /// The load `id` for the iteration `map` computes: a copy of it.
  ValueId issue_load(InstId id, const std::map<ValueId, ValueId>& map) {
    const Instruction load = f_.inst(id);
    loc_ = load.loc;
    std::vector<ValueId> ops;
    for (ValueId o : load.operands) ops.push_back(mapped(map, o));
    return emit(Opcode::TileLoad, std::move(ops), load.attrs, f_.type_of(load.results[0]));
  }

  /// Stages the operands of `loop`'s top-level tensor-core dots that are defined before the
  /// loop: each is written to a buffer of its own once, before the first loop of the region
  /// that reads it (attention's q, read by the loops of both causal stages, is written once),
  /// and the dots read it there. Returns the buffers made for this loop.
  std::vector<ValueId> stage_invariant_operands(InstId loop) {
    std::set<ValueId> inside;
    defined_in(f_, f_.inst(loop).regions[0], inside);
    std::vector<ValueId> buffers;
    const std::vector<InstId> ids = f_.inst(loop).regions[0].body;  // emitting moves instructions
    for (InstId id : ids) {
      const Instruction dot = f_.inst(id);
      if (dot.op != Opcode::TileDot || !dot_uses_mma(f_, dot, warps_)) continue;
      for (int k = 0; k < 2; ++k) {
        const std::size_t index = k == 0 ? ops::TileDot::a_operand : ops::TileDot::b_operand;
        const ValueId v = dot.operands[index];
        const Type t = f_.type_of(v);
        if (inside.count(v) || t.layout()->is_shared()) continue;
        if (!staged_.count(v)) {
          if (buffers.empty()) barrier();  // earlier readers of the arena's bytes are done
          loc_ = dot.loc;
          const std::vector<std::int64_t> shape(t.shape().begin(), t.shape().end());
          const ValueId buf = emit(Opcode::TileLocalAlloc, {}, {std::string("the dot's ") + (k == 0 ? "a" : "b") + " operand"},
                                   t.without_layout().with_layout(dot_operand_shared_layout(f_, dot, k, shape)));
          emit(Opcode::TileLocalStore, {v, buf});
          staged_[v] = {buf, loop};
          buffers.push_back(buf);
        }
        staged_.at(v).last_loop = loop;
        f_.inst(id).operands[index] = staged_.at(v).buffer;
      }
    }
    if (!buffers.empty()) barrier();
    return buffers;
  }

  /// Rewrites loop `id` pipelined, appending it and what it needs before and after to `out`.
  void loop(InstId id, std::vector<InstId>& out) {
    out_ = &out;
    loc_ = f_.inst(id).loc;
    const std::vector<ValueId> staged = stage_invariant_operands(id);
    // (References into the function's instructions do not outlive an emit.)
    const Instruction* step_def = f_.def_of(ops::For(f_.inst(id)).step());
    const std::int64_t step_value =
        step_def && step_def->op == Opcode::Const ? std::get<std::int64_t>(ops::Const(*step_def).value()) : 0;
    std::vector<InstId> closure, loads;
    std::vector<Copy> copies;
    if (step_value > 0) {
      loads = hoistable_loads(f_.inst(id), closure);
      for (InstId l : loads)
        if (auto c = as_copy(f_.inst(id), l)) copies.push_back(*c);
      for (const Copy& c : copies) loads.erase(std::find(loads.begin(), loads.end(), c.load));
    }
    if (copies.empty() && loads.empty()) {
      out.push_back(id);
      return;
    }
    const ValueId lb = ops::For(f_.inst(id)).lower(), ub = ops::For(f_.inst(id)).upper(),
                  step = ops::For(f_.inst(id)).step();
    const ValueId iv_arg = f_.inst(id).regions[0].args[0];
    const Type it = f_.type_of(lb);
    const Predicate lt = Predicate::Lt;
    auto ahead = [&](ValueId iv, int n) { return n == 0 ? iv : add(iv, constant(it, step_value * n)); };

    // A dot reading both copies is pipelined at the level of its k-steps too (split_dot): all
    // stages are filled ahead, and the dot turns to the next stage before its last k-step.
    const std::optional<InstId> frag = fragment_dot(f_.inst(id), copies);
    const Copy* copy_of[2] = {nullptr, nullptr};
    for (const Copy& c : copies) copy_of[c.operand] = &c;
    // wgmma dots leave their MMAs in flight while the loop refills the stage the previous
    // iteration read, right after the last of them is issued (a refill before them would race
    // the previous iteration's MMAs), and are waited for before their results are read
    // (defer_dot_waits).
    InstId last_wgmma = kNone;
    for (InstId k : f_.inst(id).regions[0].body)
      if (f_.inst(k).op == Opcode::TileDot && f_.type_of(f_.inst(k).results[0]).layout()->is_wgmma()) last_wgmma = k;
    const bool async_dots = !copies.empty() && !frag && last_wgmma != kNone;
    // A GEMM's accumulator (the last wgmma dot's result, only carried to the next iteration's
    // dot) stays in flight across iterations: each iteration waits for the previous one's MMAs
    // only (tile.dot_wait 1), then a barrier says every warpgroup's are done, so the stage they
    // read can be refilled with copies still stages - 1 iterations ahead; the tensor cores keep
    // working through the loop's waits, barriers and copies. On the H100 this took the 8192^3
    // bf16 GEMM at 128x256x64 on 4 stages from 0.84x to 0.90x cuBLAS (bench/RESULTS.md).
    const std::size_t carried = async_dots ? in_flight_accumulator(f_.inst(id), last_wgmma) : kNotCarried;
    // Before the loop: the rings, and the copies of the first stages - 1 iterations (stages,
    // for a split dot, which then reads the first stage's first fragments).
    std::vector<ValueId> first_fragments;
    if (!copies.empty()) {
      if (staged.empty()) barrier();  // a previous run of this loop has finished reading its stages
      for (Copy& c : copies) {
        loc_ = f_.inst(c.load).loc;
        c.buffer = emit(Opcode::TileLocalAlloc, {}, {c.what}, c.ring);
      }
      for (int s = 0; s < stages_ - (frag ? 0 : 1); ++s) {
        const ValueId iv = ahead(lb, s);
        const ValueId valid = compare(lt, iv, ub);
        clone_closure(closure, iv_arg, iv, [&](InstId l, const std::map<ValueId, ValueId>& map) {
          for (const Copy& c : copies)
            if (c.load == l) issue_copy(c, map, emit(Opcode::TileLocalIndex, {c.buffer, i32(s)}, {}, c.stage), valid);
        });
        emit(Opcode::TileAsyncCommit, {});
      }
      if (frag) {
        loc_ = f_.inst(*frag).loc;
        emit(Opcode::TileAsyncWait, {}, {std::int64_t{stages_ - 1}});
        barrier();
        const Instruction dot = f_.inst(*frag);
        for (int k = 0; k < 2; ++k)
          first_fragments.push_back(
              fragments(dot, k, emit(Opcode::TileLocalIndex, {copy_of[k]->buffer, i32(0)}, {}, copy_of[k]->stage), 0));
      }
    }
    // And the first iteration's register loads, when it runs.
    std::vector<ValueId> first;
    if (!loads.empty()) first = first_loads(closure, loads, iv_arg, lb, compare(lt, lb, ub));

    // The loop carries the stage it reads and the next iteration's loads.
    ValueId stage_arg = kNone;
    auto carry = [&](ValueId init) {
      const Type t = f_.type_of(init);
      f_.inst(id).operands.push_back(init);
      const ValueId arg = f_.add_value(t, kNone, static_cast<std::uint32_t>(f_.inst(id).regions[0].args.size()));
      f_.inst(id).regions[0].args.push_back(arg);
      const ValueId res = f_.add_value(t, id, static_cast<std::uint32_t>(f_.inst(id).results.size()));
      f_.inst(id).results.push_back(res);
      return arg;
    };
    if (!copies.empty()) stage_arg = carry(i32(0));
    std::vector<ValueId> pref_args, fragment_args;
    for (ValueId v : first) pref_args.push_back(carry(v));
    for (ValueId v : first_fragments) fragment_args.push_back(carry(v));

    // The body: wait for this iteration's stage, read it, issue the next iteration's loads,
    // run, refill the stage the previous iteration read.
    std::vector<InstId> new_body;
    out_ = &new_body;
    const std::vector<InstId> old_body = f_.inst(id).regions[0].body;
    const ValueId iv = f_.inst(id).regions[0].args[0];
    ValueId stage_next = kNone;
    const bool refill_first = stages_ == 2 && !async_dots;
    bool refilled = false;
    auto refill_previous_stage = [&] {
      loc_ = f_.inst(id).loc;
      const ValueId iv_r = ahead(iv, stages_ - 1);
      const ValueId valid = compare(lt, iv_r, ub);
      const ValueId refill = select(compare(Predicate::Eq, stage_arg, i32(0)), i32(stages_ - 1), add(stage_arg, i32(-1)));
      clone_closure(closure, iv_arg, iv_r, [&](InstId l, const std::map<ValueId, ValueId>& map) {
        for (const Copy& c : copies)
          if (c.load == l) issue_copy(c, map, emit(Opcode::TileLocalIndex, {c.buffer, refill}, {}, c.stage), valid);
      });
      emit(Opcode::TileAsyncCommit, {});
    };
    if (!copies.empty()) {
      loc_ = f_.inst(id).loc;
      if (frag) {
        const ValueId inc = add(stage_arg, i32(1));
        stage_next = select(compare(Predicate::Eq, inc, i32(stages_)), i32(0), inc);
      } else {
        emit(Opcode::TileAsyncWait, {}, {std::int64_t{stages_ - 2}});
        barrier();  // every thread's copies have landed; every warp is done with the previous stage
      }
      // The stage the previous iteration read is refilled with iteration i + stages - 1 right
      // away when there are two stages (copies issued after the body would be waited for at
      // once), else after the body: its math starts sooner, and the copies still have
      // stages - 2 iterations to land.
      if (!frag && refill_first) refill_previous_stage();
      for (const Copy& c : copies) {
        loc_ = f_.inst(c.load).loc;
        const ValueId view = emit(Opcode::TileLocalIndex, {c.buffer, stage_arg}, {}, c.stage);
        replace_uses(f_, f_.inst(id).regions[0], f_.inst(c.load).results[0], view);
      }
    }
    std::vector<ValueId> next;
    if (!loads.empty()) {
      // The last iteration reloads its own tiles: in bounds, and unused.
      loc_ = f_.inst(id).loc;
      const ValueId iv_next = add(iv, step);
      const ValueId at = select(compare(lt, iv_next, ub), iv_next, iv);
      clone_closure(closure, iv_arg, at, [&](InstId l, const std::map<ValueId, ValueId>& map) {
        if (std::find(loads.begin(), loads.end(), l) != loads.end()) next.push_back(issue_load(l, map));
      });
      for (std::size_t k = 0; k < loads.size(); ++k)
        replace_uses(f_, f_.inst(id).regions[0], f_.inst(loads[k]).results[0], pref_args[k]);
    }
    std::set<InstId> gone(loads.begin(), loads.end());
    for (const Copy& c : copies) gone.insert(c.load);
    std::vector<ValueId> next_fragments;
    for (std::size_t k = 0; k + 1 < old_body.size(); ++k) {
      if (gone.count(old_body[k])) continue;
      if (frag && old_body[k] == *frag) {
        // The turn: this thread's copies of the next stage have landed, and the barrier says
        // everyone's have, and that every warp has read this stage, refilled with the copies of
        // iteration i + stages.
        auto turn = [&] {
          emit(Opcode::TileAsyncWait, {}, {std::int64_t{stages_ - 2}});
          barrier();
          const ValueId iv_r = ahead(iv, stages_);
          const ValueId valid = compare(lt, iv_r, ub);
          clone_closure(closure, iv_arg, iv_r, [&](InstId l, const std::map<ValueId, ValueId>& map) {
            for (const Copy& c : copies)
              if (c.load == l) issue_copy(c, map, emit(Opcode::TileLocalIndex, {c.buffer, stage_arg}, {}, c.stage), valid);
          });
          emit(Opcode::TileAsyncCommit, {});
        };
        auto next_views = [&] {
          std::vector<ValueId> views;
          for (int c = 0; c < 2; ++c)
            views.push_back(emit(Opcode::TileLocalIndex, {copy_of[c]->buffer, stage_next}, {}, copy_of[c]->stage));
          return views;
        };
        next_fragments = split_dot(old_body[k], fragment_args, turn, next_views);
        continue;
      }
      new_body.push_back(old_body[k]);
      if (async_dots && old_body[k] == last_wgmma) {
        if (carried != kNotCarried) {
          // This iteration's MMAs stay in flight; the previous iteration's are done in this
          // warpgroup, and after the barrier in every one, so the stage they read is free.
          loc_ = f_.inst(last_wgmma).loc;
          const ValueId result = f_.inst(last_wgmma).results[0];
          f_.inst(old_body.back()).operands[carried] =
              emit(Opcode::TileDotWait, {result}, {std::int64_t{1}}, f_.type_of(result));
          barrier();
        }
        refill_previous_stage();
        refilled = true;
      }
    }
    std::vector<ValueId> yields = f_.inst(old_body.back()).operands;
    if (frag) {
      yields.push_back(stage_next);
    } else if (!copies.empty()) {
      loc_ = f_.inst(id).loc;
      if (!refill_first && !refilled) refill_previous_stage();
      const ValueId inc = add(stage_arg, i32(1));
      yields.push_back(select(compare(Predicate::Eq, inc, i32(stages_)), i32(0), inc));
    }
    yields.insert(yields.end(), next.begin(), next.end());
    yields.insert(yields.end(), next_fragments.begin(), next_fragments.end());
    f_.inst(old_body.back()).operands = yields;
    new_body.push_back(old_body.back());
    if (async_dots) defer_dot_waits(new_body);
    f_.inst(id).regions[0].body = std::move(new_body);

    // After the loop: the zero-fill copies past the end have landed; the rings are free.
    out.push_back(id);
    out_ = &out;
    loc_ = f_.inst(id).loc;
    if (carried != kNotCarried) {
      // The last iteration's MMAs, before anything reads the accumulator or reuses the stages.
      const ValueId result = f_.inst(id).results[carried];
      replaced_after_loop_.push_back({result, emit(Opcode::TileDotWait, {result}, {std::int64_t{0}}, f_.type_of(result))});
    }
    if (!copies.empty()) emit(Opcode::TileAsyncWait, {}, {std::int64_t{0}});
    std::vector<ValueId> buffers;
    for (const Copy& c : copies) buffers.push_back(c.buffer);
    release(buffers, out);
  }

  /// Each wgmma dot of `body` leaves its MMAs in flight up to a tile.dot_wait placed before
  /// the first instruction after it that reads its result (what comes between, such as the
  /// refill of a stage, overlaps the MMAs); later uses read the wait's result.
  void defer_dot_waits(std::vector<InstId>& body) {
    for (std::size_t i = 0; i < body.size(); ++i) {
      if (f_.inst(body[i]).op != Opcode::TileDot) continue;
      const ValueId v = f_.inst(body[i]).results[0];
      if (!f_.type_of(v).layout()->is_wgmma()) continue;
      std::size_t j = i + 1;
      for (; j < body.size(); ++j) {
        Region one;
        one.body = {body[j]};
        std::vector<const Instruction*> uses;
        uses_in(f_, one, v, uses);
        if (!uses.empty()) break;
      }
      if (j == body.size() || f_.inst(body[j]).op == Opcode::TileDotWait) continue;
      std::vector<InstId> wait;
      out_ = &wait;
      loc_ = f_.inst(body[i]).loc;
      const ValueId done = emit(Opcode::TileDotWait, {v}, {std::int64_t{0}}, f_.type_of(v));
      Region rest;
      rest.body.assign(body.begin() + static_cast<std::ptrdiff_t>(j), body.end());
      replace_uses(f_, rest, v, done);
      body.insert(body.begin() + static_cast<std::ptrdiff_t>(j), wait.front());
    }
  }

  /// The position among `loop`'s carried values of wgmma dot `dot`'s accumulator, when the
  /// dot's result goes only to the next iteration and the dot is the only reader there (a
  /// GEMM's main loop): its MMAs may then stay in flight until the next iteration's are
  /// issued. kNotCarried otherwise (attention scales its accumulator between its dots).
  std::size_t in_flight_accumulator(const Instruction& loop, InstId dot) const {
    const Region& body = loop.regions[0];
    const Instruction& yield = f_.inst(body.body.back());
    const ValueId result = f_.inst(dot).results[0];
    std::vector<const Instruction*> uses;
    uses_in(f_, body, result, uses);
    if (uses.size() != 1 || uses[0] != &yield || std::count(yield.operands.begin(), yield.operands.end(), result) != 1)
      return kNotCarried;
    const auto at = static_cast<std::size_t>(std::find(yield.operands.begin(), yield.operands.end(), result) - yield.operands.begin());
    const ValueId arg = body.args[at + 1];  // args[0] is the induction variable
    uses.clear();
    uses_in(f_, body, arg, uses);
    if (ops::TileDot(f_.inst(dot)).acc() != arg || uses.size() != 1 || uses[0] != &f_.inst(dot)) return kNotCarried;
    return at;
  }

  /// The first iteration's `loads` (at `lb`) when `runs`, else zeros.
  std::vector<ValueId> first_loads(const std::vector<InstId>& closure, const std::vector<InstId>& loads, ValueId iv_arg,
                                   ValueId lb, ValueId runs) {
    std::vector<InstId>* outer = out_;
    Instruction branch;
    branch.op = Opcode::If;
    branch.operands = {runs};
    branch.loc = loc_;
    branch.regions.resize(2);
    std::vector<ValueId> yields[2];
    std::vector<InstId> bodies[2];
    out_ = &bodies[0];
    clone_closure(closure, iv_arg, lb, [&](InstId l, const std::map<ValueId, ValueId>& map) {
      if (std::find(loads.begin(), loads.end(), l) != loads.end()) yields[0].push_back(issue_load(l, map));
    });
    out_ = &bodies[1];
    for (InstId l : loads) {
      const Type t = f_.type_of(f_.inst(l).results[0]);
      const Type e = t.element();
      const ValueId zero = e.is_float() ? emit(Opcode::Const, {}, {0.0}, e) : constant(e, 0);
      yields[1].push_back(emit(Opcode::TileSplat, {zero}, {}, t));
    }
    for (int k = 0; k < 2; ++k) {
      out_ = &bodies[k];
      emit(Opcode::Yield, yields[k]);
      branch.regions[static_cast<std::size_t>(k)].body = bodies[k];
    }
    out_ = outer;
    const InstId bid = f_.add_inst(std::move(branch));
    std::vector<ValueId> results;
    for (ValueId y : yields[0]) {
      results.push_back(f_.add_value(f_.type_of(y), bid, static_cast<std::uint32_t>(results.size())));
    }
    f_.inst(bid).results = results;
    out_->push_back(bid);
    return results;
  }

  /// Releases shared buffers after the loop that used them.
  void release(const std::vector<ValueId>& buffers, std::vector<InstId>& out) {
    out_ = &out;
    for (ValueId b : buffers) emit(Opcode::TileLocalDealloc, {b});
  }

  /// A dot operand from before a loop, written to shared memory once for the loops of its
  /// region that read it.
  struct StagedOperand {
    ValueId buffer;
    InstId last_loop;  ///< the last loop reading it: the buffer is released after it
  };

  Function& f_;
  const int warps_;
  const int stages_;
  std::map<ValueId, StagedOperand> staged_;  ///< the current region's
  std::vector<InstId>* out_ = nullptr;
  Location loc_;
  /// Loop results read through a tile.dot_wait from after the loop on (region() rewrites
  /// their later uses).
  std::vector<std::pair<ValueId, ValueId>> replaced_after_loop_;
};

}  // namespace

Function pipeline_loops(Function f) {
  // The host CPU has no asynchronous copies to overlap: its loops stay as written.
  if (f.tile_warps() > 0 && !f.host_target()) Pipeliner(f).run();
  return f;
}

}  // namespace cutlet::ir
