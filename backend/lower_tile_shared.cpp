// Lowering of the ops of tiles in shared memory (the pipeline-loops pass makes them): a tile
// in a shared layout is lowered to its buffer's address; tile.local_alloc's buffer is where
// allocate-shared placed it, until its tile.local_dealloc; tile.local_slice is an address within
// it; tile.local_load reads a tile into registers (a dot's fragments with ldmatrix, other
// layouts element by element); tile.async_copy has each thread copy
// its 4- to 16-byte pieces of a tile from global memory straight into a stage with cp.async,
// at the element's place in the stage's padded rows (or its swizzled place, for wgmma).
#include <llvm/IR/InlineAsm.h>
#include <llvm/IR/IntrinsicsNVPTX.h>

#include "cutlet/error.h"
#include "cutlet/ir/shared_memory.h"
#include "tile_support.h"

namespace cutlet::backend {
namespace {

const ir::Layout& shared_layout_of(LoweringContext& c, ir::ValueId v) { return *c.fn.type_of(v).layout(); }

std::int64_t element_bytes(LoweringContext& c, ir::ValueId v) { return ir::shared_element_bytes(c.fn.type_of(v).element()); }

llvm::Value* lower_local_alloc(LoweringContext& c, const ir::Instruction& inst) {
  const ir::ValueId r = inst.results[0];
  const std::int64_t bytes = (shared_layout_of(c, r).shared_elements() * element_bytes(c, r) + 127) / 128 * 128;
  const std::int64_t at = take_shared(c, bytes);
  return c.b.CreateInBoundsGEP(c.b.getInt8Ty(), dynamic_shared_base(c), c.b.getInt32(static_cast<std::uint32_t>(at)));
}

/// The buffer's bytes are free for later ops from here on (allocate-shared placed them so).
llvm::Value* lower_local_dealloc(LoweringContext&, const ir::Instruction&) { return nullptr; }

llvm::Value* lower_local_index(LoweringContext& c, const ir::Instruction& inst) {
  auto& b = c.b;
  const ir::ops::TileLocalIndex index(inst);
  const ir::Layout& ring = shared_layout_of(c, index.ring());
  const auto pitch = static_cast<std::uint32_t>(ring.strides[0] * element_bytes(c, index.ring()));
  return b.CreateInBoundsGEP(b.getInt8Ty(), c.get(index.ring()), b.CreateMul(c.get(index.stage()), b.getInt32(pitch)));
}

llvm::Value* lower_local_slice(LoweringContext& c, const ir::Instruction& inst) {
  auto& b = c.b;
  const ir::ops::TileLocalSlice slice(inst);
  const ir::Layout& l = shared_layout_of(c, slice.source());
  const std::vector<std::int64_t> offsets = slice.offsets();
  CUTLET_ASSERT(!l.swizzle, "tile.local_slice of a swizzled tile");
  std::int64_t at = 0;
  for (std::size_t d = 0; d < l.strides.size(); ++d) at += offsets[d] * l.strides[d];
  return b.CreateInBoundsGEP(b.getInt8Ty(), c.get(slice.source()),
                             b.getInt32(static_cast<std::uint32_t>(at * element_bytes(c, slice.source()))));
}

llvm::Value* lower_local_load(LoweringContext& c, const ir::Instruction& inst) {
  auto& b = c.b;
  const ir::ValueId r = inst.results[0];
  const ir::ValueId source = ir::ops::TileLocalLoad(inst).source();
  const ir::Layout& from = shared_layout_of(c, source);
  const ir::Type et = c.fn.type_of(r).element();
  const TileLayout& l = result_layout(c, r);
  std::vector<llvm::Value*> regs;
  if (l.is_dot_operand()) {
    CUTLET_ASSERT(from.rank() == 2 && from.strides[1] == 1, "dot fragments are read from rows");
    regs = load_dot_fragments(c, l, et, c.get(source), from.strides[0]);
  } else {
    // Element by element at its place in the buffer.
    llvm::Type* lt = llvm_type(c.ctx, et);
    auto tc = thread_coords(c, l);
    for (int k = 0; k < l.num_regs(); ++k) {
      auto xy = element_coords(b, l, tc, k);
      if (from.swizzle) {
        llvm::Value* at = shared_tile_offset(c, from, xy, et.bits() / 8);
        regs.push_back(b.CreateLoad(lt, b.CreateInBoundsGEP(b.getInt8Ty(), c.get(source), at)));
        continue;
      }
      llvm::Value* at = b.getInt32(0);
      for (std::size_t d = 0; d < xy.size(); ++d)
        at = b.CreateAdd(at, b.CreateMul(xy[d], b.getInt32(static_cast<std::uint32_t>(from.strides[d]))));
      regs.push_back(b.CreateLoad(lt, b.CreateInBoundsGEP(lt, c.get(source), at)));
    }
  }
  return pack(c, llvm_type(c.ctx, et), regs);
}

llvm::Value* lower_local_store(LoweringContext& c, const ir::Instruction& inst) {
  const ir::ops::TileLocalStore store(inst);
  const ir::Layout& l = shared_layout_of(c, store.buffer());
  CUTLET_ASSERT(l.rank() == 2 && l.strides[1] == 1, "tile.local_store writes rows");
  store_tile(c, store.value(), c.get(store.buffer()), l);
  // A swizzled tile is read by the asynchronous proxy (wgmma), after the barrier that follows.
  if (l.swizzle) fence_proxy_async(c);
  return nullptr;
}

llvm::Value* lower_async_copy(LoweringContext& c, const ir::Instruction& inst) {
  auto& b = c.b;
  const ir::ops::TileAsyncCopy copy(inst);
  const ir::ValueId stage = copy.stage(), ptr = copy.ptr(), offsets = copy.offsets(), mask = copy.mask();
  const ir::Layout& sl = shared_layout_of(c, stage);
  CUTLET_ASSERT(sl.rank() == 2 && sl.strides[1] == 1, "tile.async_copy fills rows");
  const ir::Type et = c.fn.type_of(ptr).element();
  llvm::Type* lt = llvm_type(c.ctx, et);
  const TileLayout& l = layout_of(c, offsets);
  const int width = static_cast<int>(copy.width());
  auto offs = unpack(c, c.get(offsets));
  std::vector<llvm::Value*> preds;
  if (mask != ir::kNone) preds = unpack(c, c.get(mask));
  const int size = width * et.bits() / 8;
  // .cg (L2 only) for whole 16-byte pieces, .ca otherwise; the last operand is the bytes to
  // read, the rest of the piece being zero-filled. The destination is a 32-bit shared-window
  // address (fewer registers than a generic pointer).
  const std::string text = std::string("cp.async.") + (size == 16 ? "cg" : "ca") + ".shared.global [$0], [$1], " +
                           std::to_string(size) + ", $2;";
  auto* fty = llvm::FunctionType::get(b.getVoidTy(), {b.getInt32Ty(), b.getPtrTy(1), b.getInt32Ty()}, false);
  auto* cp_async = llvm::InlineAsm::get(fty, text, "r,l,r,~{memory}", /*hasSideEffects=*/true);
  llvm::Value* stage32 = shared_address(c, c.get(stage));
  const auto bytes_per = static_cast<std::uint32_t>(et.bits() / 8);
  llvm::Value* valid = c.get(copy.valid());
  auto tc = thread_coords(c, l);
  for (int r = 0; r < l.num_regs(); ++r) {
    if (l.reg_indices(r)[1] % width != 0) continue;  // covered by its group's piece
    llvm::Value* src = b.CreateInBoundsGEP(lt, c.get(ptr), b.CreateSExt(offs[r], b.getInt64Ty()));
    src = b.CreateAddrSpaceCast(src, b.getPtrTy(1));
    llvm::Value* dst = b.CreateAdd(stage32, shared_tile_offset(c, sl, element_coords(b, l, tc, r), static_cast<int>(bytes_per)));
    llvm::Value* on = mask == ir::kNone ? valid : b.CreateAnd(valid, preds[r]);
    llvm::Value* n = b.CreateSelect(on, b.getInt32(static_cast<std::uint32_t>(size)), b.getInt32(0));
    // A piece held by several threads is copied by its first holder only (a zero-byte copy
    // still writes the piece, so the others must not issue one).
    write_first_copy(c, l, tc, r, [&] { b.CreateCall(cp_async, {dst, src, n}); });
  }
  return nullptr;
}

llvm::Value* lower_async_commit(LoweringContext& c, const ir::Instruction&) {
  c.b.CreateIntrinsic(llvm::Intrinsic::nvvm_cp_async_commit_group, {}, {});
  return nullptr;
}

llvm::Value* lower_async_wait(LoweringContext& c, const ir::Instruction& inst) {
  c.b.CreateIntrinsic(llvm::Intrinsic::nvvm_cp_async_wait_group, {},
                      {c.b.getInt32(static_cast<std::uint32_t>(ir::ops::TileAsyncWait(inst).pending()))});
  // The copies that landed may be read by wgmma (the asynchronous proxy) after the barrier
  // that follows the wait.
  if (c.fn.tile_wgmma()) fence_proxy_async(c);
  return nullptr;
}

}  // namespace

void register_tile_shared(LoweringTable& t) {
  t.set(ir::Opcode::TileLocalAlloc, lower_local_alloc);
  t.set(ir::Opcode::TileLocalDealloc, lower_local_dealloc);
  t.set(ir::Opcode::TileLocalIndex, lower_local_index);
  t.set(ir::Opcode::TileLocalSlice, lower_local_slice);
  t.set(ir::Opcode::TileLocalLoad, lower_local_load);
  t.set(ir::Opcode::TileLocalStore, lower_local_store);
  t.set(ir::Opcode::TileAsyncCopy, lower_async_copy);
  t.set(ir::Opcode::TileAsyncCommit, lower_async_commit);
  t.set(ir::Opcode::TileAsyncWait, lower_async_wait);
}

}  // namespace cutlet::backend
