// Dots on Hopper's wgmma against the CPU: a kernel launched on an sm_90 device is built for
// sm_90a and its eligible dots run on wgmma (the PTX says so, and the SASS has HGMMA where
// cuobjdump is there to read it); operands from a pipelined K loop's swizzled stages and from
// registers, every transpose, f16 and bf16, one and two warpgroups, ragged edges.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "gpu_test_support.h"
#include "kernel_test_support.h"

using namespace cutlet;
using namespace cutlet::test;

namespace {

/// C [M, N] = A @ B with A read as [K, M] (at) and B as [N, K] (bt) when asked; `loop`: over
/// K in steps of BK (the loads pipelined), else one dot of the whole (BK = K) tiles.
template <class T, int BM, int BN, int BK>
std::string check(bool at, bool bt, bool loop, int M, int N, int K, int warps, int stages = 3) {
  auto kern = tile_kernel([=](Tensor<float, 2> c, Tensor<T, 2> a, Tensor<T, 2> b) {
    auto rm = program_id(0) * BM + arange(BM), rn = program_id(1) * BN + arange(BN);
    auto step = [&](i32 k0, Tile<float> acc) {
      auto ka = k0 + arange(BK);
      Tile<T> ta = at ? transpose(load(a, {expand_dims(ka, 1), expand_dims(rm, 0)}, (expand_dims(ka, 1) < K) & (expand_dims(rm, 0) < M)))
                      : load(a, {expand_dims(rm, 1), expand_dims(ka, 0)}, (expand_dims(rm, 1) < M) & (expand_dims(ka, 0) < K));
      Tile<T> tb = bt ? transpose(load(b, {expand_dims(rn, 1), expand_dims(ka, 0)}, (expand_dims(rn, 1) < N) & (expand_dims(ka, 0) < K)))
                      : load(b, {expand_dims(ka, 1), expand_dims(rn, 0)}, (expand_dims(ka, 1) < K) & (expand_dims(rn, 0) < N));
      return dot(ta, tb, acc);
    };
    auto acc = loop ? for_range(0, K, BK, zeros<float>({BM, BN}), step) : step(Value<int>(0), zeros<float>({BM, BN}));
    store(c, {expand_dims(rm, 1), expand_dims(rn, 0)}, acc, (expand_dims(rm, 1) < M) & (expand_dims(rn, 0) < N));
  }, {.name = "wgmma_dot", .tile_stages = loop ? stages : 0}, warps);
  Stream st;
  auto ha = random_vector<float>(std::size_t(M) * K, 71, -1.0f, 1.0f);
  auto hb = random_vector<float>(std::size_t(K) * N, 72, -1.0f, 1.0f);
  std::vector<T> a(std::size_t(M) * K), b(std::size_t(K) * N);
  for (int i = 0; i < M; ++i)
    for (int k = 0; k < K; ++k) a[at ? std::size_t(k) * M + i : std::size_t(i) * K + k] = T(ha[std::size_t(i) * K + k]);
  for (int k = 0; k < K; ++k)
    for (int j = 0; j < N; ++j) b[bt ? std::size_t(j) * K + k : std::size_t(k) * N + j] = T(hb[std::size_t(k) * N + j]);
  Buffer<T> da(st, a), db(st, b);
  auto c = poisoned<float>(st, std::size_t(M) * N);
  kern.launch(st, {.grid = {static_cast<int>(ceil_div(M, BM)), static_cast<int>(ceil_div(N, BN))}}, tensor(c, {M, N}),
              at ? tensor(da, {K, M}) : tensor(da, {M, K}), bt ? tensor(db, {N, K}) : tensor(db, {K, N}));
  auto r = c.to_host(st);
  const std::string what = std::to_string(BM) + "x" + std::to_string(BN) + "x" + std::to_string(BK) + (at ? " a^T" : "") +
                           (bt ? " b^T" : "") + (loop ? " loop" : "") + " " + std::to_string(M) + "x" + std::to_string(N) + "x" +
                           std::to_string(K) + " on " + std::to_string(warps) + " warps";
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double want = 0;
      for (int k = 0; k < K; ++k) want += double(float(a[at ? std::size_t(k) * M + i : std::size_t(i) * K + k])) *
                                          double(float(b[bt ? std::size_t(j) * K + k : std::size_t(k) * N + j]));
      EXPECT_NEAR(r[std::size_t(i) * N + j], want, 1e-3 + 1e-3 * std::fabs(want)) << i << "," << j << " " << what;
      if (::testing::Test::HasFailure()) return what;
    }
  const std::string ptx = kern.last_specialization()->compiled->ptx;
  EXPECT_NE(ptx.find("wgmma.mma_async"), std::string::npos) << what << ": not on wgmma";
  return ptx;
}

bool hopper() { return Device(0).compute_capability().major == 9; }

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
  CUTLET_REQUIRE_GPU();
  if (!hopper()) GTEST_SKIP() << "wgmma needs an sm_90 device";
  const char* cuobjdump = "/usr/local/cuda/bin/cuobjdump";
  if (!std::ifstream(cuobjdump)) GTEST_SKIP() << "no cuobjdump to read the SASS with";
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
  const std::vector<char>& cubin = kern.last_specialization()->compiled->cubin;
  const std::string path = ::testing::TempDir() + "wgmma_sass.cubin";
  std::ofstream(path, std::ios::binary).write(cubin.data(), static_cast<std::streamsize>(cubin.size()));
  const std::string cmd = std::string(cuobjdump) + " -sass " + path;
  std::string sass;
  if (FILE* p = popen(cmd.c_str(), "r")) {
    char buf[4096];
    for (std::size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) sass.append(buf, n);
    pclose(p);
  }
  EXPECT_NE(sass.find("HGMMA"), std::string::npos) << sass.substr(0, 2000);
}

}  // namespace
