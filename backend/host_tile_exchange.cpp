// Tile ops that move elements between a block's threads, lowered for a host block in phases
// through dense tiles in the block's exchange memory (host_tile_exchange.h).
#include "host_tile_exchange.h"

#include <algorithm>
#include <numeric>
#include <utility>
#include <vector>

#include "cutlet/error.h"
#include "cutlet/ir/tile_dot.h"
#include "tile_support.h"

namespace cutlet::backend {
namespace {

using ir::Opcode;
/// The row-major position (i32) in a dense tile of the element at `coords`.
using Position = std::function<llvm::Value*(const std::vector<llvm::Value*>& coords)>;

constexpr std::uint64_t kAlign = 64;
/// The bytes of a dense reduction's vector accumulator.
constexpr std::uint64_t kAccumulatorBytes = 64;

std::vector<std::int64_t> shape_of(const ir::Function& fn, ir::ValueId v) {
  auto s = fn.type_of(v).shape();
  return {s.begin(), s.end()};
}

std::int64_t product(const std::vector<std::int64_t>& s, std::size_t from = 0, std::size_t to = ~std::size_t{0}) {
  to = std::min(to, s.size());
  return std::accumulate(s.begin() + static_cast<std::ptrdiff_t>(std::min(from, to)), s.begin() + static_cast<std::ptrdiff_t>(to),
                         std::int64_t{1}, std::multiplies<>());
}

/// Whether reducing a tile in layout l along k combines elements of several threads.
bool reduce_spreads(const TileLayout& l, int k) {
  if (l.is_slice()) return true;  // not along the layout's own dimensions: moved in any case
  const auto [lanes, warps] = reduce_lanes_and_warps(l, k);
  return lanes > 1 || warps > 1;
}

/// The axis of a reduction or scan.
int axis_of(const ir::Instruction& inst) {
  switch (inst.op) {
    case Opcode::TileReduce: return ir::ops::TileReduce(inst).axis();
    case Opcode::TileReduceWith: return ir::ops::TileReduceWith(inst).axis();
    default: return ir::ops::TileScan(inst).axis();
  }
}

/// The bytes a dense tile of `count` elements of `type` takes in the exchange memory, up to
/// the next tile's alignment (booleans are kept as bytes).
std::uint64_t dense_tile_bytes(llvm::LLVMContext& ctx, const llvm::DataLayout& dl, ir::Type type, std::int64_t count) {
  llvm::Type* t = llvm_type(ctx, type);
  const std::uint64_t size = t->isIntegerTy(1) ? 1 : dl.getTypeAllocSize(t);
  return (static_cast<std::uint64_t>(count) * size + kAlign - 1) / kAlign * kAlign;
}

/// The dense tiles an exchange uses, in the order it takes them: (element type, elements).
std::vector<std::pair<ir::Type, std::int64_t>> dense_tiles(const ir::Function& fn, const ir::Instruction& inst) {
  std::vector<std::pair<ir::Type, std::int64_t>> tiles;
  auto tile = [&](ir::ValueId v) { tiles.emplace_back(fn.type_of(v).element(), product(shape_of(fn, v))); };
  switch (inst.op) {
    case Opcode::TileDot: {
      const DotShape s = dot_shape(fn, inst);
      for (std::int64_t n : {s.m * s.k, s.k * s.n, s.m * s.n}) tiles.emplace_back(ir::Type::f32(), n);
      break;
    }
    case Opcode::TileReduce:
    case Opcode::TileReduceWith:
      for (ir::ValueId v : inst.operands) tile(v);
      for (ir::ValueId v : inst.results)
        tiles.emplace_back(fn.type_of(v).is_tile() ? fn.type_of(v).element() : fn.type_of(v), product(shape_of(fn, v)));
      break;
    default:  // scans (in place), conversions, permutes and reshapes
      for (ir::ValueId v : inst.operands) tile(v);
  }
  return tiles;
}

using Dense = HostExchange::Dense;

llvm::Value* at(llvm::IRBuilder<>& b, const Dense& d, llvm::Value* i) { return b.CreateInBoundsGEP(d.stored, d.base, i); }
llvm::Value* load(llvm::IRBuilder<>& b, const Dense& d, llvm::Value* i) {
  llvm::Value* x = b.CreateLoad(d.stored, at(b, d, i));
  return d.stored == d.elem ? x : b.CreateTrunc(x, d.elem);
}
void store(llvm::IRBuilder<>& b, const Dense& d, llvm::Value* i, llvm::Value* x) {
  b.CreateStore(d.stored == d.elem ? x : b.CreateZExt(x, d.stored), at(b, d, i));
}

llvm::Value* i32(LoweringContext& c, std::int64_t v) { return c.b.getInt32(static_cast<std::uint32_t>(v)); }

/// for i in [0, n): body(i), an LLVM loop (left for LLVM to vectorize and unroll).
void loop(LoweringContext& c, std::int64_t n, const std::function<void(llvm::Value*)>& body) {
  if (n <= 0) return;
  if (n == 1) return body(i32(c, 0));
  auto& b = c.b;
  llvm::Function* fn = b.GetInsertBlock()->getParent();
  llvm::BasicBlock* pre = b.GetInsertBlock();
  auto* header = llvm::BasicBlock::Create(c.ctx, "dense", fn);
  auto* after = llvm::BasicBlock::Create(c.ctx, "dense.end", fn);
  b.CreateBr(header);
  b.SetInsertPoint(header);
  llvm::PHINode* i = b.CreatePHI(b.getInt32Ty(), 2);
  i->addIncoming(b.getInt32(0), pre);
  body(i);
  llvm::Value* next = b.CreateAdd(i, b.getInt32(1), "", true, true);
  i->addIncoming(next, b.GetInsertBlock());
  b.CreateCondBr(b.CreateICmpULT(next, i32(c, n)), header, after);
  b.SetInsertPoint(after);
}

/// Tuple values kept in entry-block allocas, so that loops can carry them.
class Carried {
 public:
  Carried(LoweringContext& c, const Tuple& like) : c_(c) {
    for (llvm::Value* x : like) slots_.push_back(c.entry.CreateAlloca(x->getType()));
  }
  void set(const Tuple& x) {
    for (std::size_t i = 0; i < x.size(); ++i) c_.b.CreateStore(x[i], slots_[i]);
  }
  Tuple get() const {
    Tuple x;
    for (auto* s : slots_) x.push_back(c_.b.CreateLoad(s->getAllocatedType(), s));
    return x;
  }

 private:
  LoweringContext& c_;
  std::vector<llvm::AllocaInst*> slots_;
};

Tuple load_all(LoweringContext& c, const std::vector<Dense>& d, llvm::Value* i) {
  Tuple x;
  for (const Dense& t : d) x.push_back(load(c.b, t, i));
  return x;
}
void store_all(LoweringContext& c, const std::vector<Dense>& d, llvm::Value* i, const Tuple& x) {
  for (std::size_t k = 0; k < d.size(); ++k) store(c.b, d[k], i, x[k]);
}

/// The runs of a thread's registers of layout l that sit next to each other in a row-major
/// dense tile of l's shape: each run's first register and the run's length (the elements a
/// thread holds in a row along the last dimension), or single registers.
std::vector<std::pair<int, int>> register_runs(const TileLayout& l, bool row_major_position) {
  std::vector<std::pair<int, int>> runs;
  const int last = l.rank() - 1;
  const bool rows = row_major_position && !l.is_slice() && last >= 0 && l.order[0] == last && l.spt[last] > 1 &&
                    l.shape[static_cast<std::size_t>(last)] >= l.spt[last];
  for (int r = 0; r < l.num_regs(); ++r) {
    if (!rows) runs.emplace_back(r, 1);
    else if (l.reg_indices(r)[last] % l.spt[last] == 0) runs.emplace_back(r, l.spt[last]);
  }
  return runs;
}

/// Writes thread registers `regs` of tile x (in x's layout) to `d` at position(coords), each
/// as `convert` makes it; `row_major`: position is row-major in x's shape.
void write_registers(LoweringContext& c, ir::ValueId x, llvm::Value* regs, const Dense& d, const Position& position,
                     bool row_major, const std::function<llvm::Value*(llvm::Value*)>& convert = nullptr) {
  auto& b = c.b;
  const TileLayout& l = layout_of(c, x);
  auto values = unpack(c, regs);
  auto coords = thread_coords(c, l);
  for (const auto& [r, n] : register_runs(l, row_major)) {
    llvm::Value* at_r = position(element_coords(b, l, coords, r));
    llvm::Value* v = n == 1 ? values[r] : pack(c, values[r]->getType(), {values.begin() + r, values.begin() + r + n});
    if (convert) v = convert(v);
    if (n == 1) {
      store(b, d, at_r, v);
      continue;
    }
    auto* vt = llvm::FixedVectorType::get(d.stored, static_cast<unsigned>(n));
    b.CreateAlignedStore(d.stored == d.elem ? v : b.CreateZExt(v, vt), at(b, d, at_r), llvm::Align(c.module.getDataLayout().getTypeAllocSize(d.stored)));
  }
}

/// The thread's registers of tile result v (in its layout), read from `d` at position(coords);
/// `row_major`: position is row-major in v's shape.
llvm::Value* read_registers(LoweringContext& c, ir::ValueId v, const Dense& d, const Position& position, bool row_major) {
  auto& b = c.b;
  const TileLayout& l = result_layout(c, v);
  auto coords = thread_coords(c, l);
  std::vector<llvm::Value*> regs(l.num_regs());
  for (const auto& [r, n] : register_runs(l, row_major)) {
    llvm::Value* at_r = position(element_coords(b, l, coords, r));
    if (n == 1) {
      regs[r] = load(b, d, at_r);
      continue;
    }
    auto* vt = llvm::FixedVectorType::get(d.stored, static_cast<unsigned>(n));
    llvm::Value* x = b.CreateAlignedLoad(vt, at(b, d, at_r), llvm::Align(c.module.getDataLayout().getTypeAllocSize(d.stored)));
    if (d.stored != d.elem) x = b.CreateTrunc(x, llvm::FixedVectorType::get(d.elem, static_cast<unsigned>(n)));
    for (int i = 0; i < n; ++i) regs[r + i] = b.CreateExtractElement(x, static_cast<std::uint64_t>(i));
  }
  return pack(c, d.elem, regs);
}

/// Row-major positions in a dense tile of `shape`.
Position row_major(LoweringContext& c, std::vector<std::int64_t> shape) {
  return [&c, shape](const std::vector<llvm::Value*>& coords) { return linear(c, coords, shape); };
}

/// out = in reduced along k of `shape` (out's shape: shape without k). `lanes` > 1: builtin
/// combines, which also take vectors of that many lanes; rows along the last dimension are
/// then combined lanes at a time.
void dense_reduce(LoweringContext& c, const std::vector<Dense>& in, const std::vector<Dense>& out,
                  const std::vector<std::int64_t>& shape, int k, const Combine& combine, int lanes) {
  auto& b = c.b;
  const std::int64_t outer = product(shape, 0, static_cast<std::size_t>(k)), extent = shape[static_cast<std::size_t>(k)],
                     inner = product(shape, static_cast<std::size_t>(k) + 1);
  loop(c, outer, [&](llvm::Value* o) {
    llvm::Value* first = b.CreateMul(o, i32(c, extent * inner));
    if (inner > 1) {  // a row of accumulators, each element's combined with the next row's
      llvm::Value* row = b.CreateMul(o, i32(c, inner));
      loop(c, inner, [&](llvm::Value* j) { store_all(c, out, b.CreateAdd(row, j), load_all(c, in, b.CreateAdd(first, j))); });
      loop(c, extent - 1, [&](llvm::Value* e) {
        llvm::Value* from = b.CreateAdd(first, b.CreateMul(b.CreateAdd(e, i32(c, 1)), i32(c, inner)));
        loop(c, inner, [&](llvm::Value* j) {
          llvm::Value* at = b.CreateAdd(row, j);
          store_all(c, out, at, combine(load_all(c, out, at), load_all(c, in, b.CreateAdd(from, j))));
        });
      });
      return;
    }
    std::int64_t done = 1;
    const Tuple head = load_all(c, in, first);
    Carried acc(c, head);
    acc.set(head);
    if (lanes > 1 && extent >= 2 * lanes) {  // lanes accumulators, then combined
      auto* vt = llvm::FixedVectorType::get(in[0].elem, static_cast<unsigned>(lanes));
      auto vload = [&](llvm::Value* i) -> llvm::Value* {
        return b.CreateAlignedLoad(vt, at(b, in[0], i), c.module.getDataLayout().getABITypeAlign(in[0].elem));
      };
      const Tuple vhead{vload(first)};
      Carried vacc(c, vhead);
      vacc.set(vhead);
      const std::int64_t chunks = extent / lanes;
      loop(c, chunks - 1, [&](llvm::Value* e) {
        llvm::Value* at = b.CreateAdd(first, b.CreateMul(b.CreateAdd(e, i32(c, 1)), i32(c, lanes)));
        vacc.set(combine(vacc.get(), {vload(at)}));
      });
      // The lanes combined as a tree, halves at a time.
      llvm::Value* v = vacc.get()[0];
      for (int width = lanes / 2; width >= 1; width /= 2) {
        std::vector<int> low(static_cast<std::size_t>(width)), high(static_cast<std::size_t>(width));
        for (int l = 0; l < width; ++l) low[l] = l, high[l] = width + l;
        v = combine({b.CreateShuffleVector(v, low)}, {b.CreateShuffleVector(v, high)})[0];
      }
      acc.set({b.CreateExtractElement(v, std::uint64_t{0})});
      done = chunks * lanes;
    }
    loop(c, extent - done, [&](llvm::Value* e) {
      acc.set(combine(acc.get(), load_all(c, in, b.CreateAdd(first, b.CreateAdd(e, i32(c, done))))));
    });
    store_all(c, out, o, acc.get());
  });
}

/// d = its inclusive scan along k of `shape`, in place.
void dense_scan(LoweringContext& c, const std::vector<Dense>& d, const std::vector<std::int64_t>& shape, int k,
                const Combine& combine) {
  auto& b = c.b;
  const std::int64_t outer = product(shape, 0, static_cast<std::size_t>(k)), extent = shape[static_cast<std::size_t>(k)],
                     inner = product(shape, static_cast<std::size_t>(k) + 1);
  loop(c, outer, [&](llvm::Value* o) {
    llvm::Value* first = b.CreateMul(o, i32(c, extent * inner));
    loop(c, extent - 1, [&](llvm::Value* e) {
      llvm::Value* prev = b.CreateAdd(first, b.CreateMul(e, i32(c, inner)));
      loop(c, inner, [&](llvm::Value* j) {
        llvm::Value* from = b.CreateAdd(prev, j);
        llvm::Value* to = b.CreateAdd(from, i32(c, inner));
        store_all(c, d, to, combine(load_all(c, d, from), load_all(c, d, to)));
      });
    });
  });
}

/// A reduction's combine: its builtin (on scalars or vectors) or its region.
Combine reduction_combine(LoweringContext& c, const ir::Instruction& inst) {
  if (inst.op == Opcode::TileReduceWith) return region_combine(c, inst);
  const ir::ReduceKind kind = ir::ops::TileReduce(inst).kind();
  const ir::Type et = c.fn.type_of(inst.operands[0]).element();
  return [&c, kind, et](const Tuple& x, const Tuple& y) { return Tuple{reduce_combine(c, kind, et, x[0], y[0])}; };
}

}  // namespace

bool host_tile_exchange(const ir::Function& fn, const ir::Instruction& inst) {
  auto layout = [&](ir::ValueId v) { return fn.type_of(v).layout(); };
  switch (inst.op) {
    case Opcode::TileConvertLayout: {
      const TileLayout *from = layout(inst.operands[0]), *to = layout(inst.results[0]);
      return from && to && !from->same_placement(*to);
    }
    case Opcode::TilePermute:
    case Opcode::TileReshape:
    case Opcode::TileDot: return true;
    case Opcode::TileReduce:
    case Opcode::TileReduceWith: {
      const TileLayout* l = layout(inst.operands[0]);
      return l && reduce_spreads(*l, axis_of(inst));
    }
    case Opcode::TileScan: {
      const TileLayout* l = layout(inst.results[0]);
      const int k = axis_of(inst);
      return l && (l->is_slice() || l->tpw[k] > 1 || l->wpc[k] > 1);
    }
    default: return false;
  }
}

std::uint64_t host_exchange_bytes(const LoweringContext& c) {
  std::uint64_t most = 0;
  std::function<void(const ir::Region&)> walk = [&](const ir::Region& r) {
    for (ir::InstId id : r.body) {
      const ir::Instruction& inst = c.fn.inst(id);
      if (host_tile_exchange(c.fn, inst)) {
        std::uint64_t bytes = 0;
        for (const auto& [type, count] : dense_tiles(c.fn, inst))
          bytes += dense_tile_bytes(c.ctx, c.module.getDataLayout(), type, count);
        most = std::max(most, bytes);
      }
      for (const ir::Region& sub : inst.regions) walk(sub);
    }
  };
  walk(c.fn.body());
  return most;
}

HostExchange::HostExchange(LoweringContext& c, const ir::Instruction& inst, llvm::Value* memory) : c_(c), inst_(inst) {
  std::uint64_t offset = 0;
  for (const auto& [type, count] : dense_tiles(c.fn, inst)) {
    llvm::Type* elem = llvm_type(c.ctx, type);
    llvm::Type* stored = elem->isIntegerTy(1) ? c.b.getInt8Ty() : elem;
    tiles_.push_back({c.b.CreateConstInBoundsGEP1_64(c.b.getInt8Ty(), memory, offset), elem, stored});
    offset += dense_tile_bytes(c.ctx, c.module.getDataLayout(), type, count);
  }
}

namespace {

/// Where the element at (row, col) of a dot operand or accumulator goes: row-major in rows
/// of `cols`, after swapping a transposed operand's coordinates.
Position matrix(LoweringContext& c, std::int64_t cols, bool transposed) {
  return [&c, cols, transposed](const std::vector<llvm::Value*>& rc) {
    return c.b.CreateAdd(c.b.CreateMul(rc[transposed ? 1 : 0], i32(c, cols)), rc[transposed ? 0 : 1]);
  };
}

/// Where each element of a move's result comes from in its dense source.
Position move_source(LoweringContext& c, const ir::Instruction& inst) {
  const std::vector<std::int64_t> sshape = shape_of(c.fn, inst.operands[0]), rshape = shape_of(c.fn, inst.results[0]);
  if (inst.op == Opcode::TileReshape) return row_major(c, rshape);  // the same row-major position
  if (inst.op != Opcode::TilePermute) return row_major(c, sshape);
  const std::vector<int> perm = ir::ops::TilePermute(inst).perm();
  return [&c, perm, sshape](const std::vector<llvm::Value*>& dst) {
    std::vector<llvm::Value*> src(dst.size());
    for (std::size_t i = 0; i < dst.size(); ++i) src[static_cast<std::size_t>(perm[i])] = dst[i];
    return linear(c, src, sshape);
  };
}

std::vector<std::int64_t> without(std::vector<std::int64_t> shape, int k) {
  shape.erase(shape.begin() + k);
  return shape;
}

}  // namespace

void HostExchange::gather(const std::function<llvm::Value*(ir::ValueId)>& value) {
  auto& b = c_.b;
  if (inst_.op == Opcode::TileDot) {
    const ir::ops::TileDot dot(inst_);
    const DotShape s = dot_shape(c_.fn, inst_);
    auto to_f32 = [&](llvm::Value* x) {
      llvm::Type* t = x->getType();
      if (t->getScalarType()->isFloatTy()) return x;
      auto* vt = llvm::dyn_cast<llvm::FixedVectorType>(t);
      return b.CreateFPExt(x, vt ? static_cast<llvm::Type*>(llvm::FixedVectorType::get(b.getFloatTy(), vt->getNumElements())) : b.getFloatTy());
    };
    write_registers(c_, dot.a(), value(dot.a()), tiles_[0], matrix(c_, s.k, s.a_transposed), !s.a_transposed, to_f32);
    write_registers(c_, dot.b(), value(dot.b()), tiles_[1], matrix(c_, s.n, s.b_transposed), !s.b_transposed, to_f32);
    write_registers(c_, dot.acc(), value(dot.acc()), tiles_[2], matrix(c_, s.n, false), true);
    return;
  }
  // Reductions, scans and moves: each operand row-major in a tile of its own.
  for (std::size_t i = 0; i < inst_.operands.size(); ++i) {
    const ir::ValueId x = inst_.operands[i];
    write_registers(c_, x, value(x), tiles_[i], row_major(c_, shape_of(c_.fn, x)), true);
  }
}

std::vector<std::pair<ir::ValueId, llvm::Value*>> HostExchange::compute() {
  auto& b = c_.b;
  std::vector<std::pair<ir::ValueId, llvm::Value*>> uniform;
  switch (inst_.op) {
    case Opcode::TileReduce:
    case Opcode::TileReduceWith: {
      const std::size_t n = inst_.operands.size();
      const std::vector<Dense> in(tiles_.begin(), tiles_.begin() + static_cast<std::ptrdiff_t>(n)),
          out(tiles_.begin() + static_cast<std::ptrdiff_t>(n), tiles_.end());
      // Builtin combines also take vectors: 64 bytes of accumulators at a time.
      const int lanes = inst_.op == Opcode::TileReduce && !in[0].elem->isIntegerTy(1)
                            ? static_cast<int>(kAccumulatorBytes / c_.module.getDataLayout().getTypeAllocSize(in[0].elem))
                            : 1;
      dense_reduce(c_, in, out, shape_of(c_.fn, inst_.operands[0]), axis_of(inst_), reduction_combine(c_, inst_), lanes);
      for (std::size_t i = 0; i < n; ++i)
        if (!c_.fn.type_of(inst_.results[i]).is_tile()) uniform.emplace_back(inst_.results[i], load(b, out[i], i32(c_, 0)));
      break;
    }
    case Opcode::TileScan:
      dense_scan(c_, tiles_, shape_of(c_.fn, inst_.operands[0]), axis_of(inst_), region_combine(c_, inst_));
      break;
    case Opcode::TileDot: {  // C += A B, each row of C updated by rows of B times elements of A
      const DotShape s = dot_shape(c_.fn, inst_);
      const Dense &A = tiles_[0], &B = tiles_[1], &C = tiles_[2];
      loop(c_, s.m, [&](llvm::Value* i) {
        loop(c_, s.k, [&](llvm::Value* k) {
          llvm::Value* a = load(b, A, b.CreateAdd(b.CreateMul(i, i32(c_, s.k)), k));
          llvm::Value* brow = b.CreateMul(k, i32(c_, s.n));
          llvm::Value* crow = b.CreateMul(i, i32(c_, s.n));
          loop(c_, s.n, [&](llvm::Value* j) {
            llvm::Value* cij = b.CreateAdd(crow, j);
            llvm::Value* y = load(b, B, b.CreateAdd(brow, j));
            store(b, C, cij, b.CreateIntrinsic(llvm::Intrinsic::fma, {b.getFloatTy()}, {a, y, load(b, C, cij)}));
          });
        });
      });
      break;
    }
    default: break;  // a move: the source's dense tile is the result's
  }
  return uniform;
}

bool HostExchange::scatters() const {
  for (ir::ValueId v : inst_.results)
    if (c_.fn.type_of(v).is_tile()) return true;
  return false;
}

void HostExchange::scatter(const std::function<void(ir::ValueId, llvm::Value*)>& keep) {
  switch (inst_.op) {
    case Opcode::TileReduce:
    case Opcode::TileReduceWith: {
      const std::size_t n = inst_.operands.size();
      const std::vector<std::int64_t> out_shape = without(shape_of(c_.fn, inst_.operands[0]), axis_of(inst_));
      for (std::size_t i = 0; i < n; ++i)
        if (c_.fn.type_of(inst_.results[i]).is_tile())
          keep(inst_.results[i], read_registers(c_, inst_.results[i], tiles_[n + i], row_major(c_, out_shape), true));
      return;
    }
    case Opcode::TileScan:
      for (std::size_t i = 0; i < inst_.results.size(); ++i)
        keep(inst_.results[i], read_registers(c_, inst_.results[i], tiles_[i], row_major(c_, shape_of(c_.fn, inst_.results[i])), true));
      return;
    case Opcode::TileDot: {
      const DotShape s = dot_shape(c_.fn, inst_);
      keep(inst_.results[0], read_registers(c_, inst_.results[0], tiles_[2], matrix(c_, s.n, false), true));
      return;
    }
    default:
      keep(inst_.results[0], read_registers(c_, inst_.results[0], tiles_[0], move_source(c_, inst_), inst_.op != Opcode::TilePermute));
  }
}

}  // namespace cutlet::backend
