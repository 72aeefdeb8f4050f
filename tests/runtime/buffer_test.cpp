// Buffer behaviour that needs no GPU: the empty state and compile-time properties.
#include "cutlet/runtime/buffer.h"

#include <gtest/gtest.h>

#include <type_traits>

namespace {

TEST(BufferNoGpu, EmptyBufferNeedsNoDriver) {
  cutlet::Buffer<float> b;
  EXPECT_TRUE(b.empty());
  EXPECT_EQ(b.data(), 0u);
  EXPECT_EQ(b.size(), 0u);
  EXPECT_EQ(b.bytes(), 0u);
  EXPECT_FALSE(b.memory().owning());
  static_assert(std::is_same_v<cutlet::Buffer<double>::element_type, double>);
}

}  // namespace
