// The rules of calls of device functions and of the diagnostics (printf, assert).
#include "rules.h"

namespace cutlet::ir {

std::vector<Type> infer_call(const OpTypes& t) {
  const std::string& name = std::get<std::string>(t.attrs[0]);
  const Function* callee = t.function ? t.function->callee(name) : nullptr;
  if (!callee) t.fail("calls @" + name + ", which is not among the callees");
  auto params = callee->params();
  if (params.size() != t.operands.size())
    t.fail("device function @" + name + " takes " + std::to_string(params.size()) + " arguments, not " +
           std::to_string(t.operands.size()));
  for (std::size_t i = 0; i < params.size(); ++i)
    if (t.operands[i] != callee->type_of(params[i]))
      t.fail("argument " + std::to_string(i + 1) + " of device function @" + name + " is " + t.operands[i].str() +
             ", the parameter " + callee->type_of(params[i]).str());
  Type rt = callee->return_type();
  if (rt.is_void()) return {};
  return {rt};
}

std::vector<Type> infer_print(const OpTypes& t) {
  for (Type a : t.operands)
    if (!a.is_scalar() && !a.is_pointer()) t.fail("printf arguments are scalars or pointers, not " + a.str());
  return {};
}

std::vector<Type> infer_assert(const OpTypes& t) {
  if (!t.operands[0].is_bool()) t.fail("assert takes an i1 condition, not " + t.operands[0].str());
  return {};
}

}  // namespace cutlet::ir
