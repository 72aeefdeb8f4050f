// Typed views of instructions, generated from ops.def: ops::TileLoad(inst).mask() instead of
// inst.operands[2], ops::TileReduce(inst).axis() instead of inst.int_attr(1).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "cutlet/error.h"
#include "cutlet/ir/function.h"
#include "cutlet/ir/math.h"
#include "cutlet/ir/op_table_macros.h"

namespace cutlet::ir {

/// The AttrKind an attribute of C++ type T is stored as (see ops.def).
template <class T>
constexpr AttrKind attr_kind_of() {
  if constexpr (std::is_same_v<T, Attribute>) return AttrKind::Number;
  else if constexpr (std::is_same_v<T, double>) return AttrKind::Float;
  else if constexpr (std::is_same_v<T, Type>) return AttrKind::Type;
  else if constexpr (std::is_same_v<T, std::string>) return AttrKind::String;
  else {
    static_assert(std::is_integral_v<T> || std::is_enum_v<T>, "attributes are integers, enums, doubles, types or strings");
    return AttrKind::Int;
  }
}

namespace ops {

/// What every view has: the instruction it reads, which has the view's opcode.
class View {
 public:
  const Instruction& inst() const { return *inst_; }
  /// Result i (the only one, for most ops).
  ValueId result(std::size_t i = 0) const { return inst_->results.at(i); }
  Location loc() const { return inst_->loc; }

 protected:
  View(const Instruction& inst, Opcode op) : inst_(&inst) {
    if (inst.op != op)
      throw InternalError(std::string("a view of '") + mnemonic(op) + "' taken of a '" + mnemonic(inst.op) + "'");
  }
  ValueId operand(std::size_t i) const { return inst_->operands.at(i); }
  ValueId optional_operand(std::size_t i) const { return i < inst_->operands.size() ? inst_->operands[i] : kNone; }
  std::span<const ValueId> rest_operands(std::size_t from) const {
    return std::span<const ValueId>(inst_->operands).subspan(std::min(from, inst_->operands.size()));
  }
  template <class T>
  static T as(const Attribute& a) {
    if constexpr (std::is_same_v<T, Attribute>) return a;
    else if constexpr (std::is_same_v<T, double> || std::is_same_v<T, Type> || std::is_same_v<T, std::string>)
      return std::get<T>(a);
    else return static_cast<T>(std::get<std::int64_t>(a));
  }
  template <class T>
  T attr(std::size_t i) const { return as<T>(inst_->attrs.at(i)); }
  template <class T>
  T optional_attr(std::size_t i, T absent) const { return i < inst_->attrs.size() ? as<T>(inst_->attrs[i]) : absent; }
  template <class T>
  std::vector<T> rest_attrs(std::size_t from) const {
    std::vector<T> r;
    for (std::size_t i = from; i < inst_->attrs.size(); ++i) r.push_back(as<T>(inst_->attrs[i]));
    return r;
  }

 private:
  const Instruction* inst_;
};

#define CUTLET_VIEW_INDEX(e) CUTLET_VIEW_INDEX_##e
#define CUTLET_VIEW_INDEX_req(n) n##_operand,
#define CUTLET_VIEW_INDEX_opt(n) n##_operand,
#define CUTLET_VIEW_INDEX_rest(n) n##_operand,
#define CUTLET_VIEW_INDEX_attr(n, T) n##_attr,
#define CUTLET_VIEW_INDEX_opt_attr(n, T, d) n##_attr,
#define CUTLET_VIEW_INDEX_rest_attr(n, T) n##_attr,
#define CUTLET_VIEW_GET(e) CUTLET_VIEW_GET_##e
#define CUTLET_VIEW_GET_req(n) ValueId n() const { return operand(n##_operand); }
#define CUTLET_VIEW_GET_opt(n) ValueId n() const { return optional_operand(n##_operand); }
#define CUTLET_VIEW_GET_rest(n) std::span<const ValueId> n() const { return rest_operands(n##_operand); }
#define CUTLET_VIEW_GET_attr(n, T) T n() const { return attr<T>(n##_attr); }
#define CUTLET_VIEW_GET_opt_attr(n, T, d) T n() const { return optional_attr<T>(n##_attr, d); }
#define CUTLET_VIEW_GET_rest_attr(n, T) std::vector<T> n() const { return rest_attrs<T>(n##_attr); }
#define OP(Name, mnem, traits, operand_class, operands, attributes, infer, fold) \
  /** A view of a `mnem` instruction (ops.def): its operands and attributes by name. */ \
  class Name : public View { \
   public: \
    static constexpr Opcode opcode = Opcode::Name; \
    enum OperandIndex : std::size_t { CUTLET_OP_LIST(CUTLET_VIEW_INDEX, operands) }; \
    enum AttrIndex : std::size_t { CUTLET_OP_LIST(CUTLET_VIEW_INDEX, attributes) }; \
    explicit Name(const Instruction& inst) : View(inst, opcode) {} \
    CUTLET_OP_LIST(CUTLET_VIEW_GET, operands) \
    CUTLET_OP_LIST(CUTLET_VIEW_GET, attributes) \
  };
#include "cutlet/ir/ops.def"
#undef OP
#undef CUTLET_VIEW_INDEX
#undef CUTLET_VIEW_INDEX_req
#undef CUTLET_VIEW_INDEX_opt
#undef CUTLET_VIEW_INDEX_rest
#undef CUTLET_VIEW_INDEX_attr
#undef CUTLET_VIEW_INDEX_opt_attr
#undef CUTLET_VIEW_INDEX_rest_attr
#undef CUTLET_VIEW_GET
#undef CUTLET_VIEW_GET_req
#undef CUTLET_VIEW_GET_opt
#undef CUTLET_VIEW_GET_rest
#undef CUTLET_VIEW_GET_attr
#undef CUTLET_VIEW_GET_opt_attr
#undef CUTLET_VIEW_GET_rest_attr

/// The view V of `inst` when it is a V's op, otherwise nothing:
/// `if (auto load = ops::match<ops::TileLoad>(inst)) ... load->mask() ...`.
template <class V>
std::optional<V> match(const Instruction& inst) {
  if (inst.op != V::opcode) return std::nullopt;
  return V(inst);
}

}  // namespace ops
}  // namespace cutlet::ir
