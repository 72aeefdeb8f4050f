// Owned and wrapped streams (needs a GPU).
#include <gtest/gtest.h>

#include <utility>

#include "../gpu_test_support.h"
#include "cutlet/runtime/buffer.h"
#include "cutlet/runtime/device.h"
#include "cutlet/runtime/stream.h"

namespace {

TEST(Stream, OwnedStreamOnCurrentDevice) {
  CUTLET_REQUIRE_GPU();
  cutlet::Device(0).set_current();
  cutlet::Stream s;
  EXPECT_TRUE(s.owning());
  EXPECT_NE(s.handle(), nullptr);
  EXPECT_EQ(s.device(), cutlet::Device(0));
  s.synchronize();
  EXPECT_TRUE(s.query());
}

TEST(Stream, QueryIsFalseWhileWorkIsPending) {
  CUTLET_REQUIRE_GPU();
  cutlet::Stream s(cutlet::Device(0));
  cutlet::Buffer<unsigned char> big(std::size_t{1} << 30, s.device());
  for (int i = 0; i < 8; ++i) big.fill_bytes(s, static_cast<unsigned char>(i + 1));
  const bool done_right_away = s.query();  // 8 GiB of writes take well over a millisecond
  s.synchronize();
  EXPECT_FALSE(done_right_away);
  EXPECT_TRUE(s.query());
}

TEST(Stream, MoveTransfersOwnership) {
  CUTLET_REQUIRE_GPU();
  cutlet::Stream a(cutlet::Device(0));
  void* h = a.handle();
  cutlet::Stream b(std::move(a));
  EXPECT_EQ(b.handle(), h);
  EXPECT_TRUE(b.owning());
  EXPECT_FALSE(a.owning());
  EXPECT_EQ(a.handle(), nullptr);
  cutlet::Stream c(cutlet::Device(0));
  c = std::move(b);  // destroys c's own stream, takes b's
  EXPECT_EQ(c.handle(), h);
  c.synchronize();
}

TEST(Stream, WrapNullIsTheLegacyDefaultStream) {
  CUTLET_REQUIRE_GPU();
  cutlet::Stream s = cutlet::Stream::wrap(nullptr, cutlet::Device(0));
  EXPECT_FALSE(s.owning());
  EXPECT_EQ(s.handle(), nullptr);
  cutlet::Buffer<int> b(1000, s.device());
  b.fill_bytes(s, 0x01);
  std::vector<int> host = b.to_host(s);
  ASSERT_EQ(host.size(), 1000u);
  EXPECT_EQ(host[0], 0x01010101);
  EXPECT_EQ(host[999], 0x01010101);
  EXPECT_TRUE(s.query());
}

TEST(Stream, WrapDoesNotDestroyTheForeignStream) {
  CUTLET_REQUIRE_GPU();
  cutlet::Stream owner(cutlet::Device(0));
  {
    cutlet::Stream borrowed = cutlet::Stream::wrap(owner.handle(), owner.device());
    EXPECT_FALSE(borrowed.owning());
    EXPECT_EQ(borrowed.handle(), owner.handle());
    borrowed.synchronize();
  }
  // The stream must still work after the wrapper is gone.
  cutlet::Buffer<int> b(16, owner.device());
  b.fill_bytes(owner, 0x7f);
  EXPECT_EQ(b.to_host(owner)[15], 0x7f7f7f7f);
}

}  // namespace
