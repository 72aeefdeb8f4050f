// Tile kernels built with the IR builder, shared by the tests of the layout passes.
#pragma once

#include <array>
#include <span>

#include "cutlet/ir/builder.h"

namespace cutlet::ir::test {

/// Offsets r[:, None] * stride + col[None, :] of a row-major tile of `shape`.
inline ValueId offsets_grid(Builder& b, ValueId r, ValueId col, std::span<const std::int64_t> shape, std::int64_t stride) {
  ValueId rr = b.tile_broadcast(b.tile_expand_dims(r, 1), shape);
  ValueId cc = b.tile_broadcast(b.tile_expand_dims(col, 0), shape);
  return b.binary(Opcode::Add, b.binary(Opcode::Mul, rr, b.tile_splat(b.const_int(Type::i32(), stride), shape)), cc);
}

/// C[64, 64] = sum over k of A[64, 32] B[32, 64] (bf16) + bias, in a loop over K; the
/// epilogue adds a bias row and stores through offsets built from aranges.
inline Function gemm_with_bias() {
  Function f("gemm");
  f.set_tile_warps(4);
  Builder b(f);
  ValueId a = b.add_param(Type::pointer(Type::bf16()));
  ValueId bp = b.add_param(Type::pointer(Type::bf16()));
  ValueId bias = b.add_param(Type::pointer(Type::f32()));
  ValueId c = b.add_param(Type::pointer(Type::f32()));
  ValueId k_end = b.add_param(Type::i32());
  const std::array<std::int64_t, 2> mn{64, 64}, mk{64, 32}, kn{32, 64};
  ValueId rows = b.tile_arange(64), cols = b.tile_arange(64), ks = b.tile_arange(32);
  ValueId zero = b.tile_splat(b.const_float(Type::f32(), 0), mn);
  const std::array<ValueId, 1> init{zero};
  auto acc = b.for_(b.const_int(Type::i32(), 0), k_end, b.const_int(Type::i32(), 32), init, [&](std::span<const ValueId> args) {
    ValueId kk = b.binary(Opcode::Add, b.tile_splat(args[0], std::array<std::int64_t, 1>{32}), ks);
    ValueId ta = b.tile_load(a, offsets_grid(b, rows, kk, mk, 1024));
    ValueId tb = b.tile_load(bp, offsets_grid(b, kk, cols, kn, 64));
    return std::vector<ValueId>{b.tile_dot(ta, tb, args[1])};
  });
  ValueId brow = b.tile_broadcast(b.tile_expand_dims(b.tile_load(bias, cols), 0), mn);
  b.tile_store(c, offsets_grid(b, rows, cols, mn, 64), b.binary(Opcode::Add, acc[0], brow));
  return f;
}

/// A row softmax of x[16, 128] bf16 in f32: the row max and sum (slices) come back to the rows
/// by expand_dims and broadcast. The result is stored through offsets that went through two
/// permutes (made in the default layout of 4 elements per thread, where a bf16 load alone
/// would take 8), then transposed.
inline Function softmax_transposed_store() {
  Function f("softmax");
  f.set_tile_warps(4);
  Builder b(f);
  ValueId x = b.add_param(Type::pointer(Type::bf16()));
  ValueId y = b.add_param(Type::pointer(Type::f32()));
  const std::array<std::int64_t, 2> shape{16, 128}, tshape{128, 16};
  ValueId r = b.tile_arange(16), c = b.tile_arange(128);
  ValueId off = b.binary(Opcode::Add,
                         b.binary(Opcode::Mul, b.tile_broadcast(b.tile_expand_dims(r, 1), shape),
                                  b.tile_splat(b.const_int(Type::i32(), 128), shape)),
                         b.tile_broadcast(b.tile_expand_dims(c, 0), shape));
  ValueId v = b.cast(Type::tile(shape, Type::f32()), b.tile_load(x, off));
  ValueId mx = b.tile_broadcast(b.tile_expand_dims(b.tile_reduce(ReduceKind::Max, v, 1), 1), shape);
  const std::array<ValueId, 1> d{b.binary(Opcode::Sub, v, mx)};
  ValueId e = b.math(MathFn::Exp, d);
  ValueId sum = b.tile_broadcast(b.tile_expand_dims(b.tile_reduce(ReduceKind::Sum, e, 1), 1), shape);
  ValueId p = b.binary(Opcode::Div, e, sum);
  const std::array<int, 2> swap{1, 0};
  b.tile_store(y, b.tile_permute(b.tile_permute(off, swap), swap), p);
  ValueId toff = b.tile_load(b.add_param(Type::pointer(Type::i32())), b.tile_permute(off, swap));
  b.tile_store(y, toff, b.tile_permute(p, swap));
  ValueId o = b.binary(Opcode::Add, b.tile_permute(off, swap), b.tile_splat(b.const_int(Type::i32(), 1), tshape));
  b.tile_store(y, o, b.cast(Type::tile(tshape, Type::f32()), toff));
  return f;
}

/// A tile t loaded once and used twice: added to a dot's result, which lives in the mma
/// layout, and stored as it is through offsets that a permute made in the default layout. One
/// of the uses must take t through a conversion.
inline Function one_load_two_layouts() {
  Function f("two_uses");
  f.set_tile_warps(4);
  Builder b(f);
  ValueId x = b.add_param(Type::pointer(Type::f32()));
  ValueId h = b.add_param(Type::f16());
  const std::array<std::int64_t, 2> shape{64, 64};
  ValueId off = b.tile_arange(64);
  off = b.binary(Opcode::Add,
                 b.binary(Opcode::Mul, b.tile_broadcast(b.tile_expand_dims(off, 1), shape),
                          b.tile_splat(b.const_int(Type::i32(), 64), shape)),
                 b.tile_broadcast(b.tile_expand_dims(b.tile_arange(64), 0), shape));
  ValueId t = b.tile_load(x, off);
  ValueId d = b.tile_dot(b.tile_splat(h, shape), b.tile_splat(h, shape), b.tile_splat(b.const_float(Type::f32(), 0), shape));
  const std::array<int, 2> swap{1, 0};
  b.tile_store(x, b.tile_permute(b.tile_permute(off, swap), swap), t);
  b.tile_store(x, off, b.binary(Opcode::Add, d, t));
  return f;
}

/// C[64, 64] = sum over k of A[64, 32] B[32, 64] (bf16), the way a Triton matmul's loop
/// reads its operands: 16-byte aligned tensors (record fields) indexed by aranges plus the
/// loop index. The loop also multiplies q[64, 32], loaded before the loop (a dot operand from
/// outside it), by B read again, and sums a row of 32 f32 scales per k-step (a load no dot
/// reads).
inline Function pipelined_gemm() {
  Function f("pipelined");
  f.set_tile_warps(4);
  Builder b(f);
  ValueId args = b.add_param(Type::record(48, 8));
  ValueId a = b.field(args, 0, Type::pointer(Type::bf16()), 16);
  ValueId bp = b.field(args, 8, Type::pointer(Type::bf16()), 16);
  ValueId q = b.field(args, 16, Type::pointer(Type::bf16()), 16);
  ValueId scale = b.field(args, 24, Type::pointer(Type::f32()), 16);
  ValueId c = b.field(args, 32, Type::pointer(Type::f32()), 16);
  ValueId k_end = b.field(args, 40, Type::i32());
  const std::array<std::int64_t, 2> mn{64, 64}, mk{64, 32}, kn{32, 64};
  const std::array<std::int64_t, 1> k32{32};
  ValueId rows = b.tile_arange(64), cols = b.tile_arange(64), ks = b.tile_arange(32);
  ValueId tq = b.tile_load(q, offsets_grid(b, rows, ks, mk, 32));
  const std::array<ValueId, 3> init{b.tile_splat(b.const_float(Type::f32(), 0), mn), b.tile_splat(b.const_float(Type::f32(), 0), mn),
                                    b.tile_splat(b.const_float(Type::f32(), 0), k32)};
  auto out = b.for_(b.const_int(Type::i32(), 0), k_end, b.const_int(Type::i32(), 32), init, [&](std::span<const ValueId> it) {
    ValueId kk = b.binary(Opcode::Add, b.tile_splat(it[0], k32), ks);
    ValueId ta = b.tile_load(a, offsets_grid(b, rows, kk, mk, 1024));
    ValueId tb = b.tile_load(bp, offsets_grid(b, kk, cols, kn, 64));
    ValueId tb2 = b.tile_load(bp, offsets_grid(b, kk, cols, kn, 64));  // each copy feeds one dot
    ValueId s = b.tile_load(scale, kk);
    return std::vector<ValueId>{b.tile_dot(ta, tb, it[1]), b.tile_dot(tq, tb2, it[2]), b.binary(Opcode::Add, it[3], s)};
  });
  ValueId sums = b.tile_broadcast(b.tile_expand_dims(out[2], 0), std::array<std::int64_t, 2>{64, 32});
  b.tile_store(c, offsets_grid(b, rows, cols, mn, 64), b.binary(Opcode::Add, out[0], out[1]));
  b.tile_store(c, offsets_grid(b, rows, ks, mk, 64), sums);
  return f;
}

/// A plain GEMM's K loop, C = A @ B (bf16 [64, 64] tiles, K in steps of 32): both dot
/// operands are copied into rings, and the dot is pipelined k-step by k-step.
inline Function pipelined_plain_gemm() {
  Function f("pipelined_plain");
  f.set_tile_warps(4);
  Builder b(f);
  ValueId args = b.add_param(Type::record(32, 8));
  ValueId a = b.field(args, 0, Type::pointer(Type::bf16()), 16);
  ValueId bp = b.field(args, 8, Type::pointer(Type::bf16()), 16);
  ValueId c = b.field(args, 16, Type::pointer(Type::f32()), 16);
  ValueId k_end = b.field(args, 24, Type::i32());
  const std::array<std::int64_t, 2> mn{64, 64}, mk{64, 32}, kn{32, 64};
  const std::array<std::int64_t, 1> k32{32};
  ValueId rows = b.tile_arange(64), cols = b.tile_arange(64), ks = b.tile_arange(32);
  const std::array<ValueId, 1> init{b.tile_splat(b.const_float(Type::f32(), 0), mn)};
  auto out = b.for_(b.const_int(Type::i32(), 0), k_end, b.const_int(Type::i32(), 32), init, [&](std::span<const ValueId> it) {
    ValueId kk = b.binary(Opcode::Add, b.tile_splat(it[0], k32), ks);
    ValueId ta = b.tile_load(a, offsets_grid(b, rows, kk, mk, 1024));
    ValueId tb = b.tile_load(bp, offsets_grid(b, kk, cols, kn, 64));
    return std::vector<ValueId>{b.tile_dot(ta, tb, it[1])};
  });
  b.tile_store(c, offsets_grid(b, rows, cols, mn, 64), out[0]);
  return f;
}

/// Attention's shape of loops: q[64, 32] loaded once, then two loops one after the other (as
/// the two stages of causal attention), each summing q @ k over blocks of k[32, 64] copied
/// into a ring.
inline Function two_loops_one_operand() {
  Function f("two_loops");
  f.set_tile_warps(4);
  Builder b(f);
  ValueId args = b.add_param(Type::record(32, 8));
  ValueId q = b.field(args, 0, Type::pointer(Type::bf16()), 16);
  ValueId k = b.field(args, 8, Type::pointer(Type::bf16()), 16);
  ValueId c = b.field(args, 16, Type::pointer(Type::f32()), 16);
  ValueId n = b.field(args, 24, Type::i32());
  const std::array<std::int64_t, 2> mn{64, 64}, mk{64, 32}, kn{32, 64};
  ValueId rows = b.tile_arange(64), ks = b.tile_arange(32);
  ValueId tq = b.tile_load(q, offsets_grid(b, rows, ks, mk, 32));
  std::array<ValueId, 1> acc{b.tile_splat(b.const_float(Type::f32(), 0), mn)};
  for (int loop = 0; loop < 2; ++loop) {
    ValueId split = b.binary(Opcode::Mul, n, b.const_int(Type::i32(), 64));  // aligned, so that k is copied
    ValueId lb = loop == 0 ? b.const_int(Type::i32(), 0) : split;
    ValueId ub = loop == 0 ? split : b.binary(Opcode::Mul, n, b.const_int(Type::i32(), 128));
    acc[0] = b.for_(lb, ub, b.const_int(Type::i32(), 64), acc, [&](std::span<const ValueId> it) {
      ValueId cols = b.binary(Opcode::Add, b.tile_splat(it[0], std::array<std::int64_t, 1>{64}), b.tile_arange(64));
      ValueId tk = b.tile_load(k, offsets_grid(b, ks, cols, kn, 4096));
      return std::vector<ValueId>{b.tile_dot(tq, tk, it[1])};
    })[0];
  }
  b.tile_store(c, offsets_grid(b, rows, b.tile_arange(64), mn, 64), acc[0]);
  return f;
}

/// The instructions of opcode `op` in f's region r, at any depth.
inline int count_ops(const Function& f, const Region& r, Opcode op) {
  int n = 0;
  for (InstId id : r.body) {
    n += f.inst(id).op == op;
    for (const Region& sub : f.inst(id).regions) n += count_ops(f, sub, op);
  }
  return n;
}

/// The convert_layout ops of f's body, at any depth.
inline int conversions(const Function& f, const Region& r) {
  int n = 0;
  for (InstId id : r.body) {
    n += f.inst(id).op == Opcode::TileConvertLayout;
    for (const Region& sub : f.inst(id).regions) n += conversions(f, sub);
  }
  return n;
}

/// Whether every tile value placed in f's regions has a layout.
inline bool all_placed(const Function& f, const Region& r) {
  for (ValueId a : r.args)
    if (f.type_of(a).is_tile() && !f.type_of(a).layout()) return false;
  for (InstId id : r.body) {
    for (ValueId v : f.inst(id).results)
      if (f.type_of(v).is_tile() && !f.type_of(v).layout()) return false;
    for (const Region& sub : f.inst(id).regions)
      if (!all_placed(f, sub)) return false;
  }
  return true;
}

}  // namespace cutlet::ir::test
