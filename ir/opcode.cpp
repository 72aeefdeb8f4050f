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
                                "ctaid.x", "ctaid.y", "ctaid.z", "nctaid.x", "nctaid.y", "nctaid.z", "laneid"};
  return names[static_cast<int>(r)];
}

const char* atomic_kind_name(AtomicKind k) {
  static const char* names[] = {"add", "sub", "min", "max", "and", "or", "xor", "exch", "cas"};
  return names[static_cast<int>(k)];
}
const char* memory_scope_name(MemoryScope s) {
  static const char* names[] = {"block", "device", "system"};
  return names[static_cast<int>(s)];
}
const char* memory_order_name(MemoryOrder o) {
  static const char* names[] = {"relaxed", "acquire", "release", "acq_rel"};
  return names[static_cast<int>(o)];
}
const char* cache_hint_name(CacheHint h) {
  static const char* names[] = {"default", "readonly", "streaming", "lastuse", "cacheglobal"};
  return names[static_cast<int>(h)];
}

}  // namespace cutlet::ir
