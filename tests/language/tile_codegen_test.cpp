// The PTX of tile kernels: 16-byte vector accesses where tensor facts allow, predicated
// accesses under masks, warp-shuffle reductions, and the block size fixed by .reqntid.
#include <gtest/gtest.h>

#include <cmath>

#include <cutlet/cutlet.h>

#include "filecheck_support.h"

using namespace cutlet;

namespace {

TEST(TileCodegen, SoftmaxRowUsesVectorAccessesAndShuffles) {
  auto k = tile_kernel([](Tensor<float, 2> out, Tensor<float, 2> in) {
    auto row = program_id(0);
    auto cols = arange(1024);
    auto mask = cols < in.shape(1);
    auto x = load(in, {row, cols}, mask, Value<float>(-INFINITY));
    auto e = exp(x - max(x, 0));
    store(out, {row, cols}, e / sum(e, 0), mask);
  }, {.name = "tile_softmax"});
  expect_filecheck(k.compile<>()->ptx, R"(
CHECK: .entry tile_softmax(
CHECK: .reqntid 128
CHECK: ld.global.v4.b32
CHECK: shfl.sync.bfly.b32
CHECK: st.global.v4.b32
)");
}

TEST(TileCodegen, UnmaskedLoadsOfAlignedTensorsAreVectorLoads) {
  auto k = tile_kernel([](Tensor<float, 1> z, Tensor<float, 1> x) {
    auto i = program_id(0) * 512 + arange(512);
    store(z, {i}, load(x, {i}) * 2.0f);
  }, {.name = "tile_scale"}, 2);
  expect_filecheck(k.compile<>()->ptx, R"(
CHECK: .entry tile_scale(
CHECK: .reqntid 64
CHECK: ld.global.v4.f32
CHECK: st.global.v4.f32
)");
}

TEST(TileCodegen, UnknownAlignmentFallsBackToScalarAccesses) {
  auto k = tile_kernel([](Tensor<float, 1> z, Tensor<float, 1> x) {
    auto i = program_id(0) * 512 + arange(512);
    store(z, {i}, load(x, {i}) * 2.0f);
  }, {.name = "tile_scale_any"});
  // A launch of unaligned, strided tensors specializes without any facts.
  auto fn = k.trace_ir<TensorArg<float, 1>, TensorArg<float, 1>>();
  std::string ir = ir::print(fn);
  EXPECT_NE(ir.find("warps 4"), std::string::npos) << ir;
  EXPECT_NE(ir.find("tile.load"), std::string::npos) << ir;
}

}  // namespace

namespace {

TEST(TileCodegen, DotOfBf16TilesEmitsMmaSync) {
  auto k = tile_kernel([](Tensor<float, 2> c, Tensor<bfloat16, 2> a, Tensor<bfloat16, 2> b) {
    auto r = arange(64), n = arange(64), kk = arange(32);
    auto ta = load(a, {expand_dims(r, 1), expand_dims(kk, 0)});
    auto tb = load(b, {expand_dims(kk, 1), expand_dims(n, 0)});
    store(c, {expand_dims(r, 1), expand_dims(n, 0)}, dot(ta, tb));
  }, {.name = "tile_dot_bf16"});
  expect_filecheck(k.compile<>()->ptx, R"(
CHECK: .entry tile_dot_bf16(
CHECK: st.shared
CHECK: bar.sync 0;
CHECK-DAG: ldmatrix.sync.aligned.m8n8.x4.shared.b16
CHECK-DAG: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
CHECK: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
)");
}

TEST(TileCodegen, DotShapeMismatchIsATraceErrorAtTheUsersLine) {
  auto k = tile_kernel([](Tensor<float, 2> c, Tensor<half, 2> a) {
    auto r = arange(64), kk = arange(32);
    auto ta = load(a, {expand_dims(r, 1), expand_dims(kk, 0)});
    store(c, {expand_dims(r, 1), expand_dims(r, 0)}, dot(ta, ta));
  }, {.name = "tile_dot_bad"});
  std::string msg;
  try {
    (void)k.trace_ir();
  } catch (const Error& e) {
    msg = e.what();
  }
  EXPECT_NE(msg.find("do not match"), std::string::npos) << msg;
  EXPECT_NE(msg.find("tile_codegen_test.cpp"), std::string::npos) << msg;
}

}  // namespace

namespace {

TEST(TileCodegen, ScansShuffleUpAndUserReductionsShuffleAcross) {
  auto k = tile_kernel([](Tensor<float, 1> y, Tensor<std::int32_t, 1> m, Tensor<float, 1> x) {
    auto i = arange(1024);
    auto t = load(x, {i});
    store(y, {i}, cumsum(t, 0));
    store(m, {i}, argmax(expand_dims(t, 0), 1) + i * 0);
  }, {.name = "tile_scan_argmax"});
  expect_filecheck(k.compile<>()->ptx, R"(
CHECK: .entry tile_scan_argmax(
CHECK-DAG: shfl.sync.up.b32
CHECK-DAG: shfl.sync.bfly.b32
)");
}

}  // namespace

namespace {

auto pipelined_gemm(int stages) {
  return tile_kernel([](Tensor<float, 2> c, Tensor<bfloat16, 2> a, Tensor<bfloat16, 2> b) {
    auto rm = arange(64), rn = arange(64), rk = arange(32);
    auto acc = for_range(0, a.shape(1), 32, zeros<float>({64, 64}), [&](i32 k0, Tile<float> acc) {
      auto ka = k0 + rk;
      return dot(load(a, {expand_dims(rm, 1), expand_dims(ka, 0)}), load(b, {expand_dims(ka, 1), expand_dims(rn, 0)}), acc);
    });
    store(c, {expand_dims(rm, 1), expand_dims(rn, 0)}, acc);
  }, {.name = "tile_pipelined", .tile_stages = stages});
}

TEST(TileCodegen, LoopLoadsFeedingADotAreCopiedAheadWithCpAsync) {
  auto compiled = pipelined_gemm(0).compile<>();
  // Three stages (the default), all filled before the loop; the first one's first fragments
  // are read before it. In the loop the dot goes k-step by k-step on fragments read a k-step
  // ahead straight from the stage (no registers, no st.shared); before its last k-step it
  // waits for the next stage, crosses the barrier, refills the stage it read and reads the
  // next stage's first fragments.
  expect_filecheck(compiled->ptx, R"(
CHECK: .entry tile_pipelined(
CHECK-NOT: st.shared
CHECK: cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16, {{.*}};
CHECK: cp.async.commit_group;
CHECK: cp.async.commit_group;
CHECK: cp.async.commit_group;
CHECK-NOT: cp.async.commit_group;
CHECK: cp.async.wait_group 2;
CHECK-NEXT: bar.sync 0;
CHECK: ldmatrix.sync.aligned.m8n8.x4.shared.b16
CHECK: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
CHECK: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
CHECK: cp.async.wait_group 1;
CHECK-NEXT: bar.sync 0;
CHECK: cp.async.cg.shared.global
CHECK: cp.async.commit_group;
CHECK: ldmatrix.sync.aligned.m8n8.x4.shared.b16
CHECK: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
CHECK: cp.async.wait_group 0;
)");
  // Three stages of a (64 rows of 32 + 8 padding bf16) and b (32 rows of 64 + 8).
  EXPECT_EQ(compiled->resources.dynamic_shared_bytes, 3 * (64 * 40 * 2 + 32 * 72 * 2));
  auto four = pipelined_gemm(4).compile<>();
  EXPECT_NE(four->ptx.find("cp.async.wait_group 3;"), std::string::npos);
  EXPECT_NE(four->ptx.find("cp.async.wait_group 2;"), std::string::npos);
  EXPECT_EQ(four->ptx.find("cp.async.wait_group 4;"), std::string::npos);
  EXPECT_EQ(four->resources.dynamic_shared_bytes, 4 * (64 * 40 * 2 + 32 * 72 * 2));
}

// Exact f32 dots (FMA from shared memory) of transposed operands in a K loop, whose loads
// are issued an iteration ahead in registers.
TEST(TileCodegen, TransposedOperandsOfAnFmaDotInALoop) {
  for (bool at : {false, true})
    for (bool bt : {false, true}) {
      auto k = tile_kernel([=](Tensor<float, 2> c, Tensor<float, 2> a, Tensor<float, 2> b) {
        auto rm = program_id(0) * 32 + arange(32), rn = program_id(1) * 32 + arange(32), rk = arange(16);
        auto acc = for_range(0, a.shape(at ? 0 : 1), 16, zeros<float>({32, 32}), [&](i32 k0, Tile<float> acc) {
          auto ka = k0 + rk;
          Tile<float> ta = at ? transpose(load(a, {expand_dims(ka, 1), expand_dims(rm, 0)})) : load(a, {expand_dims(rm, 1), expand_dims(ka, 0)});
          Tile<float> tb = bt ? transpose(load(b, {expand_dims(rn, 1), expand_dims(ka, 0)})) : load(b, {expand_dims(ka, 1), expand_dims(rn, 0)});
          return dot(ta, tb, acc);
        });
        store(c, {expand_dims(rm, 1), expand_dims(rn, 0)}, acc);
      }, {.name = "dot_transposed_fma"});
      auto compiled = k.compile<>();
      EXPECT_NE(compiled->ptx.find("fma.rn.f32"), std::string::npos) << at << bt;
      EXPECT_EQ(compiled->ptx.find("mma.sync"), std::string::npos) << at << bt;
    }
}

TEST(TileCodegen, OtherLoopLoadsArePipelinedOneIterationAheadInRegisters) {
  auto k = tile_kernel([](Tensor<float, 1> out, Tensor<float, 2> x) {
    auto row = program_id(0);
    auto cols = arange(256);
    auto acc = for_range(0, x.shape(1), 256, zeros<float>({256}), [&](i32 c0, Tile<float> acc) {
      return acc + load(x, {row, c0 + cols});
    });
    store(out, {row * 256 + cols}, acc);
  }, {.name = "tile_prefetched"});
  CompileOptions options;
  options.keep_llvm_ir = true;
  auto compiled = cutlet::compile(k.trace_ir(), options);
  // The first iteration's loads are issued before the loop (when it runs), the next
  // iteration's at the top of the body, and the body's own loads are the prefetched ones
  // (carried by phis).
  expect_filecheck(compiled.llvm_ir, R"(
CHECK: then:
CHECK: load <4 x float>
CHECK: endif:
CHECK: phi {{.*}}<{{[0-9]+}} x float>
CHECK: for.header:
CHECK: phi {{.*}}<{{[0-9]+}} x float>
CHECK: for.body:
CHECK: load <4 x float>
)");
  EXPECT_EQ(compiled.resources.dynamic_shared_bytes, 0);
  EXPECT_EQ(compiled.ptx.find("cp.async"), std::string::npos);
}

}  // namespace

namespace {

TEST(TileCodegen, AtomicsAndSharedMemoryTiles) {
  auto k = tile_kernel([](Tensor<float, 1> sums, Tensor<std::int32_t, 1> bins, Tensor<float, 1> x) {
    auto i = arange(256);
    auto s = shared_array<float>(256);
    store(s, i, load(x, {i}));
    syncthreads();
    atomic_add(sums, {load(bins, {i})}, load(s, i));
  }, {.name = "tile_atomic_shared"});
  expect_filecheck(k.compile<>()->ptx, R"(
CHECK: .entry tile_atomic_shared(
CHECK: st.shared.v4.f32
CHECK: bar.sync 0;
CHECK: ld.shared.v4.{{[fu]}}32
CHECK: atom.global.add.f32
)");
}

}  // namespace
