// Casts between the two 16-bit float types on the GPU: every f16 bit pattern converted to
// bf16 and every bf16 one to f16, against the host's conversion through float (exact, then
// rounded once to nearest even).
#include <cmath>
#include <cstdint>

#include "gpu_test_support.h"
#include "kernel_test_support.h"

using namespace cutlet;
using namespace cutlet::test;

namespace {

TEST(HalfCastGpu, EveryF16ToBf16AndBack) {
  CUTLET_REQUIRE_GPU();
  auto k = kernel([](Ptr<bfloat16> to_bf16, Ptr<half> to_f16, Ptr<half> h, Ptr<bfloat16> b, i32 n) {
    i32 i = block_idx().x * block_dim().x + thread_idx().x;
    if_(i < n, [&] {
      to_bf16[i] = cast<bfloat16>(Value<half>(h[i]));
      to_f16[i] = cast<half>(Value<bfloat16>(b[i]));
    });
  }, {.name = "half_casts"});
  const int n = 1 << 16;
  std::vector<half> hh(n);
  std::vector<bfloat16> hb(n);
  for (int i = 0; i < n; ++i) {
    hh[i] = half::from_bits(static_cast<std::uint16_t>(i));
    hb[i] = bfloat16::from_bits(static_cast<std::uint16_t>(i));
  }
  Stream st;
  Buffer<half> h(st, hh);
  Buffer<bfloat16> b(st, hb);
  auto to_bf16 = poisoned<bfloat16>(st, n);
  auto to_f16 = poisoned<half>(st, n);
  k.launch(st, {.grid = ceil_div(n, 256), .block = 256}, to_bf16, to_f16, h, b, n);
  auto rb = to_bf16.to_host(st);
  auto rh = to_f16.to_host(st);
  for (int i = 0; i < n; ++i) {
    const float from_h = hh[i], from_b = hb[i];
    if (std::isnan(from_h)) EXPECT_TRUE(std::isnan(static_cast<float>(rb[i]))) << i;
    else ASSERT_EQ(rb[i].bits, bfloat16(from_h).bits) << "bf16 of f16 bits " << i;
    if (std::isnan(from_b)) EXPECT_TRUE(std::isnan(static_cast<float>(rh[i]))) << i;
    else ASSERT_EQ(rh[i].bits, half(from_b).bits) << "f16 of bf16 bits " << i;
  }
}

}  // namespace
