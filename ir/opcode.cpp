// The opcode table, generated from ops.def.
#include "cutlet/ir/opcode.h"

namespace cutlet::ir {

namespace {
constexpr OpInfo kOps[] = {
#define OP(name, mnem, arity, rule, operands, traits) \
  {mnem, arity, TypeRule::rule, OperandClass::operands, static_cast<std::uint32_t>(traits)},
#include "cutlet/ir/ops.def"
#undef OP
};
}  // namespace

const OpInfo& op_info(Opcode op) { return kOps[static_cast<int>(op)]; }

const char* predicate_name(Predicate p) {
  static const char* names[] = {"eq", "ne", "lt", "le", "gt", "ge"};
  return names[static_cast<int>(p)];
}

const char* special_reg_name(SpecialReg r) {
  static const char* names[] = {"tid.x",   "tid.y",   "tid.z",   "ntid.x",   "ntid.y",   "ntid.z",
                                "ctaid.x", "ctaid.y", "ctaid.z", "nctaid.x", "nctaid.y", "nctaid.z"};
  return names[static_cast<int>(r)];
}

}  // namespace cutlet::ir
