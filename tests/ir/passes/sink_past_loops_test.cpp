// Tests of sink_past_loops: pure instructions used only after a loop move past it, next to
// their first use; what the loop reads, effects and loads stay where they are.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <vector>

#include "cutlet/ir/builder.h"
#include "cutlet/ir/passes/passes.h"
#include "cutlet/ir/printer.h"
#include "cutlet/ir/verifier.h"

namespace cutlet::ir {
namespace {

/// The position in the function's body of the instruction defining `v`, or of the loop.
std::size_t position(const Function& f, ValueId v) {
  const auto& body = f.body().body;
  for (std::size_t k = 0; k < body.size(); ++k)
    for (ValueId r : f.inst(body[k]).results)
      if (r == v) return k;
  ADD_FAILURE() << "no top-level definition of %" << v;
  return body.size();
}
std::size_t loop_position(const Function& f) {
  const auto& body = f.body().body;
  return static_cast<std::size_t>(std::find_if(body.begin(), body.end(), [&](InstId id) { return f.inst(id).op == Opcode::For; }) -
                                  body.begin());
}

struct Kernel {
  Function f{"k"};
  ValueId store_offsets, loop_bound, loaded;
};

/// out[rows * 64 + cols] = sum over i < n of x[i] + x[0], with the store's offsets, and a load,
/// written before the loop, and the loop bound computed before it too.
Kernel epilogue_written_first() {
  Kernel k;
  k.f.set_tile_warps(4);
  Builder b(k.f);
  ValueId x = b.add_param(Type::pointer(Type::f32()));
  ValueId out = b.add_param(Type::pointer(Type::f32()));
  ValueId n = b.add_param(Type::i32());
  const std::array<std::int64_t, 2> shape{64, 64};
  ValueId rows = b.tile_broadcast(b.tile_expand_dims(b.tile_arange(64), 1), shape);
  ValueId cols = b.tile_broadcast(b.tile_expand_dims(b.tile_arange(64), 0), shape);
  k.store_offsets = b.binary(Opcode::Add, b.binary(Opcode::Mul, rows, b.tile_splat(b.const_int(Type::i32(), 64), shape)), cols);
  k.loaded = b.load(x);
  k.loop_bound = b.binary(Opcode::Mul, n, b.const_int(Type::i32(), 2));
  const std::array<ValueId, 1> init{b.const_float(Type::f32(), 0)};
  auto sum = b.for_(b.const_int(Type::i32(), 0), k.loop_bound, b.const_int(Type::i32(), 1), init, [&](std::span<const ValueId> it) {
    return std::vector<ValueId>{b.binary(Opcode::Add, it[1], b.load(b.ptr_add(x, it[0])))};
  });
  b.tile_store(out, k.store_offsets, b.tile_splat(b.binary(Opcode::Add, sum[0], k.loaded), shape));
  return k;
}

TEST(SinkPastLoopsTest, TheEpiloguesIndexArithmeticMovesPastTheLoop) {
  Kernel k = epilogue_written_first();
  ASSERT_LT(position(k.f, k.store_offsets), loop_position(k.f));
  Function f = sink_past_loops(std::move(k.f));
  EXPECT_NO_THROW(verify(f));
  const std::size_t loop = loop_position(f);
  EXPECT_GT(position(f, k.store_offsets), loop);
  // Its operands followed it: nothing of the offsets is left before the loop.
  std::vector<ValueId> stack{k.store_offsets};
  while (!stack.empty()) {
    const ValueId v = stack.back();
    stack.pop_back();
    const Instruction* d = f.def_of(v);
    if (!d || d->op == Opcode::Const) continue;
    EXPECT_GT(position(f, v), loop) << print(f);
    stack.insert(stack.end(), d->operands.begin(), d->operands.end());
  }
}

TEST(SinkPastLoopsTest, WhatTheLoopReadsAndLoadsStayBeforeIt) {
  Kernel k = epilogue_written_first();
  Function f = sink_past_loops(std::move(k.f));
  const std::size_t loop = loop_position(f);
  EXPECT_LT(position(f, k.loop_bound), loop);  // the loop's own operand
  EXPECT_LT(position(f, k.loaded), loop);      // a load reads memory the loop might change
}

TEST(SinkPastLoopsTest, WithoutALoopInBetweenNothingMoves) {
  Function f("k");
  Builder b(f);
  ValueId p = b.add_param(Type::pointer(Type::i32()));
  ValueId x = b.add_param(Type::i32());
  ValueId y = b.binary(Opcode::Mul, x, b.const_int(Type::i32(), 3));
  b.store(p, x);
  b.store(p, b.binary(Opcode::Add, y, x));
  const std::string before = print(f);
  EXPECT_EQ(print(sink_past_loops(std::move(f))), before);
}

TEST(SinkPastLoopsTest, ItIsIdempotent) {
  Function once = sink_past_loops(epilogue_written_first().f);
  const std::string text = print(once);
  EXPECT_EQ(print(sink_past_loops(std::move(once))), text);
}

}  // namespace
}  // namespace cutlet::ir
