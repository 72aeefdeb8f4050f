// Tile kernels on the GPU against CPU references: masked edges, reductions along each axis,
// softmax and layer norm rows of sizes that are and are not the tile's.
#include <cmath>

#include "gpu_test_support.h"
#include "kernel_test_support.h"

using namespace cutlet;
using namespace cutlet::test;

namespace {

TEST(TileGpu, VectorAddMasksTheTail) {
  CUTLET_REQUIRE_GPU();
  constexpr int block = 1024;
  auto k = tile_kernel([](Tensor<float, 1> z, Tensor<float, 1> x, Tensor<float, 1> y) {
    auto i = program_id(0) * 1024 + arange(1024);
    auto m = i < x.shape(0);
    store(z, {i}, load(x, {i}, m) + load(y, {i}, m), m);
  }, {.name = "tile_add"});
  Stream st;
  for (int n : {1000003, 4096, 17}) {
    auto hx = random_vector<float>(n, 1, -1.0f, 1.0f), hy = random_vector<float>(n, 2, -1.0f, 1.0f);
    Buffer<float> x(st, hx), y(st, hy);
    auto z = poisoned<float>(st, n + 64);  // the 64 past the end must stay poisoned
    k.launch(st, {.grid = static_cast<int>(ceil_div(n, block))}, tensor(z, {n}), tensor(x, {n}), tensor(y, {n}));
    auto r = z.to_host(st);
    auto poison = poisoned<float>(st, 1).to_host(st)[0];
    for (int i = 0; i < n; ++i) ASSERT_EQ(r[i], hx[i] + hy[i]) << n << " " << i;
    for (int i = n; i < n + 64; ++i) ASSERT_EQ(std::memcmp(&r[i], &poison, 4), 0) << i;
  }
}

TEST(TileGpu, SoftmaxRowsOfAnyWidth) {
  CUTLET_REQUIRE_GPU();
  auto k = tile_kernel([](Tensor<float, 2> out, Tensor<float, 2> in, Const<int> BLOCK) {
    auto row = program_id(0);
    auto cols = arange(BLOCK);
    auto mask = cols < in.shape(1);
    auto x = load(in, {row, cols}, mask, Value<float>(-INFINITY));
    auto e = exp(x - max(x, 0));
    store(out, {row, cols}, e / sum(e, 0), mask);
  }, {.name = "tile_softmax_rows"});
  Stream st;
  for (auto [rows, cols, blk] : {std::tuple{37, 1000, 1024}, std::tuple{64, 4096, 4096}, std::tuple{5, 3, 4}}) {
    auto h = random_vector<float>(std::size_t(rows) * cols, 3, -4.0f, 4.0f);
    Buffer<float> in(st, h);
    auto out = poisoned<float>(st, std::size_t(rows) * cols);
    k.launch(st, {.grid = rows}, tensor(out, {rows, cols}), tensor(in, {rows, cols}), blk);
    auto r = out.to_host(st);
    for (int i = 0; i < rows; ++i) {
      double m = -INFINITY, s = 0;
      for (int j = 0; j < cols; ++j) m = std::max<double>(m, h[i * cols + j]);
      for (int j = 0; j < cols; ++j) s += std::exp(h[i * cols + j] - m);
      for (int j = 0; j < cols; ++j)
        ASSERT_NEAR(r[i * cols + j], std::exp(h[i * cols + j] - m) / s, 1e-6) << rows << "x" << cols << " " << i << "," << j;
    }
  }
}

// One [16 x 64] tile per program; the matrix is not a multiple of it on either side.
TEST(TileGpu, ReductionsAlongBothAxesWithMaskedEdges) {
  CUTLET_REQUIRE_GPU();
  auto k = tile_kernel([](Tensor<float, 1> row_sum, Tensor<float, 1> row_min, Tensor<float, 1> row_prod,
                          Tensor<float, 2> col_max, Tensor<float, 2> a) {
    auto r = program_id(0) * 16 + arange(16);
    auto c = program_id(1) * 64 + arange(64);
    auto rr = expand_dims(r, 1);
    auto cc = expand_dims(c, 0);
    auto m = (rr < a.shape(0)) & (cc < a.shape(1));
    auto x = load(a, {rr, cc}, m);
    auto row_ok = r < a.shape(0);
    // Partial row results of this column block: one slot per (row, column block).
    auto slot = r * num_programs(1) + program_id(1);
    store(row_sum, {slot}, sum(x, 1), row_ok);
    store(row_min, {slot}, min(where(m, x, 1e30f), 1), row_ok);
    store(row_prod, {slot}, prod(where(m, x, 1.0f), 1), row_ok);
    store(col_max, {program_id(0), c}, max(where(m, x, -1e30f), 0), c < a.shape(1));
  }, {.name = "tile_reductions"});
  Stream st;
  const int rows = 77, cols = 200, gr = 5, gc = 4;
  auto h = random_vector<float>(rows * cols, 4, 0.9f, 1.1f);
  Buffer<float> a(st, h);
  auto rs = poisoned<float>(st, rows * gc), rm = poisoned<float>(st, rows * gc), rp = poisoned<float>(st, rows * gc);
  auto cm = poisoned<float>(st, gr * cols);
  k.launch(st, {.grid = {gr, gc}}, tensor(rs, {rows * gc}), tensor(rm, {rows * gc}), tensor(rp, {rows * gc}),
           tensor(cm, {gr, cols}), tensor(a, {rows, cols}));
  auto hs = rs.to_host(st), hm = rm.to_host(st), hp = rp.to_host(st), hc = cm.to_host(st);
  for (int i = 0; i < rows; ++i)
    for (int b = 0; b < gc; ++b) {
      double s = 0, p = 1, mn = 1e30;
      for (int j = b * 64; j < std::min(cols, (b + 1) * 64); ++j) {
        s += h[i * cols + j];
        p *= h[i * cols + j];
        mn = std::min<double>(mn, h[i * cols + j]);
      }
      ASSERT_NEAR(hs[i * gc + b], s, 1e-4) << i << " " << b;
      ASSERT_NEAR(hp[i * gc + b], p, 1e-4 * std::abs(p)) << i << " " << b;
      ASSERT_EQ(hm[i * gc + b], static_cast<float>(mn)) << i << " " << b;
    }
  for (int g = 0; g < gr; ++g)
    for (int j = 0; j < cols; ++j) {
      float mx = -1e30f;
      for (int i = g * 16; i < std::min(rows, (g + 1) * 16); ++i) mx = std::max(mx, h[i * cols + j]);
      ASSERT_EQ(hc[g * cols + j], mx) << g << " " << j;
    }
}

TEST(TileGpu, LayerNormRows) {
  CUTLET_REQUIRE_GPU();
  auto k = tile_kernel([](Tensor<float, 2> y, Tensor<float, 2> x, Tensor<float, 1> w, Tensor<float, 1> b, f32 eps) {
    auto row = program_id(0);
    auto cols = arange(1024);
    auto m = cols < x.shape(1);
    auto v = load(x, {row, cols}, m);
    auto n = cast<float>(x.shape(1));
    auto mean = sum(v, 0).item() / n;
    auto d = where(m, v - mean, 0.0f);
    auto rstd = rsqrt(sum(d * d, 0).item() / n + eps);
    store(y, {row, cols}, d * rstd * load(w, {cols}, m) + load(b, {cols}, m), m);
  }, {.name = "tile_layer_norm"});
  Stream st;
  const int rows = 33, cols = 777;
  auto hx = random_vector<float>(rows * cols, 5, -3.0f, 5.0f);
  auto hw = random_vector<float>(cols, 6, 0.5f, 1.5f), hb = random_vector<float>(cols, 7, -1.0f, 1.0f);
  Buffer<float> x(st, hx), w(st, hw), b(st, hb);
  auto y = poisoned<float>(st, rows * cols);
  k.launch(st, {.grid = rows}, tensor(y, {rows, cols}), tensor(x, {rows, cols}), tensor(w, {cols}), tensor(b, {cols}),
           1e-5f);
  auto r = y.to_host(st);
  for (int i = 0; i < rows; ++i) {
    double mean = 0, var = 0;
    for (int j = 0; j < cols; ++j) mean += hx[i * cols + j];
    mean /= cols;
    for (int j = 0; j < cols; ++j) var += (hx[i * cols + j] - mean) * (hx[i * cols + j] - mean);
    const double rstd = 1 / std::sqrt(var / cols + 1e-5);
    for (int j = 0; j < cols; ++j)
      ASSERT_NEAR(r[i * cols + j], (hx[i * cols + j] - mean) * rstd * hw[j] + hb[j], 2e-5) << i << " " << j;
  }
}

}  // namespace

namespace {

template <class T>
std::vector<T> to_type(const std::vector<float>& v) {
  std::vector<T> r;
  for (float x : v) r.push_back(T(x));
  return r;
}

// C = A @ B with a K loop carrying the accumulator tile: tensor cores for f16/bf16 (and
// tf32), FMA for exact f32. Tensor-core loops copy a and b to shared memory with cp.async,
// `stages` - 1 iterations ahead; masked edges are zero-filled there.
struct MatmulCase {
  int M, N, K;
  int warps = 4, stages = 0;
  double a_pad = 0;  ///< a's padding: not zero keeps a out of cp.async (b alone is copied)
};

template <class T, int BM = 64, int BN = 32, int BK = 32>
void check_matmul(bool tf32, double tol, MatmulCase mc = {150, 70, 100}) {
  auto k = tile_kernel([=](Tensor<float, 2> c, Tensor<T, 2> a, Tensor<T, 2> b) {
    auto rm = program_id(0) * BM + arange(BM);
    auto rn = program_id(1) * BN + arange(BN);
    auto rk = arange(BK);
    auto acc = for_range(0, a.shape(1), BK, zeros<float>({BM, BN}), [&](i32 k0, Tile<float> acc) {
      auto ka = k0 + rk;
      auto am = (expand_dims(rm, 1) < a.shape(0)) & (expand_dims(ka, 0) < a.shape(1));
      auto ta = mc.a_pad == 0 ? load(a, {expand_dims(rm, 1), expand_dims(ka, 0)}, am)
                              : load(a, {expand_dims(rm, 1), expand_dims(ka, 0)}, am, Value<T>(mc.a_pad));
      auto tb = load(b, {expand_dims(ka, 1), expand_dims(rn, 0)}, (expand_dims(ka, 1) < b.shape(0)) & (expand_dims(rn, 0) < b.shape(1)));
      return dot(ta, tb, acc, tf32);
    });
    store(c, {expand_dims(rm, 1), expand_dims(rn, 0)}, acc, (expand_dims(rm, 1) < c.shape(0)) & (expand_dims(rn, 0) < c.shape(1)));
  }, {.name = "tile_matmul", .tile_stages = mc.stages}, mc.warps);
  Stream st;
  const int M = mc.M, N = mc.N, K = mc.K;
  auto ha = to_type<T>(random_vector<float>(M * K, 8, -1.0f, 1.0f));
  auto hb = to_type<T>(random_vector<float>(K * N, 9, -1.0f, 1.0f));
  Buffer<T> a(st, ha), b(st, hb);
  auto c = poisoned<float>(st, M * N);
  k.launch(st, {.grid = {static_cast<int>(ceil_div(M, BM)), static_cast<int>(ceil_div(N, BN))}}, tensor(c, {M, N}),
           tensor(a, {M, K}), tensor(b, {K, N}));
  auto r = c.to_host(st);
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double want = 0;
      for (int kk = 0; kk < K; ++kk) want += double(float(ha[i * K + kk])) * double(float(hb[kk * N + j]));
      ASSERT_NEAR(r[i * N + j], want, tol) << i << "," << j << " (" << M << "x" << N << "x" << K << ", " << mc.warps
                                           << " warps, " << mc.stages << " stages)";
    }
}

TEST(TileGpu, MatmulBf16OnTensorCores) {
  CUTLET_REQUIRE_GPU();
  check_matmul<bfloat16>(false, 1e-3);
}
TEST(TileGpu, MatmulF16OnTensorCores) {
  CUTLET_REQUIRE_GPU();
  check_matmul<half>(false, 1e-3);
}
TEST(TileGpu, MatmulTf32OnTensorCores) {
  CUTLET_REQUIRE_GPU();
  check_matmul<float>(true, 3e-2);  // tf32 keeps 10 mantissa bits
}
TEST(TileGpu, MatmulExactF32) {
  CUTLET_REQUIRE_GPU();
  check_matmul<float>(false, 1e-4);
}

// Every stage count, on 4 and 8 warps: 16-byte copies (K a multiple of 16), a last K step
// half masked, loops shorter than the pipeline (K = 40: two iterations), and 8-byte copies
// (K = 100: rows 8 bytes aligned).
TEST(TileGpu, MatmulPipelinesOfEveryDepth) {
  CUTLET_REQUIRE_GPU();
  for (int warps : {4, 8})
    for (int stages : {2, 3, 4, 6}) {
      check_matmul<bfloat16, 64, 64, 32>(false, 2e-3, {192, 160, 528, warps, stages});
      check_matmul<half, 64, 64, 32>(false, 1e-3, {70, 130, 40, warps, stages});
    }
  check_matmul<bfloat16, 128, 128, 64>(false, 2e-3, {300, 260, 100, 8, 3});
  check_matmul<float, 64, 64, 32>(true, 3e-2, {130, 96, 72, 4, 4});
  // a padded with 7 (times b's zero padding: no contribution) goes through registers.
  check_matmul<bfloat16, 64, 64, 32>(false, 2e-3, {192, 160, 528, 4, 3, 7.0});
  check_matmul<float, 64, 64, 32>(true, 3e-2, {130, 96, 72, 4, 2, 7.0});
}

// The stage buffers of a pipelined dot take the start of the dynamic shared memory; what a
// launch gives as shared_bytes comes after them, untouched by the copies. (The CPU device
// gives a block's own shared memory apart from the launch's: there the user's part is checked.)
TEST(TileGpu, DynamicSharedMemoryOfTheLaunchFollowsThePipelineStages) {
  CUTLET_REQUIRE_GPU();
  static constexpr int B = 64, BK = 32;
  auto k = tile_kernel([](Tensor<float, 2> c, Tensor<float, 1> kept, Tensor<bfloat16, 2> a, Tensor<bfloat16, 2> b) {
    auto mine = dynamic_shared<float>();
    i32 t = thread_idx().x;
    mine[t] = cast<float>(t) * 3.0f + 1.0f;
    auto r = arange(B), rk = arange(BK);
    auto acc = for_range(0, a.shape(1), BK, zeros<float>({B, B}), [&](i32 k0, Tile<float> acc) {
      auto ka = k0 + rk;
      return dot(load(a, {expand_dims(r, 1), expand_dims(ka, 0)}), load(b, {expand_dims(ka, 1), expand_dims(r, 0)}), acc);
    });
    store(c, {expand_dims(r, 1), expand_dims(r, 0)}, acc);
    syncthreads();
    store(kept, {arange(128)}, load(mine, arange(128)));
  }, {.name = "tile_pool_and_user_shared"});
  Stream st;
  const int K = 256;
  auto ha = to_type<bfloat16>(random_vector<float>(B * K, 21, -1.0f, 1.0f));
  auto hb = to_type<bfloat16>(random_vector<float>(K * B, 22, -1.0f, 1.0f));
  Buffer<bfloat16> a(st, ha), b(st, hb);
  auto c = poisoned<float>(st, B * B);
  auto kept = poisoned<float>(st, 128);
  k.launch(st, {.grid = 1, .shared_bytes = 128 * sizeof(float)}, tensor(c, {B, B}), tensor(kept, {128}), tensor(a, {B, K}),
           tensor(b, {K, B}));
  auto hk = kept.to_host(st);
  for (int t = 0; t < 128; ++t) ASSERT_EQ(hk[t], float(t) * 3.0f + 1.0f) << t;
  auto hc = c.to_host(st);
  for (int i = 0; i < B; ++i)
    for (int j = 0; j < B; ++j) {
      double want = 0;
      for (int kk = 0; kk < K; ++kk) want += double(float(ha[i * K + kk])) * double(float(hb[kk * B + j]));
      ASSERT_NEAR(hc[i * B + j], want, 2e-3) << i << "," << j;
    }
  if (!st.device().is_cpu()) {
    EXPECT_GT(k.last_specialization()->compiled->resources.dynamic_shared_bytes, 0);
  }
}

// Stages that do not fit in a block's shared memory are refused before linking, naming the
// option and the loads whose rings they are.
TEST(TileGpu, StagesBeyondTheSharedMemoryOfABlockAreRefused) {
  CUTLET_REQUIRE_CUDA("software-pipelined stages in shared memory");
  auto k = tile_kernel([](Tensor<float, 2> c, Tensor<bfloat16, 2> a, Tensor<bfloat16, 2> b) {
    auto rm = arange(256), rn = arange(128), rk = arange(64);
    auto acc = for_range(0, a.shape(1), 64, zeros<float>({256, 128}), [&](i32 k0, Tile<float> acc) {
      auto ka = k0 + rk;
      return dot(load(a, {expand_dims(rm, 1), expand_dims(ka, 0)}), load(b, {expand_dims(ka, 1), expand_dims(rn, 0)}), acc);
    });
    store(c, {expand_dims(rm, 1), expand_dims(rn, 0)}, acc);
  }, {.name = "tile_too_many_stages", .tile_stages = 8}, 8);
  Stream st;
  Buffer<bfloat16> a(256 * 64, st.device()), b(64 * 128, st.device());
  Buffer<float> c(256 * 128, st.device());
  const std::string msg = message_of(
      [&] { k.launch(st, {.grid = 1}, tensor(c, {256, 128}), tensor(a, {256, 64}), tensor(b, {64, 128})); });
  EXPECT_NE(msg.find("tile_stages, now 8"), std::string::npos) << msg;
  EXPECT_NE(msg.find("cp.async stage ring of the dot's a operand (8 stages"), std::string::npos) << msg;
  EXPECT_NE(msg.find("tile_gpu_test.cpp"), std::string::npos) << msg;
}

TEST(TileGpu, IfChoosesATileUniformly) {
  CUTLET_REQUIRE_GPU();
  auto k = tile_kernel([](Tensor<float, 1> y, Tensor<float, 1> x) {
    auto i = program_id(0) * 256 + arange(256);
    auto m = i < x.shape(0);
    auto v = load(x, {i}, m);
    auto r = if_((program_id(0) % 2) == 0, [&] { return v * 2.0f; }, [&] { return v - 1.0f; });
    store(y, {i}, r, m);
  }, {.name = "tile_if"});
  Stream st;
  const int n = 1000;
  auto h = random_vector<float>(n, 10, -1.0f, 1.0f);
  Buffer<float> x(st, h);
  auto y = poisoned<float>(st, n);
  k.launch(st, {.grid = static_cast<int>(ceil_div(n, 256))}, tensor(y, {n}), tensor(x, {n}));
  auto r = y.to_host(st);
  for (int i = 0; i < n; ++i) ASSERT_EQ(r[i], (i / 256) % 2 == 0 ? h[i] * 2.0f : h[i] - 1.0f) << i;
}

}  // namespace

namespace {

// argmax/argmin (first index on ties) along both axes, and a reduction with a user combine.
TEST(TileGpu, ArgmaxArgminAndUserCombineReductions) {
  CUTLET_REQUIRE_GPU();
  constexpr int R = 32, C = 128;
  auto k = tile_kernel([](Tensor<std::int32_t, 1> amax1, Tensor<std::int32_t, 1> amin0, Tensor<float, 1> range1,
                          Tensor<float, 2> x) {
    auto r = arange(R), c = arange(C);
    auto t = load(x, {expand_dims(r, 1), expand_dims(c, 0)});
    store(amax1, {r}, argmax(t, 1));
    store(amin0, {c}, argmin(t, 0));
    // max - min of each row through one tuple reduction.
    auto [hi, lo] = reduce(std::tuple{t, t}, 1, [](f32 h1, f32 l1, f32 h2, f32 l2) {
      return std::tuple{max(h1, h2), min(l1, l2)};
    });
    store(range1, {r}, hi - lo);
  }, {.name = "tile_argmax"});
  Stream st;
  std::vector<float> h(R * C);
  auto ints = random_vector<std::int32_t>(R * C, 11, 0, 9);  // many ties
  for (int i = 0; i < R * C; ++i) h[i] = static_cast<float>(ints[i]);
  Buffer<float> x(st, h);
  auto a1 = poisoned<std::int32_t>(st, R), a0 = poisoned<std::int32_t>(st, C);
  auto rg = poisoned<float>(st, R);
  k.launch(st, {.grid = 1}, tensor(a1, {R}), tensor(a0, {C}), tensor(rg, {R}), tensor(x, {R, C}));
  auto g1 = a1.to_host(st), g0 = a0.to_host(st);
  auto gr = rg.to_host(st);
  for (int i = 0; i < R; ++i) {
    int best = 0;
    float lo = h[i * C], hi = h[i * C];
    for (int j = 1; j < C; ++j) {
      if (h[i * C + j] > h[i * C + best]) best = j;
      lo = std::min(lo, h[i * C + j]);
      hi = std::max(hi, h[i * C + j]);
    }
    ASSERT_EQ(g1[i], best) << i;
    ASSERT_EQ(gr[i], hi - lo) << i;
  }
  for (int j = 0; j < C; ++j) {
    int best = 0;
    for (int i = 1; i < R; ++i)
      if (h[i * C + j] < h[best * C + j]) best = i;
    ASSERT_EQ(g0[j], best) << j;
  }
}

// Scans: cumsum along each axis of 2-D tiles, long and short 1-D ones, and a non-commutative
// tuple combine (composing affine maps x -> a x + b in order).
TEST(TileGpu, ScansInOrderAlongEachAxis) {
  CUTLET_REQUIRE_GPU();
  auto k = tile_kernel([](Tensor<float, 2> rows, Tensor<float, 2> cols, Tensor<std::int32_t, 1> long1,
                          Tensor<std::int32_t, 1> short1, Tensor<float, 1> fa, Tensor<float, 1> fb, Tensor<float, 2> x,
                          Tensor<std::int32_t, 1> n, Tensor<float, 1> a, Tensor<float, 1> b) {
    auto r = arange(8), c = arange(256);
    auto t = load(x, {expand_dims(r, 1), expand_dims(c, 0)});
    store(rows, {expand_dims(r, 1), expand_dims(c, 0)}, cumsum(t, 1));
    store(cols, {expand_dims(r, 1), expand_dims(c, 0)}, cumsum(t, 0));
    auto i = arange(4096);
    store(long1, {i}, cumsum(load(n, {i}), 0));
    auto s = arange(16);
    store(short1, {s}, cumprod(load(n, {s}) % 3 + 1, 0));
    auto [ca, cb] = scan(std::tuple{load(a, {i}), load(b, {i})}, 0, [](f32 a1, f32 b1, f32 a2, f32 b2) {
      return std::tuple{a1 * a2, b1 * a2 + b2};  // first (a1, b1), then (a2, b2)
    });
    store(fa, {i}, ca);
    store(fb, {i}, cb);
  }, {.name = "tile_scans"});
  Stream st;
  auto hx = random_vector<float>(8 * 256, 12, -1.0f, 1.0f);
  auto hn = random_vector<std::int32_t>(4096, 13, -100, 100);
  auto ha = random_vector<float>(4096, 14, 0.999f, 1.001f), hb = random_vector<float>(4096, 15, -0.01f, 0.01f);
  Buffer<float> x(st, hx), a(st, ha), b(st, hb);
  Buffer<std::int32_t> n(st, hn);
  auto rows = poisoned<float>(st, 8 * 256), cols = poisoned<float>(st, 8 * 256), fa = poisoned<float>(st, 4096),
       fb = poisoned<float>(st, 4096);
  auto l1 = poisoned<std::int32_t>(st, 4096), s1 = poisoned<std::int32_t>(st, 16);
  k.launch(st, {.grid = 1}, tensor(rows, {8, 256}), tensor(cols, {8, 256}), tensor(l1, {4096}), tensor(s1, {16}),
           tensor(fa, {4096}), tensor(fb, {4096}), tensor(x, {8, 256}), tensor(n, {4096}), tensor(a, {4096}),
           tensor(b, {4096}));
  auto gr = rows.to_host(st), gc = cols.to_host(st), ga = fa.to_host(st), gb = fb.to_host(st);
  auto gl = l1.to_host(st), gs = s1.to_host(st);
  for (int i = 0; i < 8; ++i) {
    double s = 0;
    for (int j = 0; j < 256; ++j) {
      s += hx[i * 256 + j];
      ASSERT_NEAR(gr[i * 256 + j], s, 1e-4) << i << "," << j;
    }
  }
  for (int j = 0; j < 256; ++j) {
    double s = 0;
    for (int i = 0; i < 8; ++i) {
      s += hx[i * 256 + j];
      ASSERT_NEAR(gc[i * 256 + j], s, 1e-5) << i << "," << j;
    }
  }
  std::int64_t s = 0;
  for (int i = 0; i < 4096; ++i) {
    s += hn[i];
    ASSERT_EQ(gl[i], s) << i;
  }
  std::int32_t p = 1;
  for (int i = 0; i < 16; ++i) {
    p *= ((hn[i] % 3) + 1);
    ASSERT_EQ(gs[i], p) << i;
  }
  double A = 1, B = 0;
  for (int i = 0; i < 4096; ++i) {
    A = A * ha[i];
    B = B * ha[i] + hb[i];
    ASSERT_NEAR(ga[i], A, 1e-4 * std::abs(A)) << i;
    ASSERT_NEAR(gb[i], B, 1e-4) << i;
  }
}

}  // namespace

namespace {

// Tile atomics scatter with repeated indices: a histogram (integer add), float sums into few
// slots, a masked max; every update lands once, old values come back.
TEST(TileGpu, AtomicsOnTilesOfAddresses) {
  CUTLET_REQUIRE_GPU();
  auto k = tile_kernel([](Tensor<std::uint32_t, 1> hist, Tensor<float, 1> sums, Tensor<std::int32_t, 1> best,
                          Tensor<std::int32_t, 1> bins, Tensor<float, 1> x) {
    auto i = program_id(0) * 512 + arange(512);
    auto m = i < x.shape(0);
    auto b = load(bins, {i}, m);
    atomic_add(hist, {b}, full<std::uint32_t>({512}, 1u), m);
    atomic_add(sums, {b % 7}, load(x, {i}, m), m);
    atomic_max(best, {b % 3}, i, m);
  }, {.name = "tile_atomics"});
  Stream st;
  const int n = 100003;
  auto hb = random_vector<std::int32_t>(n, 16, 0, 63);
  auto hx = random_vector<float>(n, 17, 0.0f, 1.0f);
  Buffer<std::int32_t> bins(st, hb);
  Buffer<float> x(st, hx);
  Buffer<std::uint32_t> hist(st, std::vector<std::uint32_t>(64, 0));
  Buffer<float> sums(st, std::vector<float>(7, 0.0f));
  Buffer<std::int32_t> best(st, std::vector<std::int32_t>(3, -1));
  k.launch(st, {.grid = static_cast<int>(ceil_div(n, 512))}, tensor(hist, {64}), tensor(sums, {7}), tensor(best, {3}),
           tensor(bins, {n}), tensor(x, {n}));
  auto gh = hist.to_host(st);
  auto gs = sums.to_host(st);
  auto gb = best.to_host(st);
  std::vector<std::uint32_t> wh(64, 0);
  std::vector<double> ws(7, 0);
  std::vector<std::int32_t> wb(3, -1);
  for (int i = 0; i < n; ++i) {
    ++wh[hb[i]];
    ws[hb[i] % 7] += hx[i];
    wb[hb[i] % 3] = std::max(wb[hb[i] % 3], i);
  }
  for (int b = 0; b < 64; ++b) ASSERT_EQ(gh[b], wh[b]) << b;
  for (int s = 0; s < 7; ++s) ASSERT_NEAR(gs[s], ws[s], 1e-5 * ws[s] + 1e-3) << s;  // f32 sums in any order
  for (int s = 0; s < 3; ++s) ASSERT_EQ(gb[s], wb[s]) << s;
}

// Dropping to per-thread code inside a tile kernel: a tile goes to shared memory, each warp
// reverses its 32 elements with shuffles, and the result comes back as a tile.
TEST(TileGpu, PerThreadCodeInsideATileKernel) {
  CUTLET_REQUIRE_GPU();
  auto k = tile_kernel([](Tensor<float, 1> y, Tensor<float, 1> x) {
    auto i = program_id(0) * 128 + arange(128);
    auto m = i < x.shape(0);
    auto s = shared_array<float>(128);
    store(s, arange(128), load(x, {i}, m) * 2.0f);
    syncthreads();
    // Per-thread code: 128 threads (4 warps), one element each.
    i32 t = thread_idx().x;
    f32 v = s[t];
    f32 r = shfl_sync(full_mask, v, 31 - lane_id());
    syncthreads();
    s[t] = r;
    syncthreads();
    store(y, {i}, load(s, arange(128)) + 1.0f, m);
  }, {.name = "tile_mixed"});
  Stream st;
  const int n = 1000;
  auto h = random_vector<float>(n, 18, -1.0f, 1.0f);
  Buffer<float> x(st, h);
  auto y = poisoned<float>(st, n);
  k.launch(st, {.grid = static_cast<int>(ceil_div(n, 128))}, tensor(y, {n}), tensor(x, {n}));
  auto r = y.to_host(st);
  for (int i = 0; i < n; ++i) {
    const int src = (i / 32) * 32 + (31 - i % 32);
    const float want = (src < n ? h[src] * 2.0f : 0.0f) + 1.0f;
    ASSERT_EQ(r[i], want) << i;
  }
}

}  // namespace

namespace {

// Transpose, 3-D permutation and reshape move every element where NumPy would.
TEST(TileGpu, PermuteTransposeAndReshape) {
  CUTLET_REQUIRE_GPU();
  auto k = tile_kernel([](Tensor<float, 2> t_out, Tensor<std::int32_t, 3> p_out, Tensor<float, 2> r_out,
                          Tensor<float, 2> x) {
    auto r = arange(16), c = arange(64);
    auto t = load(x, {expand_dims(r, 1), expand_dims(c, 0)});
    store(t_out, {expand_dims(c, 1), expand_dims(r, 0)}, transpose(t));
    auto a = arange(2), b = arange(4), d = arange(8);
    auto cube = expand_dims(expand_dims(a, 1), 2) * 100 + expand_dims(expand_dims(b, 0), 2) * 10 + expand_dims(expand_dims(d, 0), 0);
    auto pc = permute(cube, {2, 0, 1});  // [8, 2, 4]
    store(p_out, {expand_dims(expand_dims(d, 1), 2), expand_dims(expand_dims(a, 0), 2), expand_dims(expand_dims(b, 0), 0)}, pc);
    auto rr = arange(32), cc = arange(32);
    store(r_out, {expand_dims(rr, 1), expand_dims(cc, 0)}, reshape(t, {32, 32}));
  }, {.name = "tile_permute"});
  Stream st;
  auto h = random_vector<float>(16 * 64, 19, -1.0f, 1.0f);
  Buffer<float> x(st, h);
  auto to = poisoned<float>(st, 64 * 16), ro = poisoned<float>(st, 32 * 32);
  auto po = poisoned<std::int32_t>(st, 8 * 2 * 4);
  k.launch(st, {.grid = 1}, tensor(to, {64, 16}), tensor(po, {8, 2, 4}), tensor(ro, {32, 32}), tensor(x, {16, 64}));
  auto gt = to.to_host(st), gr = ro.to_host(st);
  auto gp = po.to_host(st);
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 64; ++j) ASSERT_EQ(gt[j * 16 + i], h[i * 64 + j]) << i << "," << j;
  for (int e = 0; e < 16 * 64; ++e) ASSERT_EQ(gr[e], h[e]) << e;
  for (int dd = 0; dd < 8; ++dd)
    for (int aa = 0; aa < 2; ++aa)
      for (int bb = 0; bb < 4; ++bb) ASSERT_EQ(gp[(dd * 2 + aa) * 4 + bb], aa * 100 + bb * 10 + dd);
}

}  // namespace
