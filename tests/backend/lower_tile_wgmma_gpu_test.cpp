// Dots on Hopper's wgmma against the CPU: a kernel launched on an sm_90 device is built for
// sm_90a and its eligible dots run on wgmma (the PTX says so, and the SASS has HGMMA where
// cuobjdump is there to read it); operands from a pipelined K loop's swizzled stages and from
// registers, every transpose, f16 and bf16, one and two warpgroups, ragged edges.
#include <cmath>
#include <cstdlib>
#include <string>

#include "dot_check.h"
#include "gpu_test_support.h"
#include "kernel_test_support.h"
#include "sass_support.h"

using namespace cutlet;
using namespace cutlet::test;

namespace {

/// A matmul of BM x BN x BK blocks (see DotCase) that must run on wgmma; its PTX.
template <class T, int BM, int BN, int BK>
std::string check(bool at, bool bt, bool loop, int M, int N, int K, int warps, int stages = 3) {
  const DotCase c{.at = at, .bt = bt, .loop = loop, .M = M, .N = N, .K = K, .warps = warps, .stages = stages, .name = "wgmma_dot"};
  const std::string ptx = run_dot_check<T, BM, BN, BK>(c);
  if (!ptx.empty()) {
    EXPECT_NE(ptx.find("wgmma.mma_async"), std::string::npos) << c.str(BM, BN, BK) << ": not on wgmma";
  }
  return ptx;
}

/// Whether the dots below run: on an sm_90 device on wgmma, and on the CPU device (as FMA dots
/// there, the same kernels checked against the same reference).
bool hopper() { return Device::cpu_selected() || Device(0).compute_capability().major == 9; }

TEST(TileWgmmaGpu, PipelinedLoopsEveryTranspose) {
  CUTLET_REQUIRE_GPU();
  if (!hopper()) GTEST_SKIP() << "wgmma needs an sm_90 device";
  for (bool at : {false, true})
    for (bool bt : {false, true}) {
      check<bfloat16, 128, 128, 64>(at, bt, true, 300, 260, 320, 4);
      check<half, 64, 64, 32>(at, bt, true, 130, 200, 96, 4, 4);
      check<bfloat16, 128, 256, 64>(at, bt, true, 250, 300, 200, 8);
    }
}

TEST(TileWgmmaGpu, OneWarpgroupHoldsTheWidestAccumulator) {
  CUTLET_REQUIRE_GPU();
  if (!hopper()) GTEST_SKIP() << "wgmma needs an sm_90 device";
  // 128 x 256 f32 on 128 threads: 256 accumulator registers a thread, more than it may have,
  // so ptxas spills around the wgmmas (as an autotuner's candidate list contains).
  check<bfloat16, 128, 256, 64>(false, false, true, 250, 300, 200, 4, 3);
}

TEST(TileWgmmaGpu, OperandsFromRegistersAndNarrowTiles) {
  CUTLET_REQUIRE_GPU();
  if (!hopper()) GTEST_SKIP() << "wgmma needs an sm_90 device";
  // One dot of whole tiles: a and b go from registers to swizzled buffers.
  check<bfloat16, 64, 64, 64>(false, false, false, 64, 64, 64, 4);
  check<half, 128, 32, 16>(false, true, false, 100, 30, 16, 8);
  // 32- and 16-wide b rows: 64- and 32-byte swizzles.
  check<bfloat16, 64, 32, 32>(false, false, true, 100, 70, 130, 4);
  check<bfloat16, 64, 16, 16>(false, false, true, 64, 40, 48, 4);
  // N beyond one wgmma: two n256 chunks.
  check<bfloat16, 64, 512, 16>(false, false, true, 64, 512, 64, 4, 2);
}

TEST(TileWgmmaGpu, SassHasHgmma) {
  CUTLET_REQUIRE_CUDA("tensor-core instructions in SASS");
  if (!hopper()) GTEST_SKIP() << "wgmma needs an sm_90 device";
  const auto cuobjdump = cuobjdump_path();
  if (!cuobjdump) GTEST_SKIP() << "no cuobjdump to read the SASS with";
  auto kern = tile_kernel([](Tensor<float, 2> c, Tensor<bfloat16, 2> a, Tensor<bfloat16, 2> b) {
    auto r = arange(128), n = arange(128);
    auto acc = for_range(0, a.shape(1), 64, zeros<float>({128, 128}), [&](i32 k0, Tile<float> acc) {
      auto k = k0 + arange(64);
      return dot(load(a, {expand_dims(r, 1), expand_dims(k, 0)}), load(b, {expand_dims(k, 1), expand_dims(n, 0)}), acc);
    });
    store(c, {expand_dims(r, 1), expand_dims(n, 0)}, acc);
  }, {.name = "wgmma_sass"}, 4);
  Stream st;
  Buffer<bfloat16> a(st, std::vector<bfloat16>(128 * 256, bfloat16(1.0f))), b(st, std::vector<bfloat16>(256 * 128, bfloat16(0.5f)));
  auto c = poisoned<float>(st, 128 * 128);
  kern.launch(st, {.grid = 1}, tensor(c, {128, 128}), tensor(a, {128, 256}), tensor(b, {256, 128}));
  for (float x : c.to_host(st)) ASSERT_EQ(x, 128.0f);
  const std::string sass = sass_of(*cuobjdump, kern.last_specialization()->compiled->cubin, "wgmma_sass");
  EXPECT_NE(sass.find("HGMMA"), std::string::npos) << sass.substr(0, 2000);
}

}  // namespace
