// Lowering of tile.dot on Hopper's warpgroup MMA (wgmma.mma_async m64nNk16 for f16 and bf16,
// m64nNk32 for FP8, e4m3 and e5m2 in any pairing, with f32 accumulation). The accumulator is
// in the wgmma layout (ir::wgmma_layout): warp w holds rows 16w + g and 16w + g + 8 of each
// 16W-row band, so warpgroup G (warps 4G..4G+3) holds rows 64G.. of each band, which one m64
// wgmma computes. a and b are read by the tensor cores from shared memory through matrix
// descriptors: tiles in a swizzled shared layout (a pipelined loop's stages, an operand staged
// before the loop), or registers written to such a buffer first; a may come from registers
// instead when it is held as the accumulator is (attention's P). Each operand is K-major (its
// rows run along K: a as [M, K], b given transposed as [N, K]) or MN-major (b as [K, N], a
// transposed as [K, M]; the transpose bits).
// FP8 operands are K-major and in shared memory (dot_uses_wgmma: wgmma has no transpose for
// them, nor an FP8 a in registers).
// The dot issues every k-step of every band and commits them as one group; it waits for the
// group itself unless a tile.dot_wait of its result does (a pipelined loop issues the next
// stages' copies while the MMAs run).
#include <algorithm>
#include <string>

#include <llvm/IR/InlineAsm.h>
#include <llvm/IR/IntrinsicsNVPTX.h>

#include "cutlet/error.h"
#include "tile_support.h"

namespace cutlet::backend {
namespace {

/// One operand as wgmma reads it: its swizzled tile at 32-bit shared address `base`.
struct WgmmaOperand {
  llvm::Value* base;  ///< i32 shared-window address of the tile
  ir::Layout layout;  ///< the tile's swizzled shared layout ([rows, cols] as the dot is given it)
  bool k_major;       ///< its rows run along K
  int elem_bytes;

  /// The byte offset of the 8-row core matrices at (mn0, k0) of the operand: mn0 along M (or
  /// N), k0 along K, both at the start of a swizzle atom's row or a 16-byte chunk.
  std::int64_t offset(std::int64_t mn0, std::int64_t k0) const {
    const std::int64_t rows = layout.shape[0], per_row = layout.swizzle / elem_bytes;
    const std::int64_t row = k_major ? mn0 : k0, col = k_major ? k0 : mn0;
    return (col / per_row) * rows * layout.swizzle + row * layout.swizzle + (col % per_row) * elem_bytes;
  }
  /// The descriptor's constant bits: the leading and stride byte offsets and the swizzle mode.
  std::uint64_t fixed_bits() const {
    const std::int64_t s = layout.swizzle;
    // K-major: the leading offset is unused by swizzled layouts (1 by convention); MN-major:
    // the distance between column blocks of the swizzle's width. Stride: between 8-row groups.
    const std::uint64_t lbo = k_major ? 1 : static_cast<std::uint64_t>((layout.shape[0] * s) >> 4);
    const std::uint64_t sbo = static_cast<std::uint64_t>((8 * s) >> 4);
    const std::uint64_t mode = s == 128 ? 1 : s == 64 ? 2 : 3;
    CUTLET_ASSERT(lbo < (1u << 14), "a wgmma operand's column blocks are at most 256 KiB apart");
    return ((lbo & 0x3FFF) << 16) | ((sbo & 0x3FFF) << 32) | (mode << 62);
  }
};

llvm::Value* descriptor(llvm::IRBuilder<>& b, const WgmmaOperand& op, llvm::Value* offset) {
  llvm::Value* address = b.CreateAdd(op.base, offset);
  llvm::Value* start = b.CreateLShr(b.CreateAnd(b.CreateZExt(address, b.getInt64Ty()), 0x3FFFF), 4);
  return b.CreateOr(start, b.getInt64(op.fixed_bits()));
}

/// An inline-asm call that passes `regs` through (tied in and out): a wgmma wait or fence
/// that the registers' later uses (or earlier definitions) must stay on the right side of.
/// f32 registers are "f" operands, i32 ones "r".
void pass_through(llvm::IRBuilder<>& b, llvm::LLVMContext& ctx, const std::string& text, std::vector<llvm::Value*>& regs) {
  const std::size_t n = regs.size();
  std::vector<llvm::Type*> types;
  std::string cons;
  for (std::size_t i = 0; i < n; ++i) {
    types.push_back(regs[i]->getType());
    cons += std::string(i ? "," : "") + (regs[i]->getType()->isFloatTy() ? "=f" : "=r");
  }
  for (std::size_t i = 0; i < n; ++i) cons += "," + std::to_string(i);
  cons += std::string(n ? "," : "") + "~{memory}";
  llvm::Type* ret = n == 0 ? b.getVoidTy() : n == 1 ? types[0] : static_cast<llvm::Type*>(llvm::StructType::get(ctx, types));
  auto* asm_fn = llvm::InlineAsm::get(llvm::FunctionType::get(ret, types, false), text, cons, true);
  llvm::Value* out = b.CreateCall(asm_fn, regs);
  for (std::size_t i = 0; i < n; ++i) regs[i] = n == 1 ? out : b.CreateExtractValue(out, static_cast<unsigned>(i));
}

/// Two 16-bit registers as one 32-bit word (the low one first).
llvm::Value* pair_word(llvm::IRBuilder<>& b, llvm::Value* lo, llvm::Value* hi) {
  llvm::Value* v = llvm::PoisonValue::get(llvm::FixedVectorType::get(lo->getType(), 2));
  v = b.CreateInsertElement(v, lo, std::uint64_t{0});
  v = b.CreateInsertElement(v, hi, std::uint64_t{1});
  return b.CreateBitCast(v, b.getInt32Ty());
}

}  // namespace

llvm::Value* lower_dot_wgmma(LoweringContext& c, const ir::Instruction& inst) {
  auto& b = c.b;
  const ir::ops::TileDot dot(inst);
  const DotShape s = dot_shape(c.fn, inst);
  const ir::Type et = c.fn.type_of(dot.a()).element(), bt = c.fn.type_of(dot.b()).element();
  const int eb = et.bits() / 8;
  const bool fp8 = et.is_fp8();
  const TileLayout& acc_layout = result_layout(c, inst.results[0]);
  const ir::ValueId operand[2] = {dot.a(), dot.b()};
  // a straight from its registers when it is held as this dot's accumulator is (attention's
  // P: ir::dot_a_from_registers). Otherwise each operand is read where it is, when it is a
  // swizzled shared tile, else written to a buffer first.
  const bool a_in_registers = ir::dot_a_from_registers(c.fn, inst);
  WgmmaOperand ops[2];
  llvm::Value* buffer[2] = {nullptr, nullptr};
  for (int k = a_in_registers ? 1 : 0; k < 2; ++k) {
    const ir::Type t = c.fn.type_of(operand[k]);
    const std::vector<std::int64_t> shape(t.shape().begin(), t.shape().end());
    const ir::Layout& l = *t.layout();
    ir::Layout sl = l;
    if (!l.is_shared()) {
      sl = ir::dot_operand_shared_layout(c.fn, inst, k, shape);
      buffer[k] = shared_buffer(c, llvm_type(c.ctx, et), sl.shared_elements());
    }
    CUTLET_ASSERT(sl.swizzle != 0 && sl.rank() == 2, "a wgmma operand is a swizzled 2-D tile in shared memory");
    ops[k] = {nullptr, sl, (k == 0) != s.transposed(k), eb};
  }
  if (buffer[0] || buffer[1]) {
    barrier(c);  // earlier readers of these buffers (in a loop) are done
    for (int k = 0; k < 2; ++k)
      if (buffer[k]) store_tile(c, operand[k], buffer[k], ops[k].layout);
    fence_proxy_async(c);
    barrier(c);
  }
  for (int k = a_in_registers ? 1 : 0; k < 2; ++k) ops[k].base = shared_address(c, buffer[k] ? buffer[k] : c.get(operand[k]));

  auto acc = unpack(c, tile_in_layout(c, dot.acc(), acc_layout));
  const int warps = acc_layout.wpc[0];
  const std::int64_t k_step = fp8 ? 32 : 16;  // the K of one wgmma: 32 bytes of each row
  const std::int64_t bands = s.m / (16 * warps), steps = s.k / k_step;
  const std::int64_t chunk = s.n <= 256 ? s.n : 256;
  // a's words from registers, per band and k-step: as for mma.sync's m16k16 a fragment, the
  // accumulator's n8 blocks 2t and 2t + 1 (rows g, g + 8) are k-step t's a0..a3.
  std::vector<llvm::Value*> a_words;
  if (a_in_registers) {
    const auto regs = unpack(c, c.get(dot.a()));
    const TileLayout& al = layout_of(c, dot.a());
    for (std::int64_t band = 0; band < bands; ++band)
      for (std::int64_t t = 0; t < steps; ++t)
        for (int w = 0; w < 4; ++w) {
          const int row = static_cast<int>(2 * band) + (w & 1), col = static_cast<int>(2 * (2 * t + (w >> 1)));
          a_words.push_back(pair_word(b, regs[static_cast<std::size_t>(al.reg_of({row, col}))],
                                      regs[static_cast<std::size_t>(al.reg_of({row, col + 1}))]));
        }
  }
  llvm::Value* tid = special_register(c, ir::SpecialReg::ThreadIdxX);
  llvm::Value* group = b.CreateLShr(tid, 7);  // the warpgroup
  auto ptx_type = [](ir::Type t) {
    return t == ir::Type::bf16() ? "bf16" : t == ir::Type::f16() ? "f16" : t == ir::Type::f8e4m3() ? "e4m3" : "e5m2";
  };
  const std::string types = std::string(ptx_type(et)) + "." + ptx_type(bt);
  const int trans_a = ops[0].k_major ? 0 : 1, trans_b = ops[1].k_major ? 0 : 1;
  auto* one = b.getInt32(1);

  // The fence orders the accumulator's (and a's) registers, written by other instructions,
  // before the MMAs that read them.
  std::vector<llvm::Value*> fenced = acc;
  fenced.insert(fenced.end(), a_words.begin(), a_words.end());
  pass_through(b, c.ctx, "wgmma.fence.sync.aligned;", fenced);
  std::copy(fenced.begin(), fenced.begin() + static_cast<std::ptrdiff_t>(acc.size()), acc.begin());
  std::copy(fenced.begin() + static_cast<std::ptrdiff_t>(acc.size()), fenced.end(), a_words.begin());
  for (std::int64_t band = 0; band < bands; ++band) {
    // This warpgroup's 64 rows of the band: the a offset depends on the warpgroup.
    const std::int64_t m_band = band * 16 * warps;
    llvm::Value* a_group =
        a_in_registers ? nullptr
                       : b.CreateMul(group, b.getInt32(static_cast<std::uint32_t>(ops[0].offset(64, 0) - ops[0].offset(0, 0))));
    for (std::int64_t n0 = 0; n0 < s.n; n0 += chunk) {
      // The chunk's registers, in wgmma's order: per 8 columns, rows g and g + 8, two each.
      std::vector<int> regs;
      for (std::int64_t j = 0; j < chunk / 8; ++j)
        for (int i = 0; i < 4; ++i)
          regs.push_back(acc_layout.reg_of({static_cast<int>(2 * band + i / 2), static_cast<int>(2 * (n0 / 8 + j) + i % 2)}));
      const std::size_t n = regs.size();
      // Operands: the n accumulators (tied), then a (a descriptor, or four words), b's
      // descriptor, and the scale-d flag.
      const std::size_t a_ops = a_in_registers ? 4 : 1;
      const std::size_t at_a = 2 * n, at_b = at_a + a_ops, at_scale = at_b + 1;
      std::string text = "{\n.reg .pred p;\nsetp.ne.b32 p, $" + std::to_string(at_scale) + ", 0;\nwgmma.mma_async.sync.aligned.m64n" +
                         std::to_string(chunk) + "k" + std::to_string(k_step) + ".f32." + types + " {";
      for (std::size_t i = 0; i < n; ++i) text += (i ? ", $" : "$") + std::to_string(i);
      text += "}, ";
      if (a_in_registers)
        text += "{$" + std::to_string(at_a) + ", $" + std::to_string(at_a + 1) + ", $" + std::to_string(at_a + 2) + ", $" +
                std::to_string(at_a + 3) + "}";
      else
        text += "$" + std::to_string(at_a);
      // The scales of a and b (1: not negated), then, for 16-bit types, the transpose bits.
      text += ", $" + std::to_string(at_b) + ", p, 1, 1";
      if (!fp8 && !a_in_registers) text += ", " + std::to_string(trans_a);
      if (!fp8) text += ", " + std::to_string(trans_b);
      text += ";\n}";
      std::string cons;
      for (std::size_t i = 0; i < n; ++i) cons += (i ? ",=f" : "=f");
      for (std::size_t i = 0; i < n; ++i) cons += "," + std::to_string(i);
      cons += a_in_registers ? ",r,r,r,r" : ",l";
      cons += ",l,r,~{memory}";
      std::vector<llvm::Type*> arg_types(n, b.getFloatTy());
      for (std::size_t i = 0; i < a_ops; ++i) arg_types.push_back(a_in_registers ? b.getInt32Ty() : b.getInt64Ty());
      arg_types.push_back(b.getInt64Ty());
      arg_types.push_back(b.getInt32Ty());
      llvm::Type* ret = llvm::StructType::get(c.ctx, std::vector<llvm::Type*>(n, b.getFloatTy()));
      auto* wgmma = llvm::InlineAsm::get(llvm::FunctionType::get(ret, arg_types, false), text, cons, true);
      for (std::int64_t t = 0; t < steps; ++t) {
        const std::int64_t k0 = k_step * t;
        std::vector<llvm::Value*> args;
        for (int r : regs) args.push_back(acc[static_cast<std::size_t>(r)]);
        if (a_in_registers) {
          for (int w = 0; w < 4; ++w) args.push_back(a_words[static_cast<std::size_t>((band * steps + t) * 4 + w)]);
        } else {
          llvm::Value* a_off = b.CreateAdd(a_group, b.getInt32(static_cast<std::uint32_t>(ops[0].offset(m_band, k0))));
          args.push_back(descriptor(b, ops[0], a_off));
        }
        args.push_back(descriptor(b, ops[1], b.getInt32(static_cast<std::uint32_t>(ops[1].offset(n0, k0)))));
        args.push_back(one);
        llvm::Value* d = b.CreateCall(wgmma, args);
        for (std::size_t i = 0; i < n; ++i) acc[static_cast<std::size_t>(regs[i])] = b.CreateExtractValue(d, static_cast<unsigned>(i));
      }
    }
  }
  std::vector<llvm::Value*> none;
  pass_through(b, c.ctx, "wgmma.commit_group.sync.aligned;", none);
  // Finished here, unless a tile.dot_wait finishes it later.
  if (!ir::feeds_dot_wait(c.fn, inst.results[0])) pass_through(b, c.ctx, "wgmma.wait_group.sync.aligned 0;", acc);
  return pack(c, b.getFloatTy(), acc);
}

llvm::Value* lower_dot_wait(LoweringContext& c, const ir::Instruction& inst) {
  const ir::ops::TileDotWait wait(inst);
  auto regs = unpack(c, c.get(wait.source()));
  pass_through(c.b, c.ctx, "wgmma.wait_group.sync.aligned " + std::to_string(wait.pending()) + ";", regs);
  return pack(c, c.b.getFloatTy(), regs);
}

}  // namespace cutlet::backend
