// Vector (8/16-byte) loads, stores and lane arithmetic, including packed f16/bf16.
#include "gpu_test_support.h"
#include "kernel_test_support.h"

using namespace cutlet;
using namespace cutlet::test;

namespace {

TEST(VectorGpu, Float4Saxpy) {
  CUTLET_REQUIRE_GPU();
  auto k = kernel([](Ptr<float> y, Ptr<float> x, f32 a, i32 n4) {
    i32 i = block_idx().x * block_dim().x + thread_idx().x;
    if_(i < n4, [&] {
      f32x4 v = a * x.vload<4>(i) + y.vload<4>(i, CacheHint::Streaming);
      y.vstore<4>(i, v.with(3, v[3] + 0.0f));
    });
  }, {.name = "saxpy4_test"});
  Stream st;
  const int n = 4 * 100003;
  auto hx = random_vector<float>(n, 41, -2.0f, 2.0f), hy = random_vector<float>(n, 42, -2.0f, 2.0f);
  Buffer<float> x(st, hx), y(st, hy);
  k.launch(st, {.grid = ceil_div(n / 4, 256), .block = 256}, y, x, 1.5f, n / 4);
  auto r = y.to_host(st);
  for (int i = 0; i < n; ++i) ASSERT_NEAR(r[i], std::fma(1.5f, hx[i], hy[i]), 1e-5f) << i;
}

TEST(VectorGpu, LanesOfIntegerAndDoubleVectors) {
  CUTLET_REQUIRE_GPU();
  auto k = kernel([](Ptr<int> out, Ptr<int> x, Ptr<double> d) {
    i32 t = thread_idx().x;
    i32x4 v = x.vload<4>(t);
    i32x4 w = min(v, i32x4::splat(100)) * 2 - v;
    out.vstore<4>(t, w);
    f64x2 p = d.vload<2>(t);
    d.vstore<2>(t, p * p);
  }, {.name = "int_vectors"});
  Stream st;
  auto hx = random_vector<int>(4 * 64, 43, -500, 500);
  auto hd = random_vector<double>(2 * 64, 44, -3.0, 3.0);
  Buffer<int> x(st, hx);
  Buffer<double> d(st, hd);
  auto out = poisoned<int>(st, 4 * 64);
  k.launch(st, {.grid = 1, .block = 64}, out, x, d);
  auto r = out.to_host(st);
  auto rd = d.to_host(st);
  for (int i = 0; i < 4 * 64; ++i) ASSERT_EQ(r[i], std::min(hx[i], 100) * 2 - hx[i]) << i;
  for (int i = 0; i < 2 * 64; ++i) ASSERT_EQ(rd[i], hd[i] * hd[i]) << i;
}

TEST(VectorGpu, PackedHalfAndBfloat16Arithmetic) {
  CUTLET_REQUIRE_GPU();
  auto k = kernel([](Ptr<half> h, Ptr<bfloat16> b, i32 n8) {
    i32 i = block_idx().x * block_dim().x + thread_idx().x;
    if_(i < n8, [&] {
      f16x8 v = h.vload<8>(i);
      h.vstore<8>(i, v * v + v);
      bf16x8 w = b.vload<8>(i);
      b.vstore<8>(i, w * 2.0f - w);
    });
  }, {.name = "packed_half"});
  Stream st;
  const int n = 8 * 1001;
  auto hf = random_vector<float>(n, 45, -2.0f, 2.0f);
  std::vector<half> hh(hf.begin(), hf.end());
  std::vector<bfloat16> hb(hf.begin(), hf.end());
  Buffer<half> h(st, hh);
  Buffer<bfloat16> b(st, hb);
  k.launch(st, {.grid = ceil_div(n / 8, 128), .block = 128}, h, b, n / 8);
  auto rh = h.to_host(st);
  auto rb = b.to_host(st);
  for (int i = 0; i < n; ++i) {
    float v = hh[i];
    // fma.rn.f16x2 rounds once; compare with the once-rounded reference.
    EXPECT_EQ(static_cast<float>(rh[i]), static_cast<float>(half(std::fma(v, v, v)))) << i;
    float w = hb[i];
    EXPECT_EQ(static_cast<float>(rb[i]), static_cast<float>(bfloat16(std::fma(w, 2.0f, -w)))) << i;
  }
}

}  // namespace
