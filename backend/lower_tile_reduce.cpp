// Lowering of tile reductions and scans along an axis, for builtin combines (sum, prod, min,
// max) and user combine regions over tuples of tiles: first within each thread's registers,
// then across the lanes of a warp with shuffles, then across warps through shared memory.
#include <algorithm>
#include <functional>

#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/IntrinsicsNVPTX.h>

#include "cutlet/error.h"
#include "tile_support.h"

namespace cutlet::backend {

llvm::Value* reduce_combine(LoweringContext& c, ir::ReduceKind kind, ir::Type t, llvm::Value* a, llvm::Value* b) {
  auto& B = c.b;
  const bool fp = t.is_float(), sgn = t.is_signed_integer();
  switch (kind) {
    case ir::ReduceKind::Sum: return fp ? B.CreateFAdd(a, b) : B.CreateAdd(a, b);
    case ir::ReduceKind::Prod: return fp ? B.CreateFMul(a, b) : B.CreateMul(a, b);
    case ir::ReduceKind::Min:
      return fp ? B.CreateMinNum(a, b) : B.CreateBinaryIntrinsic(sgn ? llvm::Intrinsic::smin : llvm::Intrinsic::umin, a, b);
    case ir::ReduceKind::Max:
      return fp ? B.CreateMaxNum(a, b) : B.CreateBinaryIntrinsic(sgn ? llvm::Intrinsic::smax : llvm::Intrinsic::umax, a, b);
  }
  return nullptr;
}

Combine region_combine(LoweringContext& c, const ir::Instruction& inst) {
  return [&c, &inst](const Tuple& a, const Tuple& b) {
    Tuple args = a;
    args.insert(args.end(), b.begin(), b.end());
    return inline_region(c, inst.regions[0], args);
  };
}

std::pair<std::int64_t, std::int64_t> reduce_lanes_and_warps(const TileLayout& l, int k) {
  const std::int64_t extent = l.shape[static_cast<std::size_t>(k)];
  return {std::clamp<std::int64_t>(extent / l.spt[k], 1, l.tpw[k]),
          std::clamp<std::int64_t>(extent / (std::int64_t{l.spt[k]} * l.tpw[k] * l.lane_reps_along(k)), 1, l.wpc[k])};
}

namespace {

/// Each value of `v` shuffled over the whole warp.
Tuple shuffle_tuple(LoweringContext& c, ir::ShuffleKind kind, const Tuple& v, llvm::Value* lane_or_delta) {
  Tuple r;
  for (auto* x : v) r.push_back(warp_shuffle(c, kind, c.b.getInt32(0xffffffffu), x, lane_or_delta));
  return r;
}

Tuple select_tuple(LoweringContext& c, llvm::Value* cond, const Tuple& a, const Tuple& b) {
  Tuple r;
  for (std::size_t i = 0; i < a.size(); ++i) r.push_back(c.b.CreateSelect(cond, a[i], b[i]));
  return r;
}

/// Reduces tuples of registers `regs[r]` of layout l along k; returns the tuples of the
/// result registers (layout slice_layout(l, k)).
std::vector<Tuple> reduce_regs(LoweringContext& c, const std::vector<Tuple>& regs, const TileLayout& l, int k,
                               const Combine& combine) {
  auto& b = c.b;
  const TileLayout out = slice_layout(l, k);
  const std::int64_t extent = l.shape[k];
  // 1. In the thread: the registers along k that hold distinct elements.
  std::vector<Tuple> part(out.num_regs());
  for (int r = 0; r < l.num_regs(); ++r) {
    auto j = l.reg_indices(r);
    if (j[k] % l.spt[k] >= extent) continue;  // a copy of an element this thread already has
    Tuple& p = part[out.reg_of(j)];
    p = p.empty() ? regs[r] : combine(p, regs[r]);
  }
  // 2. Across the lanes holding different elements along k (butterfly: every lane gets it).
  const int lane_stride = l.lane_stride(k), warp_stride = l.warp_stride(k);
  const auto [lanes, warps] = reduce_lanes_and_warps(l, k);
  for (std::int64_t off = lanes / 2; off >= 1; off /= 2)
    for (auto& p : part)
      p = combine(p, shuffle_tuple(c, ir::ShuffleKind::Xor, p, b.getInt32(static_cast<std::uint32_t>(off * lane_stride))));
  // 3. Across the warps along k, through shared memory.
  if (warps > 1) {
    const std::vector<std::int64_t> oshape = out.tile_shape();
    std::int64_t count = warps;
    for (auto e : oshape) count *= e;
    const std::size_t n = part[0].size();
    std::vector<llvm::Value*> bufs;
    std::vector<llvm::Type*> slot_types;
    for (std::size_t i = 0; i < n; ++i) {
      llvm::Type* t = part[0][i]->getType();
      slot_types.push_back(t->isIntegerTy(1) ? b.getInt8Ty() : t);
      bufs.push_back(shared_buffer(c, slot_types.back(), count));
    }
    llvm::Value* tid = special_register(c, ir::SpecialReg::ThreadIdxX);
    // Warps beyond `warps` along k hold copies; they write (the same values) to the slots of
    // the warps they copy.
    llvm::Value* warp_k =
        b.CreateAnd(b.CreateLShr(b.CreateLShr(tid, 5), __builtin_ctz(warp_stride)), static_cast<std::uint64_t>(warps - 1));
    auto coords = thread_coords(c, out);
    std::vector<llvm::Value*> base(part.size());
    for (std::size_t r = 0; r < part.size(); ++r) {
      llvm::Value* at = oshape.empty() ? b.getInt32(0) : linear(c, element_coords(b, out, coords, static_cast<int>(r)), oshape);
      base[r] = b.CreateMul(at, b.getInt32(static_cast<std::uint32_t>(warps)));
    }
    auto slot = [&](std::size_t i, llvm::Value* at) { return b.CreateInBoundsGEP(slot_types[i], bufs[i], at); };
    barrier(c);
    for (std::size_t r = 0; r < part.size(); ++r)
      for (std::size_t i = 0; i < n; ++i) {
        llvm::Value* x = part[r][i];
        if (x->getType()->isIntegerTy(1)) x = b.CreateZExt(x, b.getInt8Ty());
        b.CreateStore(x, slot(i, b.CreateAdd(base[r], warp_k)));
      }
    barrier(c);
    for (std::size_t r = 0; r < part.size(); ++r) {
      Tuple acc;
      for (std::int64_t w = 0; w < warps; ++w) {
        Tuple x;
        for (std::size_t i = 0; i < n; ++i) {
          llvm::Type* t = part[r][i]->getType();
          llvm::Type* st = t->isIntegerTy(1) ? b.getInt8Ty() : t;
          llvm::Value* v = b.CreateLoad(st, slot(i, b.CreateAdd(base[r], b.getInt32(static_cast<std::uint32_t>(w)))));
          x.push_back(t->isIntegerTy(1) ? b.CreateTrunc(v, t) : v);
        }
        acc = acc.empty() ? x : combine(acc, x);
      }
      part[r] = acc;
    }
  }
  return part;
}

/// The tuples of registers of tiles `inputs` in one blocked layout (returned in *l).
std::vector<Tuple> gather(LoweringContext& c, const std::vector<ir::ValueId>& inputs, TileLayout* l) {
  blocked(c, inputs[0], l);
  std::vector<std::vector<llvm::Value*>> comps;
  for (ir::ValueId v : inputs) comps.push_back(unpack(c, tile_in_layout(c, v, *l)));
  std::vector<Tuple> regs(l->num_regs());
  for (int r = 0; r < l->num_regs(); ++r)
    for (auto& comp : comps) regs[r].push_back(comp[r]);
  return regs;
}

/// Sets results from tuples of registers in layout `l` (scalars when `scalar`).
void scatter(LoweringContext& c, const ir::Instruction& inst, const std::vector<Tuple>& regs, const TileLayout& l,
             bool scalar) {
  for (std::size_t i = 0; i < inst.results.size(); ++i) {
    if (scalar) {
      c.values[inst.results[i]] = regs[0][i];
      continue;
    }
    std::vector<llvm::Value*> comp;
    for (const auto& t : regs) comp.push_back(t[i]);
    c.values[inst.results[i]] = pack(c, comp[0]->getType(), comp);
  }
}

llvm::Value* lower_reduce(LoweringContext& c, const ir::Instruction& inst) {
  const ir::ops::TileReduce reduce(inst);
  const auto kind = reduce.kind();
  const int k = reduce.axis();
  ir::Type et = c.fn.type_of(reduce.source()).element();
  TileLayout l;
  auto regs = gather(c, {reduce.source()}, &l);
  auto out = reduce_regs(c, regs, l, k, [&](const Tuple& a, const Tuple& b) {
    return Tuple{reduce_combine(c, kind, et, a[0], b[0])};
  });
  scatter(c, inst, out, slice_layout(l, k), l.rank() == 1);
  return c.values[inst.results[0]];
}

llvm::Value* lower_reduce_with(LoweringContext& c, const ir::Instruction& inst) {
  const ir::ops::TileReduceWith reduce(inst);
  const int k = reduce.axis();
  TileLayout l;
  auto regs = gather(c, {reduce.inputs().begin(), reduce.inputs().end()}, &l);
  auto out = reduce_regs(c, regs, l, k, region_combine(c, inst));
  scatter(c, inst, out, slice_layout(l, k), l.rank() == 1);
  return c.values[inst.results[0]];
}

/// Inclusive scan along k of tuples `regs` in layout l, which holds no copies along k.
std::vector<Tuple> scan_regs(LoweringContext& c, std::vector<Tuple> regs, const TileLayout& l, int k, const Combine& combine) {
  auto& b = c.b;
  const int lane_stride = l.lane_stride(k), warp_stride = l.warp_stride(k);
  const int reps = l.regs_along(k) / l.spt[k];
  llvm::Value* tid = special_register(c, ir::SpecialReg::ThreadIdxX);
  llvm::Value* lane = b.CreateAnd(tid, 31);
  llvm::Value* lane_k = b.CreateAnd(b.CreateLShr(lane, __builtin_ctz(lane_stride)), l.tpw[k] - 1);
  llvm::Value* warp_k = b.CreateAnd(b.CreateLShr(b.CreateLShr(tid, 5), __builtin_ctz(warp_stride)), l.wpc[k] - 1);
  // The lines: register tuples with equal indices off k, walked by their index along k.
  const TileLayout line_layout = slice_layout(l, k);
  const int lines = line_layout.num_regs();
  auto reg = [&](int line, int jk) {
    auto j = line_layout.reg_indices(line);
    j[k] = jk;
    return l.reg_of(j);
  };
  // 1. In the thread, per repetition: a sequential scan of its spt elements.
  for (int line = 0; line < lines; ++line)
    for (int rep = 0; rep < reps; ++rep)
      for (int e = 1; e < l.spt[k]; ++e)
        regs[reg(line, rep * l.spt[k] + e)] = combine(regs[reg(line, rep * l.spt[k] + e - 1)], regs[reg(line, rep * l.spt[k] + e)]);
  // 2. Across lanes along k: an inclusive scan of the chunk totals (Hillis-Steele with shfl.up).
  std::vector<std::vector<Tuple>> incl(lines, std::vector<Tuple>(reps));
  for (int line = 0; line < lines; ++line)
    for (int rep = 0; rep < reps; ++rep) {
      Tuple v = regs[reg(line, rep * l.spt[k] + l.spt[k] - 1)];
      for (int d = 1; d < l.tpw[k]; d *= 2) {
        Tuple up = shuffle_tuple(c, ir::ShuffleKind::Up, v, b.getInt32(static_cast<std::uint32_t>(d * lane_stride)));
        v = select_tuple(c, b.CreateICmpUGE(lane_k, b.getInt32(static_cast<std::uint32_t>(d))), combine(up, v), v);
      }
      incl[line][rep] = v;
    }
  // The prefix before this lane (valid for lane_k >= 1), and the warp's total along k.
  llvm::Value* first_of_group = b.CreateAnd(lane, b.getInt32(~static_cast<std::uint32_t>((l.tpw[k] - 1) * lane_stride)));
  llvm::Value* last_lane = b.CreateOr(first_of_group, b.getInt32(static_cast<std::uint32_t>((l.tpw[k] - 1) * lane_stride)));
  std::vector<std::vector<Tuple>> before(lines, std::vector<Tuple>(reps)), total(lines, std::vector<Tuple>(reps));
  for (int line = 0; line < lines; ++line)
    for (int rep = 0; rep < reps; ++rep) {
      if (l.tpw[k] == 1) {  // one lane along k: nothing before it in its warp (unread), its total
        before[line][rep] = total[line][rep] = incl[line][rep];
        continue;
      }
      before[line][rep] = shuffle_tuple(c, ir::ShuffleKind::Up, incl[line][rep], b.getInt32(static_cast<std::uint32_t>(lane_stride)));
      total[line][rep] = shuffle_tuple(c, ir::ShuffleKind::Idx, incl[line][rep], last_lane);
    }
  llvm::Value* has_lane_prefix = b.CreateICmpUGE(lane_k, b.getInt32(1));
  // 3. Across warps along k: each warp's totals through shared memory.
  std::vector<std::vector<Tuple>> warp_before(lines, std::vector<Tuple>(reps)), seg_total = total;
  const std::size_t n = regs[0].size();
  if (l.wpc[k] > 1) {
    const int W = l.wpc[k];
    std::vector<llvm::Value*> bufs;
    std::vector<llvm::Type*> slot_types;
    for (std::size_t i = 0; i < n; ++i) {
      llvm::Type* t = regs[0][i]->getType();
      std::int64_t count = std::int64_t{reps} * W;
      for (auto e : line_layout.tile_shape()) count *= e;
      slot_types.push_back(t->isIntegerTy(1) ? b.getInt8Ty() : t);
      bufs.push_back(shared_buffer(c, slot_types.back(), count));
    }
    // A slot per (line, repetition, warp along k), lines numbered by their coordinates off k.
    auto line_coords = thread_coords(c, line_layout);
    const std::vector<std::int64_t> line_shape = line_layout.tile_shape();
    std::vector<llvm::Value*> line_at(lines);
    for (int line = 0; line < lines; ++line)
      line_at[line] = line_shape.empty() ? b.getInt32(0) : linear(c, element_coords(b, line_layout, line_coords, line), line_shape);
    auto slot = [&](std::size_t i, int line, int rep, llvm::Value* w) {
      llvm::Value* at = b.CreateAdd(b.CreateMul(b.CreateAdd(b.CreateMul(line_at[line], b.getInt32(static_cast<std::uint32_t>(reps))),
                                                            b.getInt32(static_cast<std::uint32_t>(rep))),
                                                b.getInt32(static_cast<std::uint32_t>(W))),
                                    w);
      return b.CreateInBoundsGEP(slot_types[i], bufs[i], at);
    };
    auto store = [&](llvm::Value* x, llvm::Value* p) {
      if (x->getType()->isIntegerTy(1)) x = b.CreateZExt(x, b.getInt8Ty());
      b.CreateStore(x, p);
    };
    auto load = [&](llvm::Type* t, llvm::Value* p) -> llvm::Value* {
      if (t->isIntegerTy(1)) return b.CreateTrunc(b.CreateLoad(b.getInt8Ty(), p), t);
      return b.CreateLoad(t, p);
    };
    barrier(c);
    for (int line = 0; line < lines; ++line)
      for (int rep = 0; rep < reps; ++rep)
        for (std::size_t i = 0; i < n; ++i) store(total[line][rep][i], slot(i, line, rep, warp_k));
    barrier(c);
    for (int line = 0; line < lines; ++line)
      for (int rep = 0; rep < reps; ++rep) {
        Tuple prefix, all;
        for (int w = 0; w < W; ++w) {
          Tuple x;
          for (std::size_t i = 0; i < n; ++i) x.push_back(load(regs[0][i]->getType(), slot(i, line, rep, b.getInt32(static_cast<std::uint32_t>(w)))));
          // prefix: the warps before this one (runs over all w, kept only while w < warp_k).
          if (w == 0) {
            prefix = x;
          } else {
            Tuple next = combine(prefix, x);
            prefix = select_tuple(c, b.CreateICmpULT(b.getInt32(static_cast<std::uint32_t>(w)), warp_k), next, prefix);
          }
          all = all.empty() ? x : combine(all, x);
        }
        warp_before[line][rep] = prefix;
        seg_total[line][rep] = all;
      }
  }
  llvm::Value* has_warp_prefix = b.CreateICmpUGE(warp_k, b.getInt32(1));
  // 4. Everything before each element: earlier repetitions, earlier warps, earlier lanes.
  for (int line = 0; line < lines; ++line) {
    Tuple carry;  // the totals of the repetitions before
    for (int rep = 0; rep < reps; ++rep) {
      for (int e = 0; e < l.spt[k]; ++e) {
        Tuple& v = regs[reg(line, rep * l.spt[k] + e)];
        v = select_tuple(c, has_lane_prefix, combine(before[line][rep], v), v);
        if (l.wpc[k] > 1) v = select_tuple(c, has_warp_prefix, combine(warp_before[line][rep], v), v);
        if (!carry.empty()) v = combine(carry, v);
      }
      carry = carry.empty() ? seg_total[line][rep] : combine(carry, seg_total[line][rep]);
    }
  }
  return regs;
}

llvm::Value* lower_scan(LoweringContext& c, const ir::Instruction& inst) {
  const ir::ops::TileScan scan(inst);
  const int k = scan.axis();
  // The layout assign-layouts chose: the operand's, or one holding the whole axis per thread.
  const TileLayout l = result_layout(c, inst.results[0]);
  const std::vector<ir::ValueId> inputs(scan.inputs().begin(), scan.inputs().end());
  std::vector<std::vector<llvm::Value*>> comps;
  for (ir::ValueId v : inputs) comps.push_back(unpack(c, tile_in_layout(c, v, l)));
  std::vector<Tuple> regs(l.num_regs());
  for (int r = 0; r < l.num_regs(); ++r)
    for (auto& comp : comps) regs[r].push_back(comp[r]);
  auto out = scan_regs(c, std::move(regs), l, k, region_combine(c, inst));
  scatter(c, inst, out, l, false);
  return c.values[inst.results[0]];
}

}  // namespace

void register_tile_reduce(LoweringTable& t) {
  t.set(ir::Opcode::TileReduce, lower_reduce);
  t.set(ir::Opcode::TileReduceWith, lower_reduce_with);
  t.set(ir::Opcode::TileScan, lower_scan);
}

}  // namespace cutlet::backend
