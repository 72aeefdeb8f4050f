// Function storage: appending instructions and values.
#include "cutlet/ir/function.h"

namespace cutlet::ir {

InstId Function::add_inst(Instruction inst) {
  insts_.push_back(std::move(inst));
  return static_cast<InstId>(insts_.size() - 1);
}

ValueId Function::add_value(Type t, InstId def, std::uint32_t index) {
  values_.push_back(ValueInfo{t, def, index});
  return static_cast<ValueId>(values_.size() - 1);
}

namespace {
const Instruction* find_in(const Function& f, const Region& r, Opcode op) {
  for (InstId id : r.body) {
    const Instruction& inst = f.inst(id);
    if (inst.op == op) return &inst;
    for (const Region& sub : inst.regions)
      if (const Instruction* hit = find_in(f, sub, op)) return hit;
  }
  return nullptr;
}
}  // namespace

const Instruction* find_instruction(const Function& f, Opcode op) {
  if (const Instruction* hit = find_in(f, f.body(), op)) return hit;
  for (const auto& callee : f.callees())
    if (const Instruction* hit = find_instruction(*callee, op)) return hit;
  return nullptr;
}

bool is_symbol_name(std::string_view name) noexcept {
  auto start = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$'; };
  if (name.empty() || name.size() > 1024 || !start(name[0])) return false;
  for (char c : name)
    if (!start(c) && !(c >= '0' && c <= '9')) return false;
  return true;
}

}  // namespace cutlet::ir
