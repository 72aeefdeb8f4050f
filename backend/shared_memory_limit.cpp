// Shared-memory limits of a lowered kernel, checked before linking.
#include "shared_memory_limit.h"

#include <algorithm>

#include <llvm/IR/GlobalVariable.h>

#include "cutlet/backend/compiler.h"
#include "cutlet/ir/ops.h"
#include "cutlet/ir/passes/passes.h"
#include "cutlet/ir/shared_memory.h"

namespace cutlet::backend {
namespace {

std::string where(const ir::Location& loc) {
  return loc.known() ? std::string(loc.file) + ":" + std::to_string(loc.line) : std::string("(unknown line)");
}

/// The user's shared_array ops of `fn` (its callees included), as message lines.
void list_shared_arrays(const ir::Function& fn, const ir::Region& r, std::string& out) {
  for (ir::InstId id : r.body) {
    const ir::Instruction& inst = fn.inst(id);
    if (inst.op == ir::Opcode::SharedAlloc) {
      ir::Type elem = fn.type_of(inst.results[0]).element();
      const std::int64_t count = ir::ops::SharedAlloc(inst).count();
      out += "\n  - " + std::to_string(count * ir::shared_element_bytes(elem)) + " bytes: shared_array<" + elem.str() +
             ">(" + std::to_string(count) + ") at " + where(inst.loc);
    }
    for (const ir::Region& sub : inst.regions) list_shared_arrays(fn, sub, out);
  }
}

}  // namespace

std::int64_t static_shared_bytes(const llvm::Module& m) {
  std::int64_t total = 0;
  for (const llvm::GlobalVariable& g : m.globals()) {
    if (g.getAddressSpace() != 3 || g.isDeclaration()) continue;
    const std::int64_t align = static_cast<std::int64_t>(g.getAlign().valueOrOne().value());
    total = (total + align - 1) / align * align + static_cast<std::int64_t>(m.getDataLayout().getTypeAllocSize(g.getValueType()));
  }
  return total;
}

void check_shared_memory(const ir::Function& fn, const llvm::Module& m, const Target& target) {
  const std::int64_t statics = static_shared_bytes(m);
  const std::string kernel = "cutlet: kernel '" + fn.name() + "' ";
  if (statics > Target::max_static_shared) {
    std::string arrays;
    list_shared_arrays(fn, fn.body(), arrays);
    for (const auto& callee : fn.callees()) list_shared_arrays(*callee, callee->body(), arrays);
    throw CompileError(kernel + "declares " + std::to_string(statics) + " bytes of static shared memory, more than the " +
                       std::to_string(Target::max_static_shared) + " a kernel may declare statically:" + arrays +
                       "\nUse smaller shared_arrays, or dynamic_shared<T>() sized by LaunchConfig::shared_bytes (up to " +
                       std::to_string(target.max_shared_per_block()) + " bytes per block on " + target.arch() + ").");
  }
  const std::int64_t arena = std::max<std::int64_t>(fn.shared_bytes(), 0);
  const std::int64_t total = statics + (arena + 15) / 16 * 16;
  if (total <= target.max_shared_per_block()) return;
  std::string msg = kernel + "needs " + std::to_string(total) + " bytes of shared memory per block (" +
                    std::to_string(arena) + " for its tiles at their peak" +
                    (statics ? " + " + std::to_string(statics) + " of shared_arrays" : std::string()) + "), more than the " +
                    std::to_string(target.max_shared_per_block()) + " a block can have on " + target.arch() +
                    ". Live at the peak:";
  bool rings = false;
  for (const ir::SharedPeakBuffer& b : fn.shared_peak()) {
    msg += "\n  - " + std::to_string(b.buffer.bytes) + " bytes: " + b.buffer.what + " for the " + std::string(ir::mnemonic(b.op)) +
           " at " + where(b.loc);
    rings = rings || b.buffer.what.find("stage ring") != std::string::npos;
  }
  msg += "\nUse smaller tiles in the ops named (BLOCK_M, BLOCK_N, BLOCK_K)";
  if (rings) msg += ", or fewer pipeline stages (KernelOptions::tile_stages, now " + std::to_string(ir::pipeline_stages(fn)) + ")";
  throw CompileError(msg + ".");
}

}  // namespace cutlet::backend
