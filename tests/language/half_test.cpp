// Host conversions of the 16-bit float types: every half round-trips through float, and
// float -> half/bfloat16 rounds to nearest even.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "cutlet/language/half.h"

using namespace cutlet;

TEST(Half, EveryBitPatternRoundTrips) {
  for (std::uint32_t b = 0; b < 0x10000; ++b) {
    half h = half::from_bits(static_cast<std::uint16_t>(b));
    float f = h;
    if (std::isnan(f)) {
      EXPECT_TRUE((b & 0x7c00) == 0x7c00 && (b & 0x3ff)) << b;
      EXPECT_TRUE(std::isnan(static_cast<float>(half(f))));
      continue;
    }
    EXPECT_EQ(half(f).bits, b) << std::hex << b;
  }
}

TEST(Half, KnownValues) {
  EXPECT_EQ(half(1.0f).bits, 0x3c00);
  EXPECT_EQ(half(-2.0f).bits, 0xc000);
  EXPECT_EQ(half(65504.0f).bits, 0x7bff);
  EXPECT_EQ(half(65520.0f).bits, 0x7c00);         // rounds to infinity
  EXPECT_EQ(half(5.9604645e-8f).bits, 0x0001);    // smallest subnormal
  EXPECT_EQ(half(1.0f + 1.0f / 2048).bits, 0x3c00);  // halfway: ties to even (down)
  EXPECT_EQ(half(1.0f + 3.0f / 2048).bits, 0x3c02);  // halfway: ties to even (up)
  EXPECT_FLOAT_EQ(static_cast<float>(half::from_bits(0x3555)), 0.333251953125f);
}

TEST(Bfloat16, RoundsToNearestEven) {
  EXPECT_EQ(bfloat16(1.0f).bits, 0x3f80);
  EXPECT_EQ(bfloat16(-3.0f).bits, 0xc040);
  float halfway = std::bit_cast<float>(0x3f808000u);  // exactly between 0x3f80 and 0x3f81
  EXPECT_EQ(bfloat16(halfway).bits, 0x3f80);
  float above = std::bit_cast<float>(0x3f818001u);
  EXPECT_EQ(bfloat16(above).bits, 0x3f82);
  EXPECT_TRUE(std::isnan(static_cast<float>(bfloat16(std::nanf("")))));
  for (std::uint32_t b = 0; b < 0x10000; b += 7) {
    float f = bfloat16::from_bits(static_cast<std::uint16_t>(b));
    if (!std::isnan(f)) {
      EXPECT_EQ(bfloat16(f).bits, b);
    }
  }
}
