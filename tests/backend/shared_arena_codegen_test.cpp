// The shared-memory arena of tile kernels: buffers placed by liveness (the arena is the most
// bytes live at once, not the sum of all buffers), no static shared memory of cutlet's own,
// kernels past the device's limit refused before linking with the buffers named, and only one
// thread writing each element of a tile that several threads hold.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include <cutlet/cutlet.h>

#include "filecheck_support.h"

using namespace cutlet;

namespace {

/// The static shared memory the linker reports for a tile kernel whose only shared memory is a
/// small arena (a cross-warp sum): sm_90 reserves 1 KiB of a block for the system once a kernel
/// uses dynamic shared memory. Kernels with big arenas must report no more.
int arena_only_shared_bytes() {
  auto k = tile_kernel([](Tensor<float, 1> z, Tensor<float, 2> x) {
    store(z, {arange(64)}, sum(load(x, {expand_dims(arange(64), 1), expand_dims(arange(64), 0)}), 0));
  }, {.name = "arena_small"}, 8);
  auto compiled = k.compile<>();
  EXPECT_GT(compiled->resources.dynamic_shared_bytes, 0);
  EXPECT_LE(compiled->resources.dynamic_shared_bytes, 8 * 64 * 4);
  return compiled->resources.shared_bytes;
}

TEST(SharedArena, ConversionsShareTheArenaByLiveness) {
  // Two transposes of a 64x64 f32 tile (16 KiB each through shared memory), a cross-warp
  // column sum and a column max: one after the other, so they reuse the same bytes.
  auto k = tile_kernel([](Tensor<float, 2> out, Tensor<float, 1> sums, Tensor<float, 2> x) {
    auto r = expand_dims(arange(64), 1), c = expand_dims(arange(64), 0);
    auto t = load(x, {r, c});
    auto twice = transpose(transpose(t) * 2.0f);
    store(out, {r, c}, twice + expand_dims(sum(t, 0), 0));
    store(sums, {arange(64)}, max(t, 0));
  }, {.name = "arena_reuse"}, 8);
  auto compiled = k.compile<>();
  EXPECT_EQ(compiled->resources.dynamic_shared_bytes, 64 * 64 * 4);  // one transpose's buffer
  EXPECT_EQ(compiled->resources.shared_bytes, arena_only_shared_bytes());  // nothing static
}

TEST(SharedArena, AnEpilogueAfterAPipelinedLoopReusesTheStageRings) {
  // 128x128x32 bf16 on 8 warps, the accumulator cast to bf16 before the store: the stage
  // rings (3 x (128 x 40 + 32 x 136) bf16) are dead when the epilogue converts the tile.
  auto k = tile_kernel([](Tensor<bfloat16, 2> c, Tensor<bfloat16, 2> a, Tensor<bfloat16, 2> b) {
    auto rm = arange(128), rn = arange(128), rk = arange(32);
    auto acc = for_range(0, a.shape(1), 32, zeros<float>({128, 128}), [&](i32 k0, Tile<float> acc) {
      auto ka = k0 + rk;
      return dot(load(a, {expand_dims(rm, 1), expand_dims(ka, 0)}), load(b, {expand_dims(ka, 1), expand_dims(rn, 0)}), acc);
    });
    store(c, {expand_dims(rm, 1), expand_dims(rn, 0)}, cast<bfloat16>(acc));
  }, {.name = "arena_epilogue"}, 8);
  auto compiled = k.compile<>();
  const int rings = 3 * (128 * 40 * 2 + 32 * 136 * 2);
  const int conversion = 128 * 128 * 4;  // at most the f32 accumulator's
  EXPECT_GE(compiled->resources.dynamic_shared_bytes, rings);
  EXPECT_LE(compiled->resources.dynamic_shared_bytes, std::max(rings, conversion));  // not their sum
  EXPECT_EQ(compiled->resources.shared_bytes, arena_only_shared_bytes());
}

TEST(SharedArena, AKernelPastTheBlockLimitIsRefusedNamingItsBuffers) {
  auto k = tile_kernel([](Tensor<float, 2> out, Tensor<float, 2> x) {
    auto r = expand_dims(arange(256), 1), c = expand_dims(arange(256), 0);
    store(out, {r, c}, transpose(load(x, {r, c})));  // 256 KiB through shared memory
  }, {.name = "arena_too_big"}, 8);
  const int line = __LINE__ - 2;
  try {
    k.compile<>();
    FAIL() << "a 256 KiB transpose compiled";
  } catch (const CompileError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("arena_too_big"), std::string::npos) << msg;
    EXPECT_NE(msg.find("262144 bytes: permute for the tile.permute at"), std::string::npos) << msg;
    EXPECT_NE(msg.find("shared_arena_codegen_test.cpp:" + std::to_string(line)), std::string::npos) << msg;
    EXPECT_NE(msg.find(std::to_string(227 * 1024)), std::string::npos) << msg;
    EXPECT_NE(msg.find("smaller tiles"), std::string::npos) << msg;
  }
}

TEST(SharedArena, StageRingsPastTheLimitNameTileStages) {
  auto k = tile_kernel([](Tensor<float, 2> c, Tensor<bfloat16, 2> a, Tensor<bfloat16, 2> b) {
    auto rm = arange(256), rn = arange(256), rk = arange(64);
    auto acc = for_range(0, a.shape(1), 64, zeros<float>({256, 256}), [&](i32 k0, Tile<float> acc) {
      auto ka = k0 + rk;
      return dot(load(a, {expand_dims(rm, 1), expand_dims(ka, 0)}), load(b, {expand_dims(ka, 1), expand_dims(rn, 0)}), acc);
    });
    store(c, {expand_dims(rm, 1), expand_dims(rn, 0)}, acc);
  }, {.name = "arena_rings", .tile_stages = 6}, 8);
  try {
    k.compile<>();
    FAIL() << "six stages of 256x64 and 64x256 bf16 tiles compiled";
  } catch (const CompileError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("cp.async stage ring of the dot's a operand (6 stages"), std::string::npos) << msg;
    EXPECT_NE(msg.find("cp.async stage ring of the dot's b operand (6 stages"), std::string::npos) << msg;
    EXPECT_NE(msg.find("KernelOptions::tile_stages, now 6"), std::string::npos) << msg;
  }
}

TEST(SharedArena, SharedArraysLiveInTheArenaPast48KiB) {
  // A 64 KiB shared_array is no static variable (48 KiB at most) but the bottom of the arena:
  // it compiles, and launches reserve it and opt in past 48 KiB.
  auto k = kernel([](Ptr<float> out) {
    auto s = shared_array<float>(16384);  // 64 KiB
    s[thread_idx().x] = 1.0f;
    syncthreads();
    out[thread_idx().x] = s[thread_idx().x + 1];
  }, {.name = "array_64k"});
  auto compiled = k.compile<>();
  EXPECT_GE(compiled->resources.dynamic_shared_bytes, 65536);
  EXPECT_EQ(compiled->ptx.find(".shared .align 16 .b8 shared"), std::string::npos) << compiled->ptx;
  expect_filecheck(compiled->ptx, R"(
CHECK: .extern .shared .align {{[0-9]+}} .b8
CHECK: .entry array_64k(
CHECK: st.shared.{{[bfu]}}32
CHECK: bar.sync 0;
CHECK: ld.shared.f32
)");
}

TEST(SharedArena, SharedArraysPastTheBlockLimitAreRefusedBeforeLinking) {
  auto k = kernel([](Ptr<float> out) {
    auto s = shared_array<float>(65536);  // 256 KiB
    s[thread_idx().x] = 1.0f;
    syncthreads();
    out[thread_idx().x] = s[thread_idx().x + 1];
  }, {.name = "array_too_big"});
  const int line = __LINE__ - 5;
  try {
    k.compile<>();
    FAIL() << "256 KiB of shared memory compiled";
  } catch (const CompileError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("needs 262144 bytes of shared memory per block"), std::string::npos) << msg;
    EXPECT_NE(msg.find("262144 bytes: shared_array<f32>(65536) for the shared_alloc at"), std::string::npos) << msg;
    EXPECT_NE(msg.find("shared_arena_codegen_test.cpp:" + std::to_string(line)), std::string::npos) << msg;
  }
}


/// The number of lines of `ptx` holding `what`, and of those, the ones under a predicate.
std::pair<int, int> count_lines(const std::string& ptx, const std::string& what) {
  int all = 0, predicated = 0;
  std::size_t at = 0;
  while ((at = ptx.find(what, at)) != std::string::npos) {
    const std::size_t line = ptx.rfind('\n', at) + 1;
    ++all;
    if (ptx.compare(ptx.find_first_not_of(" \t", line), 2, "@%") == 0) ++predicated;
    at += what.size();
  }
  return {all, predicated};
}

TEST(SharedCopies, OnlyTheFirstCopyOfAReplicatedTileWritesSharedMemory) {
  // A 16x16 tile on 8 warps: the layout covers more than the tile, so threads hold copies of
  // each element. Every copy writing the transpose's buffer is a write-write race (racecheck
  // reports it even with equal values); only the first copy may store.
  auto k = tile_kernel([](Tensor<float, 2> out, Tensor<float, 2> x) {
    auto r = expand_dims(arange(16), 1), c = expand_dims(arange(16), 0);
    store(out, {r, c}, transpose(load(x, {r, c})));
  }, {.name = "replicated_transpose"}, 8);
  const std::string ptx = k.compile<>()->ptx;
  const auto [stores, guarded] = count_lines(ptx, "st.shared");
  EXPECT_GT(stores, 0) << ptx;
  // Each store is predicated, or sits behind a branch taken by the threads holding copies.
  const int branches = count_lines(ptx, " bra").second;
  EXPECT_TRUE(guarded == stores || branches >= stores) << ptx;

  // A tile the layout covers exactly has one holder per element: no test, no branch.
  auto exact = tile_kernel([](Tensor<float, 2> out, Tensor<float, 2> x) {
    auto r = expand_dims(arange(64), 1), c = expand_dims(arange(64), 0);
    store(out, {r, c}, transpose(load(x, {r, c})));
  }, {.name = "exact_transpose"}, 8);
  const std::string exact_ptx = exact.compile<>()->ptx;
  EXPECT_EQ(count_lines(exact_ptx, "st.shared").second, 0) << exact_ptx;
  EXPECT_EQ(count_lines(exact_ptx, " bra").second, 0) << exact_ptx;
}

}  // namespace
