// Structs passed to kernels by value, on the GPU: every scalar field type, nested structs,
// array fields and bools, against the values the host put in.
#include "gpu_test_support.h"
#include "kernel_test_support.h"

using namespace cutlet;
using namespace cutlet::test;

namespace {

struct Affine {
  double scale;
  float shift;
};
struct Mixed {
  std::int8_t i8;
  std::uint16_t u16;
  bool flip;
  half h;
  std::int64_t i64;
  std::uint32_t u32;
  Affine affine;
  float weights[3];
  bfloat16 b;
  int n;
};

TEST(StructParamGpu, EveryFieldArrivesAsTheHostLaidItOut) {
  CUTLET_REQUIRE_GPU();
  auto k = kernel([](Struct<Mixed> p, Ptr<double> out, Ptr<float> y, Ptr<float> x) {
    i32 i = block_idx().x * block_dim().x + thread_idx().x;
    if_(i < p[&Mixed::n], [&] {
      auto a = p[&Mixed::affine];
      f32 v = x[i] * cast<float>(a[&Affine::scale]) + a[&Affine::shift];
      for (std::size_t w = 0; w < 3; ++w) v = v + p[&Mixed::weights][w] * cast<float>(i % 7);
      y[i] = select(p[&Mixed::flip], -v, v);
    });
    if_(i == 0, [&] {
      out[0] = cast<double>(p[&Mixed::i8]);
      out[1] = cast<double>(p[&Mixed::u16]);
      out[2] = cast<double>(p[&Mixed::h]);
      out[3] = cast<double>(p[&Mixed::i64]);
      out[4] = cast<double>(p[&Mixed::u32]);
      out[5] = cast<double>(p[&Mixed::b]);
      out[6] = select(p[&Mixed::flip], 1.0, 0.0);
    });
  }, {.name = "mixed_struct"});
  Stream st;
  const int n = 100003;
  auto hx = random_vector<float>(n, 11, -2.0f, 2.0f);
  Buffer<float> x(st, hx);
  for (bool flip : {false, true}) {
    Mixed m{};
    m.i8 = -77;
    m.u16 = 60001;
    m.flip = flip;
    m.h = half(1.5f);
    m.i64 = -(std::int64_t{1} << 40) - 3;
    m.u32 = 4000000001u;
    m.affine = {0.75, -1.25f};
    m.weights[0] = 0.5f;
    m.weights[1] = -0.25f;
    m.weights[2] = 2.0f;
    m.b = bfloat16(-3.0f);
    m.n = n - 17;  // the tail stays poisoned
    auto y = poisoned<float>(st, n);
    auto out = poisoned<double>(st, 7);
    k.launch(st, {.grid = static_cast<int>(ceil_div(n, 256)), .block = 256}, m, out, y, x);
    auto hy = y.to_host(st);
    auto poison = poisoned<float>(st, 1).to_host(st)[0];
    for (int i = 0; i < n; ++i) {
      if (i >= m.n) {
        ASSERT_EQ(std::memcmp(&hy[i], &poison, sizeof(float)), 0) << i;
        continue;
      }
      float v = hx[i] * static_cast<float>(m.affine.scale) + m.affine.shift;
      for (float w : m.weights) v += w * static_cast<float>(i % 7);
      ASSERT_NEAR(hy[i], flip ? -v : v, 1e-5f * (1 + std::abs(v))) << i;
    }
    auto ho = out.to_host(st);
    EXPECT_EQ(ho[0], -77);
    EXPECT_EQ(ho[1], 60001);
    EXPECT_EQ(ho[2], 1.5);
    EXPECT_EQ(ho[3], static_cast<double>(m.i64));
    EXPECT_EQ(ho[4], 4000000001.0);
    EXPECT_EQ(ho[5], -3.0);
    EXPECT_EQ(ho[6], flip ? 1.0 : 0.0);
  }
}

TEST(StructParamGpu, GenericLambdaSpecializesOnTheStructType) {
  CUTLET_REQUIRE_GPU();
  auto k = kernel([](auto p, auto y, auto n) {
    i32 i = block_idx().x * block_dim().x + thread_idx().x;
    if_(i < n, [&] { y[i] = y[i] * cast<float>(p[&Affine::scale]) + p[&Affine::shift]; });
  }, {.name = "generic_affine"});
  Stream st;
  const int n = 4097;
  auto h = random_vector<float>(n, 5, -1.0f, 1.0f);
  Buffer<float> y(st, h);
  k.launch(st, {.grid = static_cast<int>(ceil_div(n, 128)), .block = 128}, Affine{-2.0, 0.5f}, y, n);
  auto r = y.to_host(st);
  for (int i = 0; i < n; ++i) ASSERT_NEAR(r[i], h[i] * -2.0f + 0.5f, 1e-6f) << i;
  // Another struct type where the kernel expects an Affine is a bad argument, in words.
  auto typed = kernel([](Struct<Affine> p, Ptr<float> y) { y[0] = p[&Affine::shift]; }, {.name = "typed_affine"});
  auto msg = message_of([&] { typed.launch(st, {.grid = 1, .block = 1}, Mixed{}, y); });
  EXPECT_NE(msg.find("argument 1 is a host struct (anonymous namespace)::Mixed but the parameter is "
                     "Struct<(anonymous namespace)::Affine>"),
            std::string::npos)
      << msg;
}

}  // namespace
