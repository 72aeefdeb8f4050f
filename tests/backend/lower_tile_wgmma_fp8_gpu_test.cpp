// FP8 dots against the CPU: on an sm_90 device, K-major operands (a [M, K], b given as
// [N, K]) run on FP8 wgmma, from a pipelined loop's swizzled stages and from registers, both
// formats and their mix, one and two warpgroups, ragged edges; other orientations, and the
// same kernels built for sm_90, run as f16 dots. The SASS has QGMMA where cuobjdump can read it.
// The products of FP8 values are exact in f32; the tensor cores add them with less precision
// than f32 FMAs, hence the tolerance.
#include <cmath>
#include <string>

#include "dot_check.h"
#include "gpu_test_support.h"
#include "kernel_test_support.h"
#include "sass_support.h"

using namespace cutlet;
using namespace cutlet::test;

namespace {

/// Whether the dots below run: on an sm_90 device on tensor cores, and on the CPU device (as
/// FMA dots there, the same kernels checked against the same reference).
bool hopper() { return Device::cpu_selected() || Device(0).compute_capability().major == 9; }

/// The matmul of BM x BN x BK blocks of a TA and a TB; expects `instruction` in its PTX.
template <class TA, int BM, int BN, int BK, class TB = TA>
void check(const std::string& instruction, bool at, bool bt, bool loop, int M, int N, int K, int warps, int stages = 3,
           const char* target = nullptr) {
  const DotCase c{.at = at, .bt = bt, .loop = loop, .M = M, .N = N, .K = K, .warps = warps, .stages = stages,
                  .abs_tol = 1e-2, .rel_tol = 4e-3, .name = "fp8_dot", .target = target};
  const std::string ptx = run_dot_check<TA, BM, BN, BK, TB>(c);
  if (!ptx.empty()) {
    EXPECT_NE(ptx.find(instruction), std::string::npos) << c.str(BM, BN, BK) << ": no " << instruction;
  }
}

TEST(TileWgmmaFp8Gpu, KMajorOperandsOnFp8Wgmma) {
  CUTLET_REQUIRE_GPU();
  if (!hopper()) GTEST_SKIP() << "FP8 wgmma needs an sm_90 device";
  check<float8_e4m3, 128, 128, 128>("m64n128k32.f32.e4m3.e4m3", false, true, true, 300, 260, 320, 4);
  check<float8_e5m2, 128, 256, 64>("m64n256k32.f32.e5m2.e5m2", false, true, true, 250, 300, 200, 8);
  check<float8_e4m3, 64, 32, 32>("m64n32k32.f32.e4m3.e4m3", false, true, true, 100, 70, 130, 4, 4);
  // Whole tiles from registers, written to swizzled buffers first.
  check<float8_e4m3, 64, 64, 64>("m64n64k32.f32.e4m3.e4m3", false, true, false, 64, 64, 64, 4);
}

TEST(TileWgmmaFp8Gpu, MixedFormats) {
  CUTLET_REQUIRE_GPU();
  if (!hopper()) GTEST_SKIP() << "FP8 wgmma needs an sm_90 device";
  check<float8_e4m3, 128, 128, 64, float8_e5m2>("m64n128k32.f32.e4m3.e5m2", false, true, true, 200, 190, 256, 4);
  check<float8_e5m2, 64, 128, 64, float8_e4m3>("m64n128k32.f32.e5m2.e4m3", false, true, true, 70, 300, 96, 4);
}

TEST(TileWgmmaFp8Gpu, OtherOrientationsRunAsF16Dots) {
  CUTLET_REQUIRE_GPU();
  if (!hopper()) GTEST_SKIP() << "needs an sm_90 device";
  check<float8_e4m3, 128, 128, 64>("k16.f32.f16.f16", false, false, true, 300, 260, 320, 4);
  check<float8_e5m2, 64, 64, 32>("k16.f32.f16.f16", true, true, true, 130, 200, 96, 4);
  check<float8_e4m3, 64, 64, 32, float8_e5m2>("k16.f32.f16.f16", true, false, true, 100, 90, 100, 4);
  // K = 16 is no multiple of FP8 wgmma's 32.
  check<float8_e4m3, 64, 64, 16>("k16.f32.f16.f16", false, true, false, 64, 64, 16, 4);
}

TEST(TileWgmmaFp8Gpu, Sm90BuildsRunMmaSyncOnF16) {
  CUTLET_REQUIRE_GPU();
  if (!hopper()) GTEST_SKIP() << "needs an sm_90 device";
  check<float8_e4m3, 128, 128, 64>("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", false, true, true, 300, 260, 320, 4, 3,
                                   "sm_90");
  check<float8_e5m2, 64, 64, 32>("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", false, false, true, 100, 70, 130, 4, 3,
                                 "sm_90");
}

// FP8 GEMMs scale their operands: a per-row scale of a, a per-column scale of b and a
// per-tensor one, applied to the f32 accumulator after the loop.
TEST(TileWgmmaFp8Gpu, ScaledDotPerRowPerColumnAndPerTensor) {
  CUTLET_REQUIRE_GPU();
  if (!hopper()) GTEST_SKIP() << "FP8 wgmma needs an sm_90 device";
  constexpr int BM = 128, BN = 128, BK = 64;
  const int M = 200, N = 190, K = 256;
  auto kern = tile_kernel([=](Tensor<float, 2> out, Tensor<float8_e4m3, 2> a, Tensor<float8_e4m3, 2> bt, Tensor<float, 1> sa,
                              Tensor<float, 1> sb) {
    auto rm = program_id(0) * BM + arange(BM), rn = program_id(1) * BN + arange(BN);
    auto acc = for_range(0, K, BK, zeros<float>({BM, BN}), [&](i32 k0, Tile<float> acc) {
      auto k = k0 + arange(BK);
      auto ta = load(a, {expand_dims(rm, 1), expand_dims(k, 0)}, (expand_dims(rm, 1) < M) & (expand_dims(k, 0) < K));
      auto tb = load(bt, {expand_dims(rn, 1), expand_dims(k, 0)}, (expand_dims(rn, 1) < N) & (expand_dims(k, 0) < K));
      return dot(ta, transpose(tb), acc);
    });
    acc = acc * expand_dims(load(sa, {rm}, rm < M), 1) * expand_dims(load(sb, {rn}, rn < N), 0) * 0.25f;
    store(out, {expand_dims(rm, 1), expand_dims(rn, 0)}, acc, (expand_dims(rm, 1) < M) & (expand_dims(rn, 0) < N));
  }, {.name = "fp8_scaled"}, 4);
  Stream st;
  auto fa = random_vector<float>(std::size_t(M) * K, 81, -8.0f, 8.0f), fb = random_vector<float>(std::size_t(N) * K, 82, -8.0f, 8.0f);
  auto hsa = random_vector<float>(M, 83, 0.01f, 2.0f), hsb = random_vector<float>(N, 84, 0.01f, 2.0f);
  std::vector<float8_e4m3> ha(fa.begin(), fa.end()), hb(fb.begin(), fb.end());
  Buffer<float8_e4m3> a(st, ha), b(st, hb);
  Buffer<float> sa(st, hsa), sb(st, hsb);
  auto out = poisoned<float>(st, std::size_t(M) * N);
  kern.launch(st, {.grid = {static_cast<int>(ceil_div(M, BM)), static_cast<int>(ceil_div(N, BN))}}, tensor(out, {M, N}),
              tensor(a, {M, K}), tensor(b, {N, K}), tensor(sa, {M}), tensor(sb, {N}));
  if (!Device::cpu_selected()) {
    EXPECT_NE(kern.last_specialization()->compiled->ptx.find("k32.f32.e4m3.e4m3"), std::string::npos);
  }
  auto r = out.to_host(st);
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double dot = 0, magnitude = 0;
      for (int k = 0; k < K; ++k) {
        const double p = double(float(ha[std::size_t(i) * K + k])) * double(float(hb[std::size_t(j) * K + k]));
        dot += p;
        magnitude += std::fabs(p);
      }
      const double scale = hsa[i] * hsb[j] * 0.25, want = dot * scale;
      // The tensor cores add FP8 products with about 14 bits kept: off by a part in 1000 of
      // the terms' magnitude at most (one wrong product is off by a few parts in 1000).
      ASSERT_NEAR(r[std::size_t(i) * N + j], want, 1e-3 * magnitude * scale + 1e-4) << i << "," << j;
    }
}

TEST(TileWgmmaFp8Gpu, SassHasQgmma) {
  CUTLET_REQUIRE_CUDA("tensor-core instructions in SASS");
  if (!hopper()) GTEST_SKIP() << "FP8 wgmma needs an sm_90 device";
  const auto cuobjdump = cuobjdump_path();
  if (!cuobjdump) GTEST_SKIP() << "no cuobjdump to read the SASS with";
  auto kern = tile_kernel([](Tensor<float, 2> c, Tensor<float8_e4m3, 2> a, Tensor<float8_e4m3, 2> bt) {
    auto r = arange(128), n = arange(128);
    auto acc = for_range(0, a.shape(1), 128, zeros<float>({128, 128}), [&](i32 k0, Tile<float> acc) {
      auto k = k0 + arange(128);
      return dot(load(a, {expand_dims(r, 1), expand_dims(k, 0)}), transpose(load(bt, {expand_dims(n, 1), expand_dims(k, 0)})), acc);
    });
    store(c, {expand_dims(r, 1), expand_dims(n, 0)}, acc);
  }, {.name = "fp8_sass"}, 4);
  Stream st;
  Buffer<float8_e4m3> a(st, std::vector<float8_e4m3>(128 * 256, float8_e4m3(1.0f)));
  Buffer<float8_e4m3> b(st, std::vector<float8_e4m3>(128 * 256, float8_e4m3(0.5f)));
  auto c = poisoned<float>(st, 128 * 128);
  kern.launch(st, {.grid = 1}, tensor(c, {128, 128}), tensor(a, {128, 256}), tensor(b, {128, 256}));
  for (float x : c.to_host(st)) ASSERT_EQ(x, 128.0f);
  const std::string sass = sass_of(*cuobjdump, kern.last_specialization()->compiled->cubin, "fp8_sass");
  EXPECT_NE(sass.find("QGMMA"), std::string::npos) << sass.substr(0, 2000);
}

}  // namespace
