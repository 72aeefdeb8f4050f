// Lowering of tile.dot: acc + a @ b. On tensor cores (mma.sync m16n8k16 for f16/bf16,
// m16n8k8 for tf32) the accumulator lives in the mma layout, which is a blocked layout
// (1x2 elements per thread, 8x4 lanes, warps over both dimensions); a and b go through shared
// memory (row-major, rows padded against bank conflicts: written from registers, or given as
// tiles in a shared layout, such as the stages a pipelined loop's tile.async_copy filled) and
// each warp reads its fragments from there, with
// ldmatrix for 16-bit types and word by word for tf32. Inputs without tensor-core support
// (exact f32) use FMA from shared memory.
#include <llvm/IR/InlineAsm.h>
#include <llvm/IR/IntrinsicsNVPTX.h>

#include "cutlet/error.h"
#include "cutlet/ir/tile_dot.h"
#include "tile_support.h"

namespace cutlet::backend {

void store_tile(LoweringContext& c, ir::ValueId v, llvm::Value* buf, llvm::Type* elem, std::int64_t stride) {
  auto& b = c.b;
  const TileLayout& l = layout_of(c, v);
  auto regs = unpack(c, c.get(v));
  auto tc = thread_coords(c, l);
  for (int r = 0; r < l.num_regs(); ++r) {
    auto xy = element_coords(b, l, tc, r);
    llvm::Value* at = b.CreateAdd(b.CreateMul(xy[0], b.getInt32(static_cast<std::uint32_t>(stride))), xy[1]);
    write_first_copy(c, l, tc, r, [&] { b.CreateStore(regs[r], b.CreateInBoundsGEP(elem, buf, at)); });
  }
}

void store_tile(LoweringContext& c, ir::ValueId v, llvm::Value* buf, const ir::Layout& shared) {
  auto& b = c.b;
  const TileLayout& l = layout_of(c, v);
  const int bytes = c.fn.type_of(v).element().bits() / 8;
  auto regs = unpack(c, c.get(v));
  auto tc = thread_coords(c, l);
  for (int r = 0; r < l.num_regs(); ++r) {
    llvm::Value* at = shared_tile_offset(c, shared, element_coords(b, l, tc, r), bytes);
    write_first_copy(c, l, tc, r, [&] { b.CreateStore(regs[r], b.CreateInBoundsGEP(b.getInt8Ty(), buf, at)); });
  }
}

llvm::Value* shared_tile_offset(LoweringContext& c, const ir::Layout& l, const std::vector<llvm::Value*>& coords, int elem_bytes) {
  auto& b = c.b;
  auto i32c = [&](std::int64_t v) { return b.getInt32(static_cast<std::uint32_t>(v)); };
  if (!l.swizzle)
    return b.CreateMul(b.CreateAdd(b.CreateMul(coords[0], i32c(l.strides[0])), coords[1]), i32c(elem_bytes));
  // As ir::swizzled_offset: column block, row, and the row's 16-byte chunk XOR bits 7 and up.
  const std::int64_t per_row = l.swizzle / elem_bytes, rows = l.shape[l.rank() - 2];
  llvm::Value* block = b.CreateUDiv(coords[1], i32c(per_row));
  llvm::Value* at = b.CreateAdd(b.CreateMul(coords[0], i32c(l.swizzle)), b.CreateMul(b.CreateURem(coords[1], i32c(per_row)), i32c(elem_bytes)));
  llvm::Value* chunk = b.CreateShl(b.CreateAnd(b.CreateLShr(at, 7), i32c(l.swizzle / 16 - 1)), 4);
  return b.CreateAdd(b.CreateMul(block, i32c(rows * l.swizzle)), b.CreateXor(at, chunk));
}

void fence_proxy_async(LoweringContext& c) {
  auto* fty = llvm::FunctionType::get(c.b.getVoidTy(), false);
  c.b.CreateCall(llvm::InlineAsm::get(fty, "fence.proxy.async.shared::cta;", "~{memory}", true));
}

namespace {

/// A dot operand in shared memory: row-major rows of `stride` elements from `base`.
struct SharedOperand {
  llvm::Value* base;
  std::int64_t stride;
};

/// The fragment registers of one k-step of an M x N x K tensor-core dot, read from a and b in
/// shared memory (row-major, padded rows): for each of the warp's m-tiles the four 32-bit a
/// words, then for each n-tile the two b words (see the mma layout above).
class MmaFragments {
 public:
  /// The extents of the k-steps read and the mma layout's warps [wm, wn].
  struct Shape {
    std::int64_t m, n, k;
    bool a_transposed, b_transposed;
    ir::Type elem;
    int wm, wn;
  };
  static Shape shape_of(LoweringContext& c, const ir::Instruction& dot) {
    const DotShape s = dot_shape(c.fn, dot);
    const TileLayout& mma = result_layout(c, dot.results[0]);
    return {s.m, s.n, s.k, s.a_transposed, s.b_transposed, c.fn.type_of(ir::ops::TileDot(dot).a()).element(), mma.wpc[0], mma.wpc[1]};
  }

  MmaFragments(LoweringContext& c, const ir::Instruction& dot) : MmaFragments(c, shape_of(c, dot)) {}
  MmaFragments(LoweringContext& c, const Shape& s) : c_(c), b_(c.b) {
    M_ = s.m;
    K_ = s.k;
    N_ = s.n;
    a_transposed_ = s.a_transposed;
    b_transposed_ = s.b_transposed;
    et_ = s.elem;
    tf32_ = et_ == ir::Type::f32();
    wm_ = s.wm;
    wn_ = s.wn;
    tiles_m_ = M_ / (16 * wm_);
    tiles_n_ = N_ / (8 * wn_);
    llvm::Value* tid = special_register(c_, ir::SpecialReg::ThreadIdxX);
    lane_ = b_.CreateAnd(tid, 31);
    llvm::Value* warp = b_.CreateLShr(tid, 5);
    warp_n_ = b_.CreateAnd(warp, wn_ - 1);
    warp_m_ = b_.CreateAnd(b_.CreateLShr(warp, __builtin_ctz(static_cast<unsigned>(wn_))), wm_ - 1);
  }

  std::int64_t k_step() const { return tf32_ ? 8 : 16; }
  std::int64_t tiles_m() const { return tiles_m_; }
  std::int64_t tiles_n() const { return tiles_n_; }
  std::size_t count() const { return static_cast<std::size_t>(tiles_m_ * 4 + tiles_n_ * 2); }

  /// The words of k-step kk: a's (unless its base is null) and b's (likewise) from shared
  /// memory, or from the registers given by use_a_registers or use_fragments.
  std::vector<llvm::Value*> load(const SharedOperand& a, const SharedOperand& bop, std::int64_t kk) {
    std::vector<llvm::Value*> out(count());
    if (tf32_) load_words(a, bop, kk, out);
    else load_ldmatrix(a, bop, kk, out);
    if (!a_regs_.empty()) a_from_registers(kk, out);
    const std::size_t first[2] = {0, static_cast<std::size_t>(tiles_m_ * 4)};
    const std::size_t per[2] = {static_cast<std::size_t>(tiles_m_ * 4), static_cast<std::size_t>(tiles_n_ * 2)};
    for (int k = 0; k < 2; ++k) {
      if (words_[k].empty()) continue;
      const std::size_t step = static_cast<std::size_t>(kk / k_step());
      for (std::size_t w = 0; w < per[k]; ++w) out[first[k] + w] = words_[k][step * per[k] + w];
    }
    return out;
  }

  /// Operand k's words come from `regs`, the registers of a tile in a dot-operand layout
  /// (layout.h): k-step by k-step, the tile's fragment words as load() reads them.
  void use_fragments(int k, const std::vector<llvm::Value*>& regs) {
    for (std::size_t r = 0; r < regs.size(); r += static_cast<std::size_t>(word_elems()))
      words_[k].push_back(tf32_ ? b_.CreateBitCast(regs[r], b_.getInt32Ty()) : pair_word(regs[r], regs[r + 1]));
  }
  /// The registers of a dot-operand tile of operand k whose words `words` are (the inverse
  /// of use_fragments).
  std::vector<llvm::Value*> fragment_registers(const std::vector<llvm::Value*>& words, llvm::Type* elem) {
    std::vector<llvm::Value*> regs;
    for (llvm::Value* w : words) {
      if (tf32_) {
        regs.push_back(b_.CreateBitCast(w, elem));
        continue;
      }
      llvm::Value* v = b_.CreateBitCast(w, llvm::FixedVectorType::get(elem, 2));
      regs.push_back(b_.CreateExtractElement(v, std::uint64_t{0}));
      regs.push_back(b_.CreateExtractElement(v, std::uint64_t{1}));
    }
    return regs;
  }
  /// Elements per fragment word.
  int word_elems() const { return tf32_ ? 1 : 2; }

  /// Takes a's fragments from `regs`, a's registers in layout `l`, instead of shared memory
  /// (ir::dot_a_from_registers): a is [M, K] in the mma accumulator layout of whole rows per
  /// warp (an earlier dot's result, as attention's P) with this dot's rows per warp, and the
  /// accumulator of n-tiles 2t and 2t + 1 holds exactly the a fragment of k-step t.
  void use_a_registers(std::vector<llvm::Value*> regs, const TileLayout& l) {
    a_regs_ = std::move(regs);
    a_layout_ = l;
  }

 private:
  llvm::Value* i32c(std::int64_t v) { return b_.getInt32(static_cast<std::uint32_t>(v)); }

  llvm::Value* pair_word(llvm::Value* lo, llvm::Value* hi) {
    llvm::Value* v = llvm::PoisonValue::get(llvm::FixedVectorType::get(lo->getType(), 2));
    v = b_.CreateInsertElement(v, lo, std::uint64_t{0});
    v = b_.CreateInsertElement(v, hi, std::uint64_t{1});
    return b_.CreateBitCast(v, b_.getInt32Ty());
  }

  /// tf32: word by word (converted); a[row][k] at rows g, g + 8, b[k][col] at column g.
  void load_words(const SharedOperand& a, const SharedOperand& bop, std::int64_t kk, std::vector<llvm::Value*>& out) {
    auto& b = b_;
    llvm::Value* g = b.CreateLShr(lane_, 2);
    llvm::Value* q = b.CreateAnd(lane_, 3);
    llvm::Value* k0 = b.CreateAdd(i32c(kk), q);
    llvm::Value* k1 = b.CreateAdd(k0, i32c(4));
    // Element (r, k) of a (or (k, col) of b), held transposed or not.
    auto word = [&](const SharedOperand& op, llvm::Value* r, llvm::Value* k, bool transposed) -> llvm::Value* {
      if (transposed) std::swap(r, k);
      llvm::Value* at = b.CreateAdd(b.CreateMul(r, i32c(op.stride)), k);
      llvm::Value* f = b.CreateAlignedLoad(b.getFloatTy(), b.CreateInBoundsGEP(b.getFloatTy(), op.base, at), llvm::Align(4));
      auto* fty = llvm::FunctionType::get(b.getInt32Ty(), {b.getFloatTy()}, false);
      return b.CreateCall(llvm::InlineAsm::get(fty, "cvt.rna.tf32.f32 $0, $1;", "=r,f", false), {f});
    };
    for (std::int64_t mi = 0; a.base && mi < tiles_m_; ++mi) {
      auto row = [&](int h) { return b.CreateAdd(b.CreateAdd(i32c((2 * mi + h) * 8 * wm_), b.CreateMul(warp_m_, i32c(8))), g); };
      llvm::Value* r0 = row(0);
      llvm::Value* r1 = row(1);
      out[mi * 4 + 0] = word(a, r0, k0, a_transposed_);
      out[mi * 4 + 1] = word(a, r1, k0, a_transposed_);
      out[mi * 4 + 2] = word(a, r0, k1, a_transposed_);
      out[mi * 4 + 3] = word(a, r1, k1, a_transposed_);
    }
    for (std::int64_t ni = 0; bop.base && ni < tiles_n_; ++ni) {
      llvm::Value* col = b.CreateAdd(b.CreateAdd(i32c(ni * 8 * wn_), b.CreateMul(warp_n_, i32c(8))), g);
      out[tiles_m_ * 4 + ni * 2] = word(bop, k0, col, b_transposed_);
      out[tiles_m_ * 4 + ni * 2 + 1] = word(bop, k1, col, b_transposed_);
    }
  }

  /// 16-bit types: ldmatrix. Lane t gives the address of one 16-byte row of one of the 8 x 8
  /// matrices; x4 on a yields a0..a3 of an m16k16 fragment, x4.trans on row-major b yields b0,
  /// b1 of two n8k16 fragments. Addresses are 32-bit shared-window offsets; within a k-step
  /// they differ by constants, which fold into the instructions.
  /// a's words of k-step kk from its accumulator-layout registers: word (h, e) of m-tile mi is
  /// the pair of registers of rows g + 8h, columns kk + 8e + 2q and + 1.
  void a_from_registers(std::int64_t kk, std::vector<llvm::Value*>& out) {
    auto& b = b_;
    llvm::Type* e = a_regs_[0]->getType();
    auto* pair = llvm::FixedVectorType::get(e, 2);
    for (std::int64_t mi = 0; mi < tiles_m_; ++mi)
      for (int w = 0; w < 4; ++w) {
        const int j0 = static_cast<int>(2 * mi) + (w & 1);
        const int j1 = static_cast<int>(2 * (kk / 8 + (w >> 1)));
        llvm::Value* v = llvm::PoisonValue::get(pair);
        v = b.CreateInsertElement(v, a_regs_[a_layout_.reg_of({j0, j1})], std::uint64_t{0});
        v = b.CreateInsertElement(v, a_regs_[a_layout_.reg_of({j0, j1 + 1})], std::uint64_t{1});
        out[static_cast<std::size_t>(mi * 4 + w)] = b.CreateBitCast(v, b.getInt32Ty());
      }
  }

  void load_ldmatrix(const SharedOperand& a, const SharedOperand& bop, std::int64_t kk, std::vector<llvm::Value*>& out) {
    auto& b = b_;
    auto* i32 = b.getInt32Ty();
    llvm::Value* t8 = b.CreateAnd(lane_, 7);
    llvm::Value* hsel = b.CreateAnd(b.CreateLShr(lane_, 3), 1);  // matrices 1 and 3: rows + 8
    llvm::Value* ksel = b.CreateLShr(lane_, 4);                    // matrices 2 and 3: k + 8
    auto* v4 = llvm::StructType::get(c_.ctx, {i32, i32, i32, i32});
    // Each address is a register (the operand's base plus what depends on the lane and warp)
    // and the constant rest (the m- or n-tile and the k-step), written into the instruction
    // as its immediate offset: computed into registers, the constants would be separate
    // loop-invariant values, one register each across the loop.
    auto ldmatrix = [&](bool trans, llvm::Value* address, std::int64_t bytes) {
      const std::string text = std::string("ldmatrix.sync.aligned.m8n8.x4") + (trans ? ".trans" : "") + ".shared.b16 {$0, $1, $2, $3}, [$4+" +
                               std::to_string(bytes) + "];";
      return b.CreateCall(llvm::InlineAsm::get(llvm::FunctionType::get(v4, {i32}, false), text, "=r,=r,=r,=r,r", true), {address});
    };
    const std::int64_t eb = et_.bits() / 8;
    llvm::Value* a32 = a.base ? shared_address(c_, a.base) : nullptr;
    llvm::Value* b32 = bop.base ? shared_address(c_, bop.base) : nullptr;
    auto address = [&](llvm::Value* base32, llvm::Value* at) { return b.CreateAdd(base32, b.CreateMul(at, i32c(eb))); };
    if (a32 && a_regs_.empty()) {
      // Matrices 0..3: rows g and g + 8 (hsel) of m-tile mi, at k and k + 8 (ksel); row g + 8h
      // of m-tile mi is row (2mi + h) * 8 * wm + warp_m * 8 + g. Each lane gives one 16-byte
      // row of one matrix: a row of a (m0 + t8, from k0), or of a transposed a (k0 + t8, from
      // m0), which .trans reads down its columns.
      llvm::Value* m0 = b.CreateAdd(b.CreateMul(hsel, i32c(8 * wm_)), b.CreateMul(warp_m_, i32c(8)));
      llvm::Value* k0 = b.CreateMul(ksel, i32c(8));
      llvm::Value* at = a_transposed_ ? b.CreateAdd(b.CreateMul(b.CreateAdd(k0, t8), i32c(a.stride)), m0)
                                      : b.CreateAdd(b.CreateMul(b.CreateAdd(m0, t8), i32c(a.stride)), k0);
      llvm::Value* lane_address = address(a32, at);
      for (std::int64_t mi = 0; mi < tiles_m_; ++mi) {
        const std::int64_t m = 2 * mi * 8 * wm_;
        const std::int64_t rest = a_transposed_ ? kk * a.stride + m : m * a.stride + kk;
        llvm::Value* f = ldmatrix(a_transposed_, lane_address, rest * eb);
        for (unsigned i = 0; i < 4; ++i) out[mi * 4 + i] = b.CreateExtractValue(f, i);
      }
    }
    // Matrices 0, 1: k rows kk..kk+15 of n-tile ni; 2, 3: of n-tile ni + 1 (if any). A row of
    // b (k0 + t8, from n0), which .trans reads down its columns, or of a transposed b (n0 +
    // t8, from k0), read as it is.
    llvm::Value* lane_address[2] = {nullptr, nullptr};  // for a pair of n-tiles, for a last single one
    for (std::int64_t ni = 0; b32 && ni < tiles_n_; ni += 2) {
      const bool pair = ni + 1 < tiles_n_;
      if (!lane_address[pair]) {
        llvm::Value* k0 = b.CreateMul(hsel, i32c(8));
        llvm::Value* n0 = b.CreateAdd(b.CreateMul(pair ? ksel : i32c(0), i32c(8 * wn_)), b.CreateMul(warp_n_, i32c(8)));
        llvm::Value* at = b_transposed_ ? b.CreateAdd(b.CreateMul(b.CreateAdd(n0, t8), i32c(bop.stride)), k0)
                                        : b.CreateAdd(b.CreateMul(b.CreateAdd(k0, t8), i32c(bop.stride)), n0);
        lane_address[pair] = address(b32, at);
      }
      const std::int64_t n = ni * 8 * wn_;
      const std::int64_t rest = b_transposed_ ? n * bop.stride + kk : kk * bop.stride + n;
      llvm::Value* f = ldmatrix(!b_transposed_, lane_address[pair], rest * eb);
      out[tiles_m_ * 4 + ni * 2] = b.CreateExtractValue(f, 0);
      out[tiles_m_ * 4 + ni * 2 + 1] = b.CreateExtractValue(f, 1);
      if (pair) {
        out[tiles_m_ * 4 + ni * 2 + 2] = b.CreateExtractValue(f, 2);
        out[tiles_m_ * 4 + ni * 2 + 3] = b.CreateExtractValue(f, 3);
      }
    }
  }

  LoweringContext& c_;
  llvm::IRBuilder<>& b_;
  std::int64_t M_, N_, K_, tiles_m_, tiles_n_;
  ir::Type et_;
  bool tf32_;
  bool a_transposed_, b_transposed_;  ///< a held as [K][M], b as [N][K]
  std::vector<llvm::Value*> a_regs_;  ///< a's registers, when its fragments come from them
  std::vector<llvm::Value*> words_[2];  ///< the fragment words of operands given as dot-operand tiles
  TileLayout a_layout_;
  int wm_, wn_;
  llvm::Value *lane_, *warp_m_, *warp_n_;
};

}  // namespace

LoweringContext::SharedTile dot_operand_buffer(LoweringContext& c, const ir::Instruction& dot, int k) {
  // Held as the operand tile is ([M, K] or [K, N], or transposed), rows padded for ldmatrix.
  const ir::ops::TileDot view(dot);
  const ir::Type t = c.fn.type_of(k == 0 ? view.a() : view.b());
  auto s = t.shape();
  const std::int64_t stride = ir::dot_operand_stride((k == 0) != ir::dot_shape(c.fn, dot).transposed(k), s[1], t.element());
  return {shared_buffer(c, llvm_type(c.ctx, t.element()), s[0] * stride), stride};
}

std::vector<llvm::Value*> load_dot_fragments(LoweringContext& c, const ir::Layout& l, ir::Type elem, llvm::Value* base,
                                              std::int64_t stride) {
  // A loader for one operand: the other's extent is one tile of the warps (never read).
  const int k = l.operand;
  const std::int64_t mn = l.shape[(k == 0) == l.transposed ? 1 : 0], kk = l.shape[(k == 0) == l.transposed ? 0 : 1];
  const MmaFragments::Shape s{k == 0 ? mn : 16 * l.wpc[0], k == 1 ? mn : 8 * l.wpc[1], kk, k == 0 && l.transposed,
                              k == 1 && l.transposed, elem, l.wpc[0], l.wpc[1]};
  MmaFragments frags(c, s);
  const SharedOperand op{base, stride}, none{nullptr, 0};
  const std::size_t first = k == 0 ? 0 : static_cast<std::size_t>(frags.tiles_m() * 4);
  const std::size_t per = static_cast<std::size_t>(k == 0 ? frags.tiles_m() * 4 : frags.tiles_n() * 2);
  std::vector<llvm::Value*> words;
  for (std::int64_t step = 0; step < kk; step += frags.k_step()) {
    auto w = frags.load(k == 0 ? op : none, k == 1 ? op : none, step);
    words.insert(words.end(), w.begin() + static_cast<std::ptrdiff_t>(first), w.begin() + static_cast<std::ptrdiff_t>(first + per));
  }
  return frags.fragment_registers(words, llvm_type(c.ctx, elem));
}

namespace {

llvm::Value* lower_dot_mma(LoweringContext& c, const ir::Instruction& inst, const TileLayout& mma) {
  auto& b = c.b;
  const DotShape dims = dot_shape(c.fn, inst);
  const std::int64_t K = dims.k;
  const ir::ops::TileDot dot(inst);
  const ir::ValueId operand[2] = {dot.a(), dot.b()};
  const ir::Type et = c.fn.type_of(dot.a()).element();
  const bool tf32 = et == ir::Type::f32();
  llvm::Type* elem = llvm_type(c.ctx, et);
  MmaFragments frags(c, inst);
  // a comes straight from its registers when it is an accumulator of whole rows per warp (see
  // ir::dot_a_from_registers). Otherwise each operand is read where it is when it is a
  // tile in shared memory (a pipelined loop's stage, or staged before the loop), else from
  // registers written to a buffer of its own.
  // An operand in a dot-operand layout is its fragments already (a tile.local_load's).
  auto shared = [&](int k) { return c.fn.type_of(operand[k]).layout()->is_shared(); };
  auto fragments = [&](int k) { return c.fn.type_of(operand[k]).layout()->is_dot_operand(); };
  const bool a_in_registers = ir::dot_a_from_registers(c.fn, inst);
  if (a_in_registers) frags.use_a_registers(unpack(c, c.get(dot.a())), layout_of(c, dot.a()));
  SharedOperand ops[2] = {{nullptr, 0}, {nullptr, 0}};
  bool from_registers = false;
  for (int k = a_in_registers ? 1 : 0; k < 2; ++k) {
    if (fragments(k)) {
      frags.use_fragments(k, unpack(c, c.get(operand[k])));
      continue;
    }
    if (shared(k)) {
      const ir::Layout& l = *c.fn.type_of(operand[k]).layout();
      CUTLET_ASSERT(l.rank() == 2 && l.strides[1] == 1, "a dot operand in shared memory is held in rows");
      ops[k] = {c.get(operand[k]), l.strides[0]};
      continue;
    }
    const LoweringContext::SharedTile t = dot_operand_buffer(c, inst, k);
    ops[k] = {t.base, t.stride};
    from_registers = true;
  }
  if (from_registers) {
    barrier(c);  // earlier readers of these buffers (in a loop) are done
    for (int k = a_in_registers ? 1 : 0; k < 2; ++k)
      if (!shared(k) && !fragments(k)) store_tile(c, operand[k], ops[k].base, elem, ops[k].stride);
    barrier(c);
  }
  auto acc = unpack(c, tile_in_layout(c, dot.acc(), mma));
  const std::int64_t tiles_m = frags.tiles_m(), tiles_n = frags.tiles_n();
  const int regs_n = static_cast<int>(tiles_n * 2);
  auto* i32 = b.getInt32Ty();
  const std::string shape = tf32 ? "m16n8k8" : "m16n8k16";
  const std::string types = tf32 ? "f32.tf32.tf32.f32" : et == ir::Type::bf16() ? "f32.bf16.bf16.f32" : "f32.f16.f16.f32";
  std::string text = "mma.sync.aligned." + shape + ".row.col." + types + " {$0, $1, $2, $3}, {$4, $5, $6, $7}, {$8, $9}, {$10, $11, $12, $13};";
  std::string cons = "=f,=f,=f,=f,r,r,r,r,r,r,f,f,f,f";
  std::vector<llvm::Type*> arg_types(6, i32);  // four a words, two b words
  for (int i = 0; i < 4; ++i) arg_types.push_back(b.getFloatTy());
  llvm::Type* f4 = llvm::StructType::get(c.ctx, {b.getFloatTy(), b.getFloatTy(), b.getFloatTy(), b.getFloatTy()});
  auto* mma_fn = llvm::InlineAsm::get(llvm::FunctionType::get(f4, arg_types, false), text, cons, false);

  // Fragments are read one k-step ahead of the math.
  std::vector<llvm::Value*> cur = frags.load(ops[0], ops[1], 0);
  for (std::int64_t kk = 0; kk < K; kk += frags.k_step()) {
    std::vector<llvm::Value*> next;
    if (kk + frags.k_step() < K) next = frags.load(ops[0], ops[1], kk + frags.k_step());
    for (std::int64_t mi = 0; mi < tiles_m; ++mi)
      for (std::int64_t ni = 0; ni < tiles_n; ++ni) {
        const int r0 = static_cast<int>(2 * mi) * regs_n + static_cast<int>(2 * ni);
        const int r1 = static_cast<int>(2 * mi + 1) * regs_n + static_cast<int>(2 * ni);
        llvm::Value* const* aw = &cur[static_cast<std::size_t>(mi * 4)];
        llvm::Value* const* bw = &cur[static_cast<std::size_t>(tiles_m * 4 + ni * 2)];
        std::vector<llvm::Value*> args{aw[0], aw[1], aw[2], aw[3], bw[0], bw[1], acc[r0], acc[r0 + 1], acc[r1], acc[r1 + 1]};
        llvm::Value* d = b.CreateCall(mma_fn, args);
        acc[r0] = b.CreateExtractValue(d, 0);
        acc[r0 + 1] = b.CreateExtractValue(d, 1);
        acc[r1] = b.CreateExtractValue(d, 2);
        acc[r1 + 1] = b.CreateExtractValue(d, 3);
      }
    cur = std::move(next);
  }
  return pack(c, b.getFloatTy(), acc);
}

/// Exact f32 (or any shape the mma layout does not fit): each accumulator register sums its
/// row of a times its column of b, read from shared memory.
llvm::Value* lower_dot_fma(LoweringContext& c, const ir::Instruction& inst) {
  auto& b = c.b;
  const DotShape shape = dot_shape(c.fn, inst);
  const std::int64_t K = shape.k;
  const ir::ops::TileDot dot(inst);
  llvm::Type* elem = llvm_type(c.ctx, c.fn.type_of(dot.a()).element());
  // Each operand as its tile is (maybe transposed), in rows padded by one element.
  auto sa = c.fn.type_of(dot.a()).shape(), sb = c.fn.type_of(dot.b()).shape();
  const std::int64_t a_stride = sa[1] + 1, b_stride = sb[1] + 1;
  auto* as = shared_buffer(c, elem, sa[0] * a_stride);
  auto* bs = shared_buffer(c, elem, sb[0] * b_stride);
  const TileLayout l = layout_of(c, dot.acc());
  auto acc = unpack(c, c.get(dot.acc()));
  barrier(c);
  store_tile(c, dot.a(), as, elem, a_stride);
  store_tile(c, dot.b(), bs, elem, b_stride);
  barrier(c);
  auto i32c = [&](std::int64_t v) { return b.getInt32(static_cast<std::uint32_t>(v)); };
  // Element (row, col) of an operand held as `stride`-element rows, or held transposed.
  auto at = [&](llvm::Value* row, llvm::Value* col, std::int64_t stride, bool transposed) {
    if (transposed) std::swap(row, col);
    return b.CreateAdd(b.CreateMul(row, i32c(stride)), col);
  };
  auto tc = thread_coords(c, l);
  for (int r = 0; r < l.num_regs(); ++r) {
    auto xy = element_coords(b, l, tc, r);
    for (std::int64_t k = 0; k < K; ++k) {
      llvm::Value* x = b.CreateLoad(elem, b.CreateInBoundsGEP(elem, as, at(xy[0], i32c(k), a_stride, shape.a_transposed)));
      llvm::Value* y = b.CreateLoad(elem, b.CreateInBoundsGEP(elem, bs, at(i32c(k), xy[1], b_stride, shape.b_transposed)));
      x = b.CreateFPExt(x, b.getFloatTy());
      y = b.CreateFPExt(y, b.getFloatTy());
      acc[r] = b.CreateIntrinsic(llvm::Intrinsic::fma, {b.getFloatTy()}, {x, y, acc[r]});
    }
  }
  return pack(c, b.getFloatTy(), acc);
}

llvm::Value* lower_dot(LoweringContext& c, const ir::Instruction& inst) {
  if (result_layout(c, inst.results[0]).is_wgmma()) return lower_dot_wgmma(c, inst);
  if (dot_uses_mma(c.fn, inst, c.warps)) return lower_dot_mma(c, inst, result_layout(c, inst.results[0]));
  return lower_dot_fma(c, inst);
}

}  // namespace

void register_tile_dot(LoweringTable& t) {
  t.set(ir::Opcode::TileDot, lower_dot);
  t.set(ir::Opcode::TileDotWait, lower_dot_wait);
}

}  // namespace cutlet::backend
