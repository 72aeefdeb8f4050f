// Lowering of a pipelined loop's cp.async copies (tile_pipeline.h): each thread copies its
// 4- to 16-byte pieces of the tile from global memory straight into the stage buffer, at the
// element's row-major place in the padded rows the dot reads.
#include <llvm/IR/InlineAsm.h>
#include <llvm/IR/IntrinsicsNVPTX.h>

#include "tile_support.h"

namespace cutlet::backend {

void issue_async_copy(LoweringContext& c, const AsyncCopy& copy, llvm::Value* stage, llvm::Value* valid) {
  auto& b = c.b;
  const ir::Instruction& load = c.fn.inst(copy.load);
  const ir::ValueId ptr = load.operands[0], offsets = load.operands[1];
  const ir::ValueId mask = load.operands.size() > 2 ? load.operands[2] : ir::kNone;
  ir::Type et = c.fn.type_of(ptr).element();
  llvm::Type* lt = llvm_type(c.ctx, et);
  const TileLayout& l = copy.layout;
  auto offs = unpack(c, tile_in_layout(c, offsets, l));
  std::vector<llvm::Value*> preds;
  if (mask != ir::kNone) preds = unpack(c, tile_in_layout(c, mask, l));
  const int size = copy.width * et.bits() / 8;
  // .cg (L2 only) for whole 16-byte pieces, .ca otherwise; the last operand is the bytes to
  // read, the rest of the piece being zero-filled. The destination is a 32-bit shared-window
  // address (fewer registers than a generic pointer).
  const std::string text = std::string("cp.async.") + (size == 16 ? "cg" : "ca") + ".shared.global [$0], [$1], " +
                           std::to_string(size) + ", $2;";
  auto* fty = llvm::FunctionType::get(b.getVoidTy(), {b.getInt32Ty(), b.getPtrTy(1), b.getInt32Ty()}, false);
  auto* cp_async = llvm::InlineAsm::get(fty, text, "r,l,r,~{memory}", /*hasSideEffects=*/true);
  llvm::Value* stage32 = shared_address(c, stage);
  const std::uint32_t bytes_per = static_cast<std::uint32_t>(et.bits() / 8);
  auto tc = thread_coords(b, l);
  for (int r = 0; r < l.num_regs(); ++r) {
    if (l.reg_indices(r)[1] % copy.width != 0) continue;  // covered by its group's piece
    llvm::Value* src = b.CreateInBoundsGEP(lt, c.get(ptr), b.CreateSExt(offs[r], b.getInt64Ty()));
    src = b.CreateAddrSpaceCast(src, b.getPtrTy(1));
    auto xy = element_coords(b, l, tc, r);
    llvm::Value* at = b.CreateAdd(b.CreateMul(xy[0], b.getInt32(static_cast<std::uint32_t>(copy.stride))), xy[1]);
    llvm::Value* dst = b.CreateAdd(stage32, b.CreateMul(at, b.getInt32(bytes_per)));
    llvm::Value* on = mask == ir::kNone ? valid : b.CreateAnd(valid, preds[r]);
    llvm::Value* bytes = b.CreateSelect(on, b.getInt32(static_cast<std::uint32_t>(size)), b.getInt32(0));
    b.CreateCall(cp_async, {dst, src, bytes});
  }
}

void async_commit(LoweringContext& c) { c.b.CreateIntrinsic(llvm::Intrinsic::nvvm_cp_async_commit_group, {}, {}); }

void async_wait(LoweringContext& c, int pending) {
  c.b.CreateIntrinsic(llvm::Intrinsic::nvvm_cp_async_wait_group, {}, {c.b.getInt32(static_cast<std::uint32_t>(pending))});
}

}  // namespace cutlet::backend
