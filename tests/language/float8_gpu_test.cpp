// FP8 on the GPU against the host's conversions (cutlet/runtime/float8.h, themselves checked
// against a brute-force search in float8_test.cpp): every code of both formats decoded to f32,
// f16, bf16 and i32; f32, f16, bf16 and i32 values (ties, neighbours of ties, subnormals,
// saturation, infinities, NaN, random) encoded; and a tile kernel that loads, scales,
// converts, transposes and stores FP8 tiles with masked edges.
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>

#include "gpu_test_support.h"
#include "kernel_test_support.h"

using namespace cutlet;
using namespace cutlet::test;

namespace {

/// The inputs of the encoding tests: midpoints between neighbouring codes of either format
/// and their neighbours, specials, and random magnitudes from 2^-24 to 2^18 of both signs.
std::vector<float> encoding_inputs() {
  std::vector<float> xs = {0.0f, -0.0f, 448.0f, 464.0f, 465.0f, 57344.0f, 61440.0f, 1e9f,
                           std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                           std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::denorm_min(),
                           std::numeric_limits<float>::max()};
  for (unsigned c = 0; c + 1 < 0x7f; ++c) {
    for (bool e4 : {true, false}) {
      const float a = e4 ? float(float8_e4m3::from_bits(c)) : float(float8_e5m2::from_bits(c));
      const float b = e4 ? float(float8_e4m3::from_bits(c + 1)) : float(float8_e5m2::from_bits(c + 1));
      if (!std::isfinite(a) || !std::isfinite(b)) continue;
      const float mid = (a + b) / 2;
      xs.insert(xs.end(), {mid, std::nextafter(mid, 0.0f), std::nextafter(mid, 1e30f), -mid});
    }
  }
  std::mt19937 rng(89);
  std::uniform_real_distribution<float> exponent(-24.0f, 18.0f);
  for (int i = 0; i < 30000; ++i) xs.push_back((i & 1 ? -1 : 1) * std::exp2(exponent(rng)));
  return xs;
}

/// Expects FP8 `got` to be the host's `want`, either NaN where `want` is.
template <class F8>
void expect_fp8(F8 got, F8 want, const char* what, float from) {
  if (std::isnan(static_cast<float>(want))) EXPECT_TRUE(std::isnan(static_cast<float>(got))) << what << " of " << from;
  else ASSERT_EQ(got.bits, want.bits) << what << " of " << from << " (host " << float(want) << ", GPU " << float(got) << ")";
}

TEST(Float8Gpu, EveryCodeDecodesExactlyToEveryType) {
  CUTLET_REQUIRE_GPU();
  auto k = kernel([](Ptr<float> f4, Ptr<half> h4, Ptr<bfloat16> b4, Ptr<int> i4, Ptr<float> f5, Ptr<half> h5, Ptr<float8_e4m3> q4,
                     Ptr<float8_e5m2> q5, Ptr<float8_e4m3> code4, Ptr<float8_e5m2> code5) {
    i32 i = thread_idx().x;
    Value<float8_e4m3> a = code4[i];
    Value<float8_e5m2> b = code5[i];
    f4[i] = cast<float>(a);
    h4[i] = cast<half>(a);
    b4[i] = cast<bfloat16>(a);
    i4[i] = cast<int>(select((i & 0x7f) == 0x7f, Value<float8_e4m3>(0.0f), a));  // NaN has no integer
    f5[i] = cast<float>(b);
    h5[i] = cast<half>(b);
    q4[i] = cast<float8_e4m3>(b);  // E5M2 -> E4M3 rounds (through f16, exactly once)
    q5[i] = cast<float8_e5m2>(a);
  }, {.name = "fp8_decode"});
  Stream st;
  std::vector<float8_e4m3> c4(256);
  std::vector<float8_e5m2> c5(256);
  for (unsigned c = 0; c < 256; ++c) c4[c] = float8_e4m3::from_bits(c), c5[c] = float8_e5m2::from_bits(c);
  Buffer<float8_e4m3> code4(st, c4);
  Buffer<float8_e5m2> code5(st, c5);
  auto f4 = poisoned<float>(st, 256), f5 = poisoned<float>(st, 256);
  auto h4 = poisoned<half>(st, 256), h5 = poisoned<half>(st, 256);
  auto b4 = poisoned<bfloat16>(st, 256);
  auto i4 = poisoned<int>(st, 256);
  auto q4 = poisoned<float8_e4m3>(st, 256);
  auto q5 = poisoned<float8_e5m2>(st, 256);
  k.launch(st, {.grid = 1, .block = 256}, f4, h4, b4, i4, f5, h5, q4, q5, code4, code5);
  auto rf4 = f4.to_host(st), rf5 = f5.to_host(st);
  auto rh4 = h4.to_host(st), rh5 = h5.to_host(st);
  auto rb4 = b4.to_host(st);
  auto ri4 = i4.to_host(st);
  auto rq4 = q4.to_host(st);
  auto rq5 = q5.to_host(st);
  for (unsigned c = 0; c < 256; ++c) {
    const float a = c4[c], b = c5[c];
    if (std::isnan(a)) {
      EXPECT_TRUE(std::isnan(rf4[c]) && std::isnan(float(rh4[c])) && std::isnan(float(rb4[c]))) << c;
    } else {
      EXPECT_EQ(std::bit_cast<std::uint32_t>(rf4[c]), std::bit_cast<std::uint32_t>(a)) << "e4m3 code " << c;
      EXPECT_EQ(rh4[c].bits, half(a).bits) << "e4m3 code " << c;
      EXPECT_EQ(rb4[c].bits, bfloat16(a).bits) << "e4m3 code " << c;
      EXPECT_EQ(ri4[c], static_cast<int>(a)) << "e4m3 code " << c;
    }
    if (std::isnan(b)) {
      EXPECT_TRUE(std::isnan(rf5[c]) && std::isnan(float(rh5[c]))) << c;
    } else {
      EXPECT_EQ(std::bit_cast<std::uint32_t>(rf5[c]), std::bit_cast<std::uint32_t>(b)) << "e5m2 code " << c;
      EXPECT_EQ(rh5[c].bits, half(b).bits) << "e5m2 code " << c;
    }
    expect_fp8(rq4[c], float8_e4m3(b), "e4m3", b);
    expect_fp8(rq5[c], float8_e5m2(a), "e5m2", a);
  }
}

TEST(Float8Gpu, F32F16Bf16AndIntegersEncodeAsTheHostDoes) {
  CUTLET_REQUIRE_GPU();
  auto k = kernel([](Ptr<float8_e4m3> from_f, Ptr<float8_e5m2> from_f5, Ptr<float8_e4m3> from_h, Ptr<float8_e5m2> from_b,
                     Ptr<float8_e4m3> from_i, Ptr<float> f, Ptr<half> h, Ptr<bfloat16> b, Ptr<int> n, i32 count) {
    i32 i = block_idx().x * block_dim().x + thread_idx().x;
    if_(i < count, [&] {
      from_f[i] = cast<float8_e4m3>(Value<float>(f[i]));
      from_f5[i] = cast<float8_e5m2>(Value<float>(f[i]));
      from_h[i] = cast<float8_e4m3>(Value<half>(h[i]));
      from_b[i] = cast<float8_e5m2>(Value<bfloat16>(b[i]));
      from_i[i] = cast<float8_e4m3>(Value<int>(n[i]));
    });
  }, {.name = "fp8_encode"});
  const std::vector<float> xs = encoding_inputs();
  const int count = static_cast<int>(xs.size());
  std::vector<half> hs;
  std::vector<bfloat16> bs;
  std::vector<int> ns;
  std::mt19937 rng(5);
  std::uniform_int_distribution<int> small(-600, 600);
  for (int i = 0; i < count; ++i) {
    hs.push_back(half(xs[i]));
    bs.push_back(bfloat16(xs[i]));
    ns.push_back(i % 7 == 0 ? (i * 7919) * (i & 1 ? -1 : 1) : small(rng));
  }
  Stream st;
  Buffer<float> f(st, xs);
  Buffer<half> h(st, hs);
  Buffer<bfloat16> b(st, bs);
  Buffer<int> n(st, ns);
  auto from_f = poisoned<float8_e4m3>(st, count), from_h = poisoned<float8_e4m3>(st, count);
  auto from_i = poisoned<float8_e4m3>(st, count);
  auto from_f5 = poisoned<float8_e5m2>(st, count), from_b = poisoned<float8_e5m2>(st, count);
  k.launch(st, {.grid = ceil_div(count, 256), .block = 256}, from_f, from_f5, from_h, from_b, from_i, f, h, b, n, count);
  auto rf = from_f.to_host(st), rh = from_h.to_host(st), ri = from_i.to_host(st);
  auto rf5 = from_f5.to_host(st), rb = from_b.to_host(st);
  for (int i = 0; i < count; ++i) {
    expect_fp8(rf[i], float8_e4m3(xs[i]), "e4m3 from f32", xs[i]);
    expect_fp8(rf5[i], float8_e5m2(xs[i]), "e5m2 from f32", xs[i]);
    expect_fp8(rh[i], float8_e4m3(float(hs[i])), "e4m3 from f16", float(hs[i]));
    expect_fp8(rb[i], float8_e5m2(float(bs[i])), "e5m2 from bf16", float(bs[i]));
    expect_fp8(ri[i], float8_e4m3(static_cast<float>(ns[i])), "e4m3 from i32", static_cast<float>(ns[i]));
  }
}

TEST(Float8Gpu, TileKernelScalesConvertsAndTransposesWithMaskedEdges) {
  CUTLET_REQUIRE_GPU();
  // out[c, r] = e5m2(float(in[r, c]) * scale) over tiles of 64x32, on a ragged 301 x 77 tensor.
  auto k = tile_kernel([](Tensor<float8_e5m2, 2> out, Tensor<float8_e4m3, 2> in, f32 scale) {
    auto r = program_id(0) * 64 + arange(64);
    auto c = program_id(1) * 32 + arange(32);
    auto rr = expand_dims(r, 1), cc = expand_dims(c, 0);
    auto m = (rr < in.shape(0)) & (cc < in.shape(1));
    auto x = cast<float>(load(in, {rr, cc}, m, Value<float8_e4m3>(1.0f)));
    auto y = cast<float8_e5m2>(x * scale);
    store(out, {transpose(cc), transpose(rr)}, transpose(y), transpose(m));
  }, {.name = "fp8_tile_transpose"});
  const int rows = 301, cols = 77;
  std::vector<float8_e4m3> hin(rows * cols);
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> d(-300.0f, 300.0f);
  for (auto& v : hin) v = float8_e4m3(d(rng));
  const float scale = 250.5f;  // pushes the largest products past E5M2's range: saturation
  Stream st;
  Buffer<float8_e4m3> in(st, hin);
  auto out = poisoned<float8_e5m2>(st, rows * cols);
  k.launch(st, {.grid = {ceil_div(rows, 64), ceil_div(cols, 32)}}, tensor(out, {cols, rows}), tensor(in, {rows, cols}), scale);
  auto r = out.to_host(st);
  int saturated = 0;
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) {
      const float want_f = float(hin[i * cols + j]) * scale;
      const float8_e5m2 want(want_f);
      saturated += want.bits == 0x7b || want.bits == 0xfb;
      ASSERT_EQ(r[j * rows + i].bits, want.bits) << "out[" << j << ", " << i << "] of " << want_f;
    }
  EXPECT_GT(saturated, 0) << "the test should reach E5M2's saturation";
}

}  // namespace
