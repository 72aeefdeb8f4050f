// KernelOptions' launch bounds: max_block_threads and min_blocks_per_sm become .maxntid and
// .minnctapersm in the PTX, ptxas holds the registers to what that many blocks leave, the
// bounds are part of the compile options (and so of both kernel caches), and impossible
// bounds are refused where the kernel is made.
#include <gtest/gtest.h>

#include <cutlet/cutlet.h>

#include <algorithm>

#include "cutlet/jit/disk_cache_key.h"
#include "filecheck_support.h"
#include "kernel_test_support.h"

using namespace cutlet;

namespace {

/// A kernel with many values live at once: 24 loads summed in a data-dependent order.
const auto many_live = [](Ptr<float> out, Ptr<float> in, i32 n) {
  i32 i = block_idx().x * block_dim().x + thread_idx().x;
  std::vector<Value<float>> v;
  for (int k = 0; k < 24; ++k) v.push_back(in[(i * 24 + k) % n].load());
  Var<float> acc = 0.0f;
  for (int k = 0; k < 24; ++k) acc = acc.get() * v[static_cast<std::size_t>((k * 7) % 24)] + v[static_cast<std::size_t>(k)];
  for (int k = 0; k < 24; ++k) acc = acc.get() * v[static_cast<std::size_t>(k)] - v[static_cast<std::size_t>(23 - k)];
  out[i] = acc.get();
};

TEST(LaunchBoundsCodegen, BoundsAreInThePtx) {
  auto bounded = kernel(many_live, {.name = "bounded", .max_block_threads = 256, .min_blocks_per_sm = 6});
  const auto c = bounded.compile();
  expect_filecheck(c->ptx, "CHECK: .visible .entry bounded(\nCHECK: .maxntid 256, 1, 1\nCHECK: .minnctapersm 6\n");
  EXPECT_FALSE(c->cubin.empty());
  // 6 blocks of 256 threads share 65536 registers: at most 40 each (allocated in eights).
  EXPECT_GT(c->resources.registers, 0);
  EXPECT_LE(c->resources.registers, 40);

  auto threads_only = kernel(many_live, {.name = "threads_only", .max_block_threads = 128});
  const std::string ptx = threads_only.compile()->ptx;
  expect_filecheck(ptx, "CHECK: .visible .entry threads_only(\nCHECK: .maxntid 128, 1, 1\n");
  EXPECT_EQ(ptx.find(".minnctapersm"), std::string::npos);

  auto unbounded = kernel(many_live, {.name = "unbounded"});
  const std::string plain = unbounded.compile()->ptx;
  EXPECT_EQ(plain.find(".maxntid"), std::string::npos);
  EXPECT_EQ(plain.find(".minnctapersm"), std::string::npos);
}

TEST(LaunchBoundsCodegen, BoundsAreCompileOptionsAndCacheKeys) {
  const CompileOptions o = detail::compile_options_for({.max_block_threads = 512, .min_blocks_per_sm = 2});
  EXPECT_EQ(o.max_block_threads, 512);
  EXPECT_EQ(o.min_blocks_per_sm, 2);
  EXPECT_NE(o, detail::compile_options_for({}));
  const auto fields = compile_option_fields(o);
  auto has = [&](const char* name, const char* value) {
    return std::find(fields.begin(), fields.end(), std::pair<std::string, std::string>{name, value}) != fields.end();
  };
  EXPECT_TRUE(has("max_block_threads", "512"));
  EXPECT_TRUE(has("min_blocks_per_sm", "2"));
}

TEST(LaunchBoundsCodegen, ImpossibleBoundsAreRefusedWhereDefined) {
  auto huge = test::message_of([] { (void)kernel(many_live, {.name = "k", .max_block_threads = 2048}); });
  EXPECT_NE(huge.find("max_block_threads is the most threads a block of the kernel has, 1 to 1024"), std::string::npos)
      << huge;
  EXPECT_NE(huge.find("launch_bounds_codegen_test.cpp"), std::string::npos) << huge;
  auto negative = test::message_of([] { (void)kernel(many_live, {.name = "k", .min_blocks_per_sm = -1}); });
  EXPECT_NE(negative.find("not -1"), std::string::npos) << negative;
  auto alone = test::message_of([] { (void)kernel(many_live, {.name = "k", .min_blocks_per_sm = 4}); });
  EXPECT_NE(alone.find("needs max_block_threads"), std::string::npos) << alone;
  auto tile = test::message_of([] {
    (void)tile_kernel([](Tensor<float, 1> y) { store(y, {arange(128)}, full<float>({128}, 1.0f)); },
                      {.name = "k", .max_block_threads = 128}, 4);
  });
  EXPECT_NE(tile.find("is a tile kernel, whose block is its 4 warps already"), std::string::npos) << tile;
}

}  // namespace
