// Lowering of tile.dot: acc + a @ b. On tensor cores (mma.sync m16n8k16 for f16/bf16,
// m16n8k8 for tf32) the accumulator lives in the mma layout, which is a blocked layout
// (1x2 elements per thread, 8x4 lanes, warps over both dimensions); a and b go through shared
// memory (row-major, rows padded against bank conflicts: written from registers, or copied
// there by a pipelined loop's cp.async) and each warp reads its fragments from there with
// ldmatrix. Inputs without tensor-core support (exact f32) use FMA from shared memory.
#include <llvm/IR/InlineAsm.h>
#include <llvm/IR/IntrinsicsNVPTX.h>

#include "cutlet/error.h"
#include "tile_layout_plan.h"
#include "tile_pipeline.h"
#include "tile_support.h"

namespace cutlet::backend {
namespace {

/// Writes the registers of tile value v to `buf` as [rows][stride].
void store_tile(LoweringContext& c, ir::ValueId v, llvm::Value* buf, llvm::Type* elem, std::int64_t stride) {
  auto& b = c.b;
  const TileLayout& l = layout_of(c, v);
  auto regs = unpack(c, c.get(v));
  auto tc = thread_coords(b, l);
  for (int r = 0; r < l.num_regs(); ++r) {
    auto xy = element_coords(b, l, tc, r);
    llvm::Value* at = b.CreateAdd(b.CreateMul(xy[0], b.getInt32(static_cast<std::uint32_t>(stride))), xy[1]);
    b.CreateStore(regs[r], b.CreateInBoundsGEP(elem, buf, at));
  }
}

/// A dot operand in shared memory: row-major rows of `stride` elements from `base`.
struct SharedOperand {
  llvm::Value* base;
  std::int64_t stride;
};

llvm::Value* lower_dot_mma(LoweringContext& c, const ir::Instruction& inst, const TileLayout& mma) {
  auto& b = c.b;
  ir::Type ta = c.fn.type_of(inst.operands[0]);
  const std::int64_t M = ta.shape()[0], K = ta.shape()[1], N = c.fn.type_of(inst.operands[1]).shape()[1];
  const ir::Type et = ta.element();
  const bool tf32 = et == ir::Type::f32();
  llvm::Type* elem = llvm_type(c.ctx, et);
  // Each operand comes from its stage buffer when a pipelined loop copied it to shared memory
  // (tile_pipeline.h), else from registers written to a buffer of its own.
  SharedOperand ops[2];
  bool from_registers = false;
  for (int k = 0; k < 2; ++k) {
    auto it = c.shared_tiles.find(inst.operands[k]);
    if (it != c.shared_tiles.end()) {
      ops[k] = {it->second.base, it->second.stride};
      continue;
    }
    const std::int64_t cols = k == 0 ? K : N;
    const std::int64_t stride = dot_operand_stride(k, cols, et);
    ops[k] = {shared_buffer(c, elem, (k == 0 ? M : K) * stride), stride};
    from_registers = true;
  }
  if (from_registers) {
    barrier(c);  // earlier readers of these buffers (in a loop) are done
    for (int k = 0; k < 2; ++k)
      if (!c.shared_tiles.count(inst.operands[k])) store_tile(c, inst.operands[k], ops[k].base, elem, ops[k].stride);
    barrier(c);
  }
  llvm::Value* as = ops[0].base;
  llvm::Value* bs = ops[1].base;
  const std::int64_t stride = ops[0].stride, bstride = ops[1].stride;
  llvm::Value* as32 = shared_address(c, as);
  llvm::Value* bs32 = shared_address(c, bs);

  const int wm = mma.wpc[0], wn = mma.wpc[1];
  auto acc = unpack(c, tile_in_layout(c, inst.operands[2], mma));

  llvm::Value* tid = b.CreateIntrinsic(llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x, {}, {});
  llvm::Value* lane = b.CreateAnd(tid, 31);
  llvm::Value* warp = b.CreateLShr(tid, 5);
  llvm::Value* g = b.CreateLShr(lane, 2);
  llvm::Value* q = b.CreateAnd(lane, 3);
  llvm::Value* warp_n = b.CreateAnd(warp, wn - 1);
  llvm::Value* warp_m = b.CreateAnd(b.CreateLShr(warp, __builtin_ctz(static_cast<unsigned>(wn))), wm - 1);
  const std::int64_t tiles_m = M / (16 * wm), tiles_n = N / (8 * wn);
  const int regs_n = static_cast<int>(tiles_n * 2);
  auto* i32 = b.getInt32Ty();
  // Row h*8 + g of m-tile mi of this warp, and column g of n-tile ni (see the layout above).
  auto row = [&](std::int64_t mi, int h) {
    return b.CreateAdd(b.CreateAdd(b.getInt32(static_cast<std::uint32_t>((2 * mi + h) * 8 * wm)), b.CreateMul(warp_m, b.getInt32(8))), g);
  };
  auto col = [&](std::int64_t ni) {
    return b.CreateAdd(b.CreateAdd(b.getInt32(static_cast<std::uint32_t>(ni * 8 * wn)), b.CreateMul(warp_n, b.getInt32(8))), g);
  };
  // One 32-bit word at (r, k) of a padded row-major buffer: two 16-bit elements, or one tf32
  // (converted).
  auto word = [&](llvm::Value* buf, std::int64_t buf_stride, llvm::Value* r, llvm::Value* k) -> llvm::Value* {
    llvm::Value* at = b.CreateAdd(b.CreateMul(r, b.getInt32(static_cast<std::uint32_t>(buf_stride))), k);
    llvm::Value* p = b.CreateInBoundsGEP(elem, buf, at);
    if (!tf32) return b.CreateAlignedLoad(i32, p, llvm::Align(4));
    llvm::Value* f = b.CreateAlignedLoad(b.getFloatTy(), p, llvm::Align(4));
    auto* fty = llvm::FunctionType::get(i32, {b.getFloatTy()}, false);
    return b.CreateCall(llvm::InlineAsm::get(fty, "cvt.rna.tf32.f32 $0, $1;", "=r,f", false), {f});
  };
  const std::int64_t kstep = tf32 ? 8 : 16;
  const std::string shape = tf32 ? "m16n8k8" : "m16n8k16";
  const std::string types = tf32 ? "f32.tf32.tf32.f32" : et == ir::Type::bf16() ? "f32.bf16.bf16.f32" : "f32.f16.f16.f32";
  const int a_words = 4, b_words = 2;  // 32-bit fragment registers of a and b, both shapes
  std::string text = "mma.sync.aligned." + shape + ".row.col." + types + " {$0, $1, $2, $3}, {$4, $5, $6, $7}, {$8, $9}, {$10, $11, $12, $13};";
  std::string cons = "=f,=f,=f,=f,r,r,r,r,r,r,f,f,f,f";
  std::vector<llvm::Type*> arg_types(a_words + b_words, i32);
  for (int i = 0; i < 4; ++i) arg_types.push_back(b.getFloatTy());
  llvm::Type* f4 = llvm::StructType::get(c.ctx, {b.getFloatTy(), b.getFloatTy(), b.getFloatTy(), b.getFloatTy()});
  auto* mma_fn = llvm::InlineAsm::get(llvm::FunctionType::get(f4, arg_types, false), text, cons, false);

  for (std::int64_t kk = 0; kk < K; kk += kstep) {
    // k offsets of the fragment words: 16-bit types pack (2q, 2q+1) and (2q+8, 2q+9); tf32 uses q and q+4.
    llvm::Value* k0 = tf32 ? b.CreateAdd(b.getInt32(static_cast<std::uint32_t>(kk)), q)
                           : b.CreateAdd(b.getInt32(static_cast<std::uint32_t>(kk)), b.CreateMul(q, b.getInt32(2)));
    llvm::Value* k1 = b.CreateAdd(k0, b.getInt32(tf32 ? 4 : 8));
    std::vector<std::array<llvm::Value*, 4>> afrag(tiles_m);
    std::vector<std::array<llvm::Value*, 2>> bfrag(tiles_n);
    if (tf32) {
      for (std::int64_t mi = 0; mi < tiles_m; ++mi) {
        llvm::Value* r0 = row(mi, 0);
        llvm::Value* r1 = row(mi, 1);
        afrag[mi] = {word(as, stride, r0, k0), word(as, stride, r1, k0), word(as, stride, r0, k1), word(as, stride, r1, k1)};
      }
      for (std::int64_t ni = 0; ni < tiles_n; ++ni) {
        llvm::Value* cn = col(ni);
        bfrag[ni] = {word(bs, bstride, k0, cn), word(bs, bstride, k1, cn)};
      }
    } else {
      // ldmatrix: lane t gives the address of one 16-byte row of one of the 8 x 8 matrices;
      // x4 on A yields a0..a3 of an m16k16 fragment, x4.trans on row-major B yields the b0, b1
      // of two n8k16 fragments.
      llvm::Value* t8 = b.CreateAnd(lane, 7);
      llvm::Value* hsel = b.CreateAnd(b.CreateLShr(lane, 3), 1);   // matrix 1 and 3: rows + 8
      llvm::Value* ksel = b.CreateLShr(lane, 4);                     // matrix 2 and 3: k + 8
      // Addresses are 32-bit shared-window offsets (fewer registers than generic pointers);
      // within a k-step they differ by constants, which fold into the instructions.
      auto* v4 = llvm::StructType::get(c.ctx, {i32, i32, i32, i32});
      auto* x4 = llvm::InlineAsm::get(llvm::FunctionType::get(v4, {i32}, false),
                                      "ldmatrix.sync.aligned.m8n8.x4.shared.b16 {$0, $1, $2, $3}, [$4];", "=r,=r,=r,=r,r", true);
      auto* x4t = llvm::InlineAsm::get(llvm::FunctionType::get(v4, {i32}, false),
                                       "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {$0, $1, $2, $3}, [$4];", "=r,=r,=r,=r,r", true);
      const std::uint32_t eb = static_cast<std::uint32_t>(et.bits() / 8);
      auto address = [&](llvm::Value* base32, llvm::Value* at) { return b.CreateAdd(base32, b.CreateMul(at, b.getInt32(eb))); };
      for (std::int64_t mi = 0; mi < tiles_m; ++mi) {
        // Row g + 8h of m-tile mi: rows (2mi + h) * 8 * wm + warp_m * 8 + g.
        llvm::Value* r = b.CreateAdd(b.CreateAdd(b.CreateMul(b.CreateAdd(b.getInt32(static_cast<std::uint32_t>(2 * mi)), hsel),
                                                             b.getInt32(static_cast<std::uint32_t>(8 * wm))),
                                                 b.CreateMul(warp_m, b.getInt32(8))),
                                     t8);
        llvm::Value* k = b.CreateAdd(b.getInt32(static_cast<std::uint32_t>(kk)), b.CreateMul(ksel, b.getInt32(8)));
        llvm::Value* at = b.CreateAdd(b.CreateMul(r, b.getInt32(static_cast<std::uint32_t>(stride))), k);
        llvm::Value* f = b.CreateCall(x4, {address(as32, at)});
        for (unsigned i = 0; i < 4; ++i) afrag[mi][i] = b.CreateExtractValue(f, i);
      }
      for (std::int64_t ni = 0; ni < tiles_n; ni += 2) {
        // Matrices 0, 1: k rows kk..kk+15 of n-tile ni; 2, 3: of n-tile ni + 1 (if any).
        llvm::Value* k = b.CreateAdd(b.getInt32(static_cast<std::uint32_t>(kk)), b.CreateAdd(t8, b.CreateMul(hsel, b.getInt32(8))));
        llvm::Value* tile = b.CreateAdd(b.getInt32(static_cast<std::uint32_t>(ni)), ni + 1 < tiles_n ? ksel : b.getInt32(0));
        llvm::Value* n = b.CreateAdd(b.CreateMul(tile, b.getInt32(static_cast<std::uint32_t>(8 * wn))), b.CreateMul(warp_n, b.getInt32(8)));
        llvm::Value* at = b.CreateAdd(b.CreateMul(k, b.getInt32(static_cast<std::uint32_t>(bstride))), n);
        llvm::Value* f = b.CreateCall(x4t, {address(bs32, at)});
        bfrag[ni] = {b.CreateExtractValue(f, 0), b.CreateExtractValue(f, 1)};
        if (ni + 1 < tiles_n) bfrag[ni + 1] = {b.CreateExtractValue(f, 2), b.CreateExtractValue(f, 3)};
      }
    }
    for (std::int64_t mi = 0; mi < tiles_m; ++mi)
      for (std::int64_t ni = 0; ni < tiles_n; ++ni) {
        const int r0 = static_cast<int>(2 * mi) * regs_n + static_cast<int>(2 * ni);
        const int r1 = static_cast<int>(2 * mi + 1) * regs_n + static_cast<int>(2 * ni);
        std::vector<llvm::Value*> args{afrag[mi][0], afrag[mi][1], afrag[mi][2], afrag[mi][3], bfrag[ni][0], bfrag[ni][1],
                                       acc[r0],      acc[r0 + 1],  acc[r1],      acc[r1 + 1]};
        llvm::Value* d = b.CreateCall(mma_fn, args);
        acc[r0] = b.CreateExtractValue(d, 0);
        acc[r0 + 1] = b.CreateExtractValue(d, 1);
        acc[r1] = b.CreateExtractValue(d, 2);
        acc[r1 + 1] = b.CreateExtractValue(d, 3);
      }
  }
  c.layouts[inst.results[0]] = mma;
  return pack(c, b.getFloatTy(), acc);
}

/// Exact f32 (or any shape the mma layout does not fit): each accumulator register sums its
/// row of a times its column of b, read from shared memory.
llvm::Value* lower_dot_fma(LoweringContext& c, const ir::Instruction& inst) {
  auto& b = c.b;
  ir::Type ta = c.fn.type_of(inst.operands[0]);
  const std::int64_t M = ta.shape()[0], K = ta.shape()[1], N = c.fn.type_of(inst.operands[1]).shape()[1];
  llvm::Type* elem = llvm_type(c.ctx, ta.element());
  auto* as = shared_buffer(c, elem, M * (K + 1));
  auto* bs = shared_buffer(c, elem, K * (N + 1));
  const TileLayout l = layout_of(c, inst.operands[2]);
  auto acc = unpack(c, c.get(inst.operands[2]));
  barrier(c);
  store_tile(c, inst.operands[0], as, elem, K + 1);
  store_tile(c, inst.operands[1], bs, elem, N + 1);
  barrier(c);
  auto tc = thread_coords(b, l);
  for (int r = 0; r < l.num_regs(); ++r) {
    auto xy = element_coords(b, l, tc, r);
    llvm::Value* arow = b.CreateMul(xy[0], b.getInt32(static_cast<std::uint32_t>(K + 1)));
    for (std::int64_t k = 0; k < K; ++k) {
      llvm::Value* x = b.CreateLoad(elem, b.CreateInBoundsGEP(elem, as, b.CreateAdd(arow, b.getInt32(static_cast<std::uint32_t>(k)))));
      llvm::Value* y = b.CreateLoad(
          elem, b.CreateInBoundsGEP(elem, bs, b.CreateAdd(b.getInt32(static_cast<std::uint32_t>(k * (N + 1))), xy[1])));
      x = b.CreateFPExt(x, b.getFloatTy());
      y = b.CreateFPExt(y, b.getFloatTy());
      acc[r] = b.CreateIntrinsic(llvm::Intrinsic::fma, {b.getFloatTy()}, {x, y, acc[r]});
    }
  }
  c.layouts[inst.results[0]] = l;
  return pack(c, b.getFloatTy(), acc);
}

llvm::Value* lower_dot(LoweringContext& c, const ir::Instruction& inst) {
  if (dot_uses_mma(c.fn, inst, c.warps)) {
    ir::Type tc = c.fn.type_of(inst.results[0]);
    return lower_dot_mma(c, inst, *mma_layout(tc.shape()[0], tc.shape()[1], c.warps));
  }
  return lower_dot_fma(c, inst);
}

}  // namespace

void register_tile_dot(LoweringTable& t) { t.set(ir::Opcode::TileDot, lower_dot); }

}  // namespace cutlet::backend
