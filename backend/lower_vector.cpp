// Lowering of per-thread vector lane operations (extract, insert, splat).
#include "lowering.h"

namespace cutlet::backend {
namespace {
using ir::Opcode;

llvm::Value* lower_extract(LoweringContext& c, const ir::Instruction& inst) {
  const ir::ops::Extract extract(inst);
  return c.b.CreateExtractElement(c.get(extract.vector()), static_cast<std::uint64_t>(extract.lane()));
}

llvm::Value* lower_insert(LoweringContext& c, const ir::Instruction& inst) {
  const ir::ops::Insert insert(inst);
  return c.b.CreateInsertElement(c.get(insert.vector()), c.get(insert.value()), static_cast<std::uint64_t>(insert.lane()));
}

llvm::Value* lower_splat(LoweringContext& c, const ir::Instruction& inst) {
  return c.b.CreateVectorSplat(static_cast<unsigned>(c.fn.type_of(inst.results[0]).lanes()), c.get(ir::ops::Splat(inst).value()));
}

}  // namespace

void register_vector(LoweringTable& t) {
  t.set(Opcode::Extract, lower_extract);
  t.set(Opcode::Insert, lower_insert);
  t.set(Opcode::Splat, lower_splat);
}

}  // namespace cutlet::backend
