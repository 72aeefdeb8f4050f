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

}  // namespace cutlet::ir
