// The rules of structured control flow: if, for, while and the terminators. What their
// regions take and yield is checked by the verifier (verifier.cpp) and made by the builder.
#include "rules.h"

namespace cutlet::ir {

std::vector<Type> infer_if(const OpTypes& t) {
  if (!t.operands[0].is_bool()) t.fail("if needs an i1 condition, got " + t.operands[0].str());
  return {t.given.begin(), t.given.end()};
}

std::vector<Type> infer_for(const OpTypes& t) {
  Type lb = t.operands[0], ub = t.operands[1], step = t.operands[2];
  if (!lb.is_integer() || ub != lb || step != lb)
    t.fail("for needs bounds and step of one integer type, got " + lb.str() + ", " + ub.str() + ", " + step.str());
  return {t.operands.begin() + 3, t.operands.end()};  // the carried values
}

std::vector<Type> infer_while(const OpTypes& t) { return {t.given.begin(), t.given.end()}; }

std::vector<Type> infer_condition(const OpTypes& t) {
  if (!t.operands[0].is_bool()) t.fail("a while condition must produce an i1 first, not " + t.operands[0].str());
  return {};
}

}  // namespace cutlet::ir
