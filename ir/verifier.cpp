// Verifier: walks regions in order with a scoped set of visible values.
#include "cutlet/ir/verifier.h"

#include <algorithm>
#include <span>
#include <string>
#include <vector>

#include "cutlet/ir/ops.h"
#include "cutlet/ir/printer.h"
#include "ops/rules.h"

namespace cutlet::ir {
namespace {

class Verifier {
 public:
  explicit Verifier(const Function& f)
      : f_(f), visible_(f.num_values(), false), defined_(f.num_values(), false), placed_(f.num_insts(), false) {}

  void run() {
    for (auto p : f_.body().args) define(p, nullptr);
    for (auto p : f_.body().args) {
      Type t = f_.type_of(p);
      if (!(t.is_scalar() || t.is_pointer() || t.is_record())) fail(nullptr, "parameter of type " + t.str());
      if (t.is_record() && !f_.is_kernel()) fail(nullptr, "a device function cannot take a record parameter");
    }
    if (f_.is_kernel()) {
      region(f_.body(), /*is_body=*/true);
    } else {
      region(f_.body(), /*is_body=*/false);
      Type rt = f_.return_type();
      std::vector<Type> want;
      if (!rt.is_void()) want.push_back(rt);
      const Instruction& term = f_.inst(f_.body().body.back());
      if (term.op != Opcode::Yield || term.operands.size() != want.size() ||
          (!want.empty() && f_.type_of(term.operands[0]) != want[0]))
        fail(&term, "a device function's body must end in 'yield' of its " + rt.str() + " result");
    }
  }

 private:
  [[noreturn]] void fail(const Instruction* inst, const std::string& what) {
    std::string msg = "cutlet IR verifier: in kernel @" + f_.name() + ": ";
    if (inst) msg += std::string("'") + mnemonic(inst->op) + "': ";
    msg += what;
    if (inst && inst->loc.known()) msg += " (at " + std::string(inst->loc.file) + ":" + std::to_string(inst->loc.line) + ")";
    throw IRError(msg);
  }

  void define(ValueId v, const Instruction* inst) {
    if (v >= f_.num_values()) fail(inst, "defines unknown value id " + std::to_string(v));
    if (defined_[v]) fail(inst, "value defined twice");
    defined_[v] = true;
    visible_[v] = true;
    scope_.push_back(v);
  }

  Type use(ValueId v, const Instruction* inst) {
    if (v >= f_.num_values()) fail(inst, "uses unknown value id " + std::to_string(v));
    if (!visible_[v]) fail(inst, "uses a value that is not defined before it in an enclosing scope");
    return f_.type_of(v);
  }

  void region(const Region& r, bool is_body) {
    std::size_t mark = scope_.size();
    for (std::size_t i = 0; i < r.body.size(); ++i) {
      InstId id = r.body[i];
      if (id >= f_.num_insts()) fail(nullptr, "region lists unknown instruction " + std::to_string(id));
      if (placed_[id]) fail(&f_.inst(id), "instruction placed twice");
      placed_[id] = true;
      const Instruction& inst = f_.inst(id);
      bool last = i + 1 == r.body.size();
      if (has_trait(inst.op, Terminator) && (!last || is_body)) fail(&inst, "terminator in the middle of a region");
      if (!is_body && last && !has_trait(inst.op, Terminator)) fail(&inst, "region does not end in a terminator");
      instruction(inst);
    }
    if (!is_body && r.body.empty()) fail(nullptr, "empty region (needs a terminator)");
    while (scope_.size() > mark) {
      visible_[scope_.back()] = false;
      scope_.pop_back();
    }
  }

  void enter_region(const Region& r, std::span<const Type> arg_types, const Instruction& owner, const char* which) {
    if (r.args.size() != arg_types.size())
      fail(&owner, std::string(which) + " region has " + std::to_string(r.args.size()) + " arguments, expected " +
                       std::to_string(arg_types.size()));
    std::size_t mark = scope_.size();
    for (std::size_t i = 0; i < r.args.size(); ++i) {
      define(r.args[i], &owner);
      if (f_.type_of(r.args[i]) != arg_types[i]) fail(&owner, std::string(which) + " region argument has the wrong type");
    }
    region(r, false);
    while (scope_.size() > mark) {
      visible_[scope_.back()] = false;
      scope_.pop_back();
    }
  }


  /// Whether operand k of an `op` may be a tile in a shared layout.
  static bool takes_shared(Opcode op, std::size_t k) {
    switch (op) {
      case Opcode::TileDot: return k < 2;
      case Opcode::TileLocalStore: return k == 1;
      case Opcode::TileLocalIndex:
      case Opcode::TileLocalSlice:
      case Opcode::TileLocalLoad:
      case Opcode::TileLocalDealloc:
      case Opcode::TileAsyncCopy: return k == 0;
      default: return false;
    }
  }

  static bool is_dot_operand_tile(Type t) { return t.is_tile() && t.layout() && t.layout()->is_dot_operand(); }

  /// Whether operand k of an `op` may be a tile of mma fragments (a dot-operand layout): the
  /// a and b of a dot, and values a loop carries.
  static bool takes_dot_operand(Opcode op, std::size_t k) {
    switch (op) {
      case Opcode::TileDot: return k < 2;
      case Opcode::Yield:
      case Opcode::For: return true;
      default: return false;
    }
  }

  static std::vector<Type> types(const Function& f, std::span<const ValueId> vs) {
    std::vector<Type> t;
    for (auto v : vs) t.push_back(f.type_of(v));
    return t;
  }

  void expect_terminator(const Region& r, Opcode op, std::span<const Type> types_expected, const Instruction& owner,
                         std::size_t skip = 0) {
    const Instruction& term = f_.inst(r.body.back());
    if (term.op != op) fail(&owner, std::string("region must end in '") + mnemonic(op) + "'");
    if (term.operands.size() != types_expected.size() + skip) fail(&term, "wrong number of yielded values");
    for (std::size_t i = 0; i < types_expected.size(); ++i)
      if (f_.type_of(term.operands[i + skip]) != types_expected[i]) fail(&term, "yielded value has the wrong type");
  }

  void instruction(const Instruction& inst) {
    std::vector<Type> ot;
    for (auto v : inst.operands) ot.push_back(use(v, &inst));
    for (std::size_t k = 0; k < ot.size(); ++k)
      if (is_shared_tile(ot[k]) && !takes_shared(inst.op, k))
        fail(&inst, "operand " + std::to_string(k) + " is a tile in shared memory, which only dots and the tile.local_* "
                    "and tile.async_copy ops read");
    for (std::size_t k = 0; k < ot.size(); ++k)
      if (is_dot_operand_tile(ot[k]) && !takes_dot_operand(inst.op, k))
        fail(&inst, "operand " + std::to_string(k) + " is a tile of mma fragments, which only dots read");
    std::vector<Type> rt;
    for (auto r : inst.results) {
      if (r >= f_.num_values()) fail(&inst, "defines unknown value id " + std::to_string(r));
      if (f_.value(r).def != static_cast<InstId>(&inst - &f_.inst(0))) fail(&inst, "result does not point back to its instruction");
      rt.push_back(f_.type_of(r));
    }
    for (std::size_t k = 0; k < rt.size(); ++k)
      if (is_dot_operand_tile(rt[k]) && inst.op != Opcode::TileLocalLoad && inst.op != Opcode::For && inst.op != Opcode::If)
        fail(&inst, "makes a tile of mma fragments, which only tile.local_load does");

    // The op's own rule (ops.def), the one the builder made it with.
    std::vector<Type> inferred;
    try {
      inferred = infer_result_types(OpTypes{inst.op, ot, inst.attrs, rt, &f_});
    } catch (const OpRuleError& e) {
      fail(&inst, e.what());
    }
    if (inferred.size() != rt.size())
      fail(&inst, inferred.empty() ? std::string("must have no result")
                  : inferred.size() == 1 ? std::string("must have exactly one result")
                                         : "must have " + std::to_string(inferred.size()) + " results");
    // Tile ops place their results themselves: their rules give shapes and elements.
    const bool placed_by_op = has_trait(inst.op, TileOp);
    for (std::size_t k = 0; k < rt.size(); ++k)
      if (rt[k] != inferred[k] && !(placed_by_op && unplaced(rt[k]) == unplaced(inferred[k])))
        fail(&inst, "result of type " + rt[k].str() + ", but its operands make " + inferred[k].str());
    structure(inst, ot);
    for (auto r : inst.results) define(r, &inst);
  }

  /// What the op rules cannot see: regions, where a buffer comes from, whose fragments a dot reads.
  void structure(const Instruction& inst, const std::vector<Type>& ot) {
    if (!has_trait(inst.op, HasRegions) && !inst.regions.empty()) fail(&inst, "has regions, which only region ops have");
    switch (inst.op) {
      case Opcode::TileLocalDealloc: {
        const Instruction* d = f_.def_of(inst.operands[0]);
        if (!d || d->op != Opcode::TileLocalAlloc) fail(&inst, "releases what tile.local_alloc made");
        break;
      }
      case Opcode::TileDot: {
        const ops::TileDot dot(inst);
        const std::int64_t tr = dot.transposed();
        for (int k = 0; k < 2; ++k) {
          if (!is_dot_operand_tile(ot[k])) continue;
          const Layout& l = *ot[k].layout();
          const bool t = (tr & (k == 0 ? ATransposed : BTransposed)) != 0;
          const Layout* acc = f_.type_of(dot.result()).layout();
          if (l.operand != k || l.transposed != t || (acc && acc->wpc != l.wpc))
            fail(&inst, std::string("its ") + (k == 0 ? "a" : "b") + " fragments are not the ones this dot reads");
        }
        break;
      }
      case Opcode::If: {
        if (inst.regions.size() != 2) fail(&inst, "needs then and else regions");
        auto rt = types(f_, inst.results);
        for (int r = 0; r < 2; ++r) {
          enter_region(inst.regions[r], {}, inst, r ? "else" : "then");
          expect_terminator(inst.regions[r], Opcode::Yield, rt, inst);
        }
        break;
      }
      case Opcode::TileReduceWith:
      case Opcode::TileScan: {
        if (inst.regions.size() != 1) fail(&inst, "needs a combine region");
        std::vector<Type> elems;
        for (auto t : ot) elems.push_back(t.element());
        std::vector<Type> args = elems;
        args.insert(args.end(), elems.begin(), elems.end());
        enter_region(inst.regions[0], args, inst, "combine");
        expect_terminator(inst.regions[0], Opcode::Yield, elems, inst);
        break;
      }
      case Opcode::For: {
        if (inst.regions.size() != 1) fail(&inst, "needs one region");
        std::vector<Type> carried(ot.begin() + 3, ot.end());
        std::vector<Type> args{ot[0]};
        args.insert(args.end(), carried.begin(), carried.end());
        enter_region(inst.regions[0], args, inst, "body");
        expect_terminator(inst.regions[0], Opcode::Yield, carried, inst);
        break;
      }
      case Opcode::While: {
        if (inst.regions.size() != 2) fail(&inst, "needs before and after regions");
        auto rt = types(f_, inst.results);
        enter_region(inst.regions[0], ot, inst, "before");
        const Region& before = inst.regions[0];
        const Instruction& cond = f_.inst(before.body.back());
        if (cond.op != Opcode::Condition || cond.operands.empty() || !f_.type_of(cond.operands[0]).is_bool())
          fail(&inst, "before region must end in 'condition' with an i1 first");
        expect_terminator(before, Opcode::Condition, rt, inst, 1);
        enter_region(inst.regions[1], rt, inst, "after");
        expect_terminator(inst.regions[1], Opcode::Yield, ot, inst);
        break;
      }
      default: break;
    }
  }

  const Function& f_;
  std::vector<bool> visible_, defined_, placed_;
  std::vector<ValueId> scope_;
};

}  // namespace

void verify(const Function& f) {
  for (const auto& c : f.callees()) verify(*c);
  if (!is_symbol_name(f.name()))
    throw IRError("cutlet IR verifier: '" + f.name() + "' is not a PTX name (a letter, '_' or '$', then letters, digits, "
                  "'_' or '$')");
  Verifier(f).run();
}

}  // namespace cutlet::ir
