// The opcode table, generated from ops.def.
#include "cutlet/ir/opcode.h"

#include <array>
#include <cstdint>

#include "cutlet/ir/ops.h"

namespace cutlet::ir {

namespace {

#define CUTLET_SPEC(e) CUTLET_SPEC_##e
#define CUTLET_SPEC_req(n) , OperandSpec{#n, Presence::Required}
#define CUTLET_SPEC_opt(n) , OperandSpec{#n, Presence::Optional}
#define CUTLET_SPEC_rest(n) , OperandSpec{#n, Presence::Rest}
#define CUTLET_SPEC_attr(n, T) , AttrSpec{#n, attr_kind_of<T>(), Presence::Required}
#define CUTLET_SPEC_opt_attr(n, T, d) , AttrSpec{#n, attr_kind_of<T>(), Presence::Optional}
#define CUTLET_SPEC_rest_attr(n, T) , AttrSpec{#n, attr_kind_of<T>(), Presence::Rest}

/// An op's operand or attribute specs (the macros above put a comma before each, after a
/// leading 0 that specs() drops), with the counts they allow.
template <class Spec, std::size_t N>
struct Specs {
  std::array<Spec, N> items;
  constexpr std::size_t min() const {
    std::size_t n = 0;
    for (const auto& s : items) n += s.presence == Presence::Required;
    return n;
  }
  constexpr std::size_t max() const {
    for (const auto& s : items)
      if (s.presence == Presence::Rest) return SIZE_MAX;
    return N;
  }
};
template <class Spec, class... S>
constexpr Specs<Spec, sizeof...(S)> specs(int, S... s) {
  return {{s...}};
}

#define OP(Name, mnem, traits, operand_class, operands, attributes, infer, fold) \
  constexpr auto Name##_operands = specs<OperandSpec>(0 CUTLET_OP_LIST(CUTLET_SPEC, operands)); \
  constexpr auto Name##_attributes = specs<AttrSpec>(0 CUTLET_OP_LIST(CUTLET_SPEC, attributes));
#include "cutlet/ir/ops.def"
#undef OP

constexpr OpInfo kOps[] = {
#define OP(Name, mnem, traits, operand_class, operands, attributes, infer, fold)                                   \
  {mnem,                     static_cast<std::uint32_t>(traits), OperandClass::operand_class, Name##_operands.items, \
   Name##_attributes.items,  Name##_operands.min(),              Name##_operands.max(),       Name##_attributes.min(), \
   Name##_attributes.max()},
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
  static const char* names[] = {"add", "sub", "min", "max", "and", "or", "xor", "exch", "cas", "load"};
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
