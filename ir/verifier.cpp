// Verifier: walks regions in order with a scoped set of visible values.
#include "cutlet/ir/verifier.h"

#include <algorithm>
#include <span>
#include <string>
#include <vector>

#include "cutlet/ir/math.h"
#include "cutlet/ir/printer.h"

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

  static bool is_shared_tile(Type t) { return t.is_tile() && t.layout() && t.layout()->is_shared(); }

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

  /// The checks of the ops of shared memory (layout.h's shared layouts).
  void shared_memory_op(const Instruction& inst, const std::vector<Type>& ot) {
    switch (inst.op) {
      case Opcode::TileLocalAlloc:
        if (!is_shared_tile(one(inst))) fail(&inst, "must produce a tile in a shared layout");
        break;
      case Opcode::TileLocalIndex: {
        const Type r = one(inst);
        if (!is_shared_tile(ot[0]) || ot[0].shape().size() < 2 || ot[1] != Type::i32() || !is_shared_tile(r))
          fail(&inst, "must be (shared tile<S x ...>, i32) -> shared tile<...>");
        const Layout& from = *ot[0].layout();
        const auto s = ot[0].shape();
        if (r.element() != ot[0].element() || !std::ranges::equal(r.shape(), s.subspan(1)) ||
            !std::ranges::equal(r.layout()->strides, std::span(from.strides).subspan(1)))
          fail(&inst, "a stage of a ring has the ring's element type, inner shape and strides");
        break;
      }
      case Opcode::TileLocalSlice: {
        // (shared tile) {offset per dimension} -> the part of it from those offsets, same strides
        const Type r = one(inst);
        if (!is_shared_tile(ot[0]) || !is_shared_tile(r) || r.element() != ot[0].element() ||
            r.shape().size() != ot[0].shape().size() || inst.attrs.size() != ot[0].shape().size() ||
            r.layout()->strides != ot[0].layout()->strides)
          fail(&inst, "must be (shared tile<S x T>) {an offset per dimension} -> shared tile<R x T> of the same strides");
        for (std::size_t d = 0; d < r.shape().size(); ++d)
          if (inst.int_attr(d) < 0 || inst.int_attr(d) + r.shape()[d] > ot[0].shape()[d])
            fail(&inst, "the part must lie inside the tile");
        break;
      }
      case Opcode::TileLocalLoad: {
        const Type r = one(inst);
        if (!is_shared_tile(ot[0]) || !r.is_tile() || !r.layout() || is_shared_tile(r) ||
            r.without_layout() != ot[0].without_layout())
          fail(&inst, "must be (shared tile<S x T>) -> tile<S x T, layout> in registers");
        if (r.layout()->is_dot_operand() && r.shape().size() != 2) fail(&inst, "loads 2-D dot operands");
        break;
      }
      case Opcode::TileLocalStore:
        if (!ot[0].is_tile() || !is_shared_tile(ot[1]) || ot[0].without_layout() != ot[1].without_layout())
          fail(&inst, "must be (tile<S x T>, shared tile<S x T>)");
        break;
      case Opcode::TileLocalDealloc: {
        const Instruction* d = f_.def_of(inst.operands[0]);
        if (!d || d->op != Opcode::TileLocalAlloc) fail(&inst, "releases what tile.local_alloc made");
        break;
      }
      case Opcode::TileAsyncCopy: {
        // (stage, ptr, offsets, valid[, mask]) {elements per copy}
        if (ot.size() < 4 || ot.size() > 5 || inst.attrs.size() != 1) fail(&inst, "needs stage, pointer, offsets, valid[, mask] and a width");
        if (!is_shared_tile(ot[0]) || !ot[1].is_pointer() || ot[1].address_space() != AddressSpace::Global ||
            ot[1].element() != ot[0].element())
          fail(&inst, "copies global ptr<T> into a shared tile of T");
        if (!ot[2].is_tile() || !ot[2].element().is_integer() || !std::ranges::equal(ot[2].shape(), ot[0].shape()))
          fail(&inst, "offsets must be an integer tile of the stage's shape");
        if (ot[3] != Type::i1()) fail(&inst, "valid must be i1");
        if (ot.size() == 5 && ot[4] != ot[2].with_element(Type::i1())) fail(&inst, "mask must be an i1 tile in the offsets' layout");
        const std::int64_t w = inst.int_attr();
        if (w < 1 || (w & (w - 1)) != 0 || w * ot[0].element().bits() / 8 > 16 || w * ot[0].element().bits() / 8 < 4)
          fail(&inst, "copies 4, 8 or 16 bytes at a time");
        break;
      }
      case Opcode::TileAsyncWait:
        if (inst.attrs.size() != 1 || inst.int_attr() < 0) fail(&inst, "needs the number of groups left pending");
        break;
      default: break;
    }
  }

  Type one(const Instruction& inst) {
    if (inst.results.size() != 1) fail(&inst, "must have exactly one result");
    return f_.type_of(inst.results[0]);
  }

  void expect_pointer_result(const Instruction& inst, AddressSpace space) {
    Type r = one(inst);
    if (!r.is_pointer() || r.address_space() != space)
      fail(&inst, std::string("must produce a ") + address_space_name(space) + " pointer");
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
    const OpInfo& info = op_info(inst.op);
    if (info.arity >= 0 && inst.operands.size() != static_cast<std::size_t>(info.arity))
      fail(&inst, "has " + std::to_string(inst.operands.size()) + " operands, expected " + std::to_string(info.arity));
    std::vector<Type> ot;
    for (auto v : inst.operands) ot.push_back(use(v, &inst));
    for (std::size_t k = 0; k < ot.size(); ++k)
      if (is_shared_tile(ot[k]) && !takes_shared(inst.op, k))
        fail(&inst, "operand " + std::to_string(k) + " is a tile in shared memory, which only dots and the tile.local_* "
                    "and tile.async_copy ops read");
    for (std::size_t k = 0; k < ot.size(); ++k)
      if (is_dot_operand_tile(ot[k]) && !takes_dot_operand(inst.op, k))
        fail(&inst, "operand " + std::to_string(k) + " is a tile of mma fragments, which only dots read");
    for (auto r : inst.results)
      if (r < f_.num_values() && is_dot_operand_tile(f_.type_of(r)) && inst.op != Opcode::TileLocalLoad &&
          inst.op != Opcode::For && inst.op != Opcode::If)
        fail(&inst, "makes a tile of mma fragments, which only tile.local_load does");
    for (auto r : inst.results)
      if (r < f_.num_values() && f_.value(r).def != static_cast<InstId>(&inst - &f_.inst(0))) fail(&inst, "result does not point back to its instruction");

    auto one_result = [&]() -> Type {
      if (inst.results.size() != 1) fail(&inst, "must have exactly one result");
      return f_.type_of(inst.results[0]);
    };
    auto check_class = [&](Type t) {
      bool ok = true;
      switch (info.operands) {
        case OperandClass::Any: break;
        case OperandClass::Scalar: ok = t.is_scalar(); break;
        case OperandClass::Numeric: ok = t.is_integer() || t.is_float(); break;
        case OperandClass::Integer: ok = t.is_integer(); break;
        case OperandClass::IntOrBool: ok = t.is_integer() || t.is_bool(); break;
      }
      if (!ok) fail(&inst, "operand type " + t.str() + " is not allowed");
    };

    switch (info.rule) {
      case TypeRule::SameAsOperands: {
        Type r = one_result();
        for (auto t : ot) {
          if (t != r) fail(&inst, "operand of type " + t.str() + " but result " + r.str());
          if (!t.is_scalar() && !t.is_vector() && !t.is_tile()) fail(&inst, "operand type " + t.str() + " is not allowed");
          check_class(t.scalar_type());
        }
        break;
      }
      case TypeRule::Bool:
        if (one_result() != (ot[0].is_tile() ? ot[0].with_element(Type::i1()) : Type::i1()))
          fail(&inst, "result must be i1 (or a tile of i1 for tiles)");
        if (ot[0] != ot[1]) fail(&inst, "operands of different types " + ot[0].str() + " and " + ot[1].str());
        check_class(ot[0].scalar_type());
        if (inst.attrs.size() != 1 || inst.int_attr() < 0 || inst.int_attr() > 5) fail(&inst, "bad predicate");
        break;
      case TypeRule::SelectRule:
        if (!ot[0].scalar_type().is_bool() || ot[1] != ot[2] || one_result() != ot[1] ||
            ot[0].is_tile() != ot[1].is_tile() || (ot[0].is_tile() && ot[0] != ot[1].with_element(Type::i1())))
          fail(&inst, "must be (i1, T, T) -> T");
        break;
      case TypeRule::PointerOffset:
        if (!ot[0].is_pointer() || !ot[1].is_integer() || one_result() != ot[0]) fail(&inst, "must be (ptr<T>, integer) -> ptr<T>");
        break;
      case TypeRule::Pointee:
        if (!ot[0].is_pointer() || one_result() != ot[0].element()) fail(&inst, "must be (ptr<T>) -> T");
        break;
      case TypeRule::NoResult:
        if (!inst.results.empty()) fail(&inst, "must have no result");
        shared_memory_op(inst, ot);
        if (inst.op == Opcode::Store && (!ot[0].is_pointer() || ot[0].element() != ot[1]))
          fail(&inst, "stores " + ot[1].str() + " through " + ot[0].str());
        if (inst.op == Opcode::VecStore && (!ot[0].is_pointer() || !ot[1].is_vector() || ot[0].element() != ot[1].element()))
          fail(&inst, "stores " + ot[1].str() + " through " + ot[0].str());
        if (inst.op == Opcode::Assert && !ot[0].is_bool()) fail(&inst, "condition must be i1");
        break;
      case TypeRule::Explicit:
        explicit_rule(inst, ot);
        break;
    }
    for (auto r : inst.results) define(r, &inst);
  }

  void explicit_rule(const Instruction& inst, const std::vector<Type>& ot) {
    switch (inst.op) {
      case Opcode::Const: {
        if (inst.results.size() != 1 || inst.attrs.size() != 1) fail(&inst, "needs one result and one value");
        Type t = f_.type_of(inst.results[0]);
        bool is_int = std::holds_alternative<std::int64_t>(inst.attrs[0]);
        if (!((t.is_float() && !is_int) || ((t.is_integer() || t.is_bool()) && is_int)))
          fail(&inst, "constant value does not match its type " + t.str());
        if (is_int && normalize_int(t, inst.int_attr()) != inst.int_attr()) fail(&inst, "constant out of range for " + t.str());
        break;
      }
      case Opcode::Special:
        if (inst.results.size() != 1 || f_.type_of(inst.results[0]) != Type::i32()) fail(&inst, "must produce i32");
        if (inst.attrs.size() != 1 || inst.int_attr() < 0 || inst.int_attr() > static_cast<std::int64_t>(SpecialReg::LaneId)) fail(&inst, "bad register");
        break;
      case Opcode::Cast:
        if (inst.results.size() != 1 || ot[0].is_tile() != f_.type_of(inst.results[0]).is_tile() ||
            !ot[0].scalar_type().is_scalar() || !f_.type_of(inst.results[0]).scalar_type().is_scalar())
          fail(&inst, "converts scalars (or tiles of one shape)");
        if (ot[0].is_tile() && f_.type_of(inst.results[0]) != ot[0].with_element(f_.type_of(inst.results[0]).element()))
          fail(&inst, "converts tiles of one shape and layout");
        break;
      case Opcode::Bitcast:
        if (inst.results.size() != 1 || !ot[0].is_scalar() || f_.type_of(inst.results[0]).bits() != ot[0].bits())
          fail(&inst, "needs scalars of one width");
        break;
      case Opcode::Alloca:
        expect_pointer_result(inst, AddressSpace::Local);
        break;
      case Opcode::SharedAlloc:
      case Opcode::DynamicShared:
        expect_pointer_result(inst, AddressSpace::Shared);
        break;
      case Opcode::VecLoad: {
        Type r = one(inst);
        if (!ot[0].is_pointer() || !r.is_vector() || r.element() != ot[0].element())
          fail(&inst, "must be (ptr<T>) -> vec<NxT>");
        break;
      }
      case Opcode::Extract:
        if (!ot[0].is_vector() || one(inst) != ot[0].element()) fail(&inst, "must be (vec<NxT>) -> T");
        break;
      case Opcode::Insert:
        if (!ot[0].is_vector() || ot[1] != ot[0].element() || one(inst) != ot[0]) fail(&inst, "must be (vec<NxT>, T) -> vec<NxT>");
        break;
      case Opcode::Splat:
        if (!one(inst).is_vector() || one(inst).element() != ot[0]) fail(&inst, "must be (T) -> vec<NxT>");
        break;
      case Opcode::Math: {
        if (inst.attrs.size() != 1) fail(&inst, "needs its function");
        auto fn = static_cast<MathFn>(inst.int_attr());
        if (ot.empty() || ot.size() != static_cast<std::size_t>(math_info(fn).arity)) fail(&inst, "wrong number of operands");
        for (auto t : ot)
          if (t != ot[0]) fail(&inst, "operands of different types");
        if (!math_implementation(fn, ot[0].scalar_type()))
          fail(&inst, std::string(math_fn_name(fn)) + " is not defined for " + ot[0].str());
        Type want = math_result_type(fn, ot[0].scalar_type());
        if (ot[0].is_tile()) want = ot[0].with_element(want);
        if (one(inst) != want) fail(&inst, "wrong result type");
        break;
      }
      case Opcode::Atomic: {
        if (ot.size() < 2 || !ot[0].is_pointer()) fail(&inst, "needs a pointer and values");
        for (std::size_t i = 1; i < ot.size(); ++i)
          if (ot[i] != ot[0].element()) fail(&inst, "value type differs from the pointee");
        if (one(inst) != ot[0].element()) fail(&inst, "result must be the pointee type");
        break;
      }
      case Opcode::TileArange:
      case Opcode::TileSplat:
      case Opcode::TileBroadcast:
      case Opcode::TileExpandDims:
      case Opcode::TileReduce:
      case Opcode::TileLoad:
      case Opcode::TileAtomic:
      case Opcode::TilePermute:
      case Opcode::TileReshape:
        // Shapes and element types are checked by the builder, which is the only producer.
        if (inst.results.size() != 1) fail(&inst, "needs one result");
        break;
      case Opcode::TileConvertLayout:
        // The one op that moves a tile between layouts: same shape and elements, placed anew.
        if (inst.results.size() != 1 || !ot[0].is_tile() || !one(inst).layout() ||
            one(inst).without_layout() != ot[0].without_layout() || is_shared_tile(one(inst)))
          fail(&inst, "must be (tile<S x T>) -> tile<S x T, layout>, in registers");
        break;
      case Opcode::TileLocalAlloc:
      case Opcode::TileLocalIndex:
      case Opcode::TileLocalSlice:
      case Opcode::TileLocalLoad:
        shared_memory_op(inst, ot);
        break;
      case Opcode::TileDot: {
        if (inst.results.size() != 1 || inst.operands.size() != 3 || inst.attrs.size() != 2)
          fail(&inst, "needs a, b, acc, and the tf32 and transposed attributes");
        // [M, K] @ [K, N] + [M, N], each of a and b possibly given transposed.
        const std::int64_t tr = inst.int_attr(1);
        auto sa = ot[0].shape(), sb = ot[1].shape(), sc = one(inst).shape();
        if (sa.size() != 2 || sb.size() != 2 || sc.size() != 2) fail(&inst, "multiplies 2-D tiles");
        const std::int64_t m = tr & ATransposed ? sa[1] : sa[0], ka = tr & ATransposed ? sa[0] : sa[1];
        const std::int64_t kb = tr & BTransposed ? sb[1] : sb[0], n = tr & BTransposed ? sb[0] : sb[1];
        if (ka != kb || m != sc[0] || n != sc[1]) fail(&inst, "shapes do not make [M, K] @ [K, N] + [M, N]");
        for (int k = 0; k < 2; ++k) {
          if (!is_dot_operand_tile(ot[k])) continue;
          const Layout& l = *ot[k].layout();
          const bool t = (tr & (k == 0 ? ATransposed : BTransposed)) != 0;
          const Layout* acc = one(inst).layout();
          if (l.operand != k || l.transposed != t || (acc && acc->wpc != l.wpc))
            fail(&inst, std::string("its ") + (k == 0 ? "a" : "b") + " fragments are not the ones this dot reads");
        }
        break;
      }
      case Opcode::Field:
        if (!ot[0].is_record() || inst.attrs.empty() || inst.attrs.size() > 2) fail(&inst, "needs a record and a byte offset");
        if (!one(inst).is_scalar() && !one(inst).is_pointer()) fail(&inst, "must produce a scalar or a pointer");
        if (inst.int_attr() < 0 || inst.int_attr() >= ot[0].record_size()) fail(&inst, "offset outside the record");
        break;
      case Opcode::BarrierReduce:
        if (!ot[0].is_bool()) fail(&inst, "predicate must be i1");
        one(inst);
        break;
      case Opcode::Shuffle:
        if (one(inst) != ot[0] || ot[1] != Type::i32() || ot[2] != Type::u32()) fail(&inst, "must be (T, i32, u32) -> T");
        break;
      case Opcode::Vote:
      case Opcode::Match:
      case Opcode::Redux:
        if (ot[1] != Type::u32()) fail(&inst, "mask must be u32");
        one(inst);
        break;
      case Opcode::ActiveMask:
        if (one(inst) != Type::u32()) fail(&inst, "must produce u32");
        break;
      case Opcode::Call: {
        if (inst.attrs.size() != 1) fail(&inst, "needs the callee's name");
        const Function* callee = f_.callee(inst.string_attr());
        if (!callee) fail(&inst, "calls @" + inst.string_attr() + ", which is not among the callees");
        if (callee->params().size() != ot.size()) fail(&inst, "wrong number of arguments");
        for (std::size_t i = 0; i < ot.size(); ++i)
          if (ot[i] != callee->type_of(callee->params()[i])) fail(&inst, "argument type differs from the parameter");
        Type rt = callee->return_type();
        if (rt.is_void() ? !inst.results.empty() : (inst.results.size() != 1 || f_.type_of(inst.results[0]) != rt))
          fail(&inst, "result type differs from the callee's return type");
        break;
      }
      case Opcode::If: {
        if (!ot[0].is_bool()) fail(&inst, "condition must be i1, not " + ot[0].str());
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
        if (inst.regions.size() != 1 || ot.empty()) fail(&inst, "needs tiles and a combine region");
        std::vector<Type> elems;
        for (auto t : ot) elems.push_back(t.element());
        std::vector<Type> args = elems;
        args.insert(args.end(), elems.begin(), elems.end());
        enter_region(inst.regions[0], args, inst, "combine");
        expect_terminator(inst.regions[0], Opcode::Yield, elems, inst);
        break;
      }
      case Opcode::For: {
        if (ot.size() < 3) fail(&inst, "needs lower bound, upper bound and step");
        if (!ot[0].is_integer() || ot[1] != ot[0] || ot[2] != ot[0]) fail(&inst, "bounds and step must be one integer type");
        if (inst.regions.size() != 1) fail(&inst, "needs one region");
        std::vector<Type> carried(ot.begin() + 3, ot.end());
        if (types(f_, inst.results) != carried) fail(&inst, "results must match the carried values");
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
      default:
        fail(&inst, "has no type rule");
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
