// StreamScratch: the block an owned stream keeps between leases, and the memory of its own that
// a lease gets on other streams, during a capture, above the kept size and while the block is
// held (needs a GPU, or the CPU device).
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "../gpu_test_support.h"
#include "cutlet/runtime/buffer.h"
#include "cutlet/runtime/device.h"
#include "cutlet/runtime/graph.h"
#include "cutlet/runtime/memory_pool.h"
#include "cutlet/runtime/stream.h"
#include "cutlet/runtime/stream_scratch.h"

namespace {

using cutlet::StreamScratch;

/// Fills the lease's bytes with `value` on `s` and reads them back: the memory is usable.
void expect_writable(const StreamScratch& lease, const cutlet::Stream& s, unsigned char value) {
  cutlet::DeviceMemory view = cutlet::DeviceMemory::wrap(lease.address(), lease.bytes(), s.device());
  view.fill_bytes(s, value);
  std::vector<unsigned char> host(lease.bytes());
  view.copy_to_host(s, host.data(), host.size());
  s.synchronize();
  EXPECT_EQ(host.front(), value);
  EXPECT_EQ(host.back(), value);
}

TEST(StreamScratch, OwnedStreamHandsTheSameBlockToLeaseAfterLease) {
  CUTLET_REQUIRE_GPU();
  cutlet::Stream s(cutlet::Device(0));
  std::uint64_t first = 0;
  {
    StreamScratch a(100, s);
    EXPECT_TRUE(a.kept());
    EXPECT_NE(a.address(), 0u);
    EXPECT_EQ(a.address() % 256, 0u);
    EXPECT_GE(a.bytes(), 100u);
    expect_writable(a, s, 0x5a);
    first = a.address();
  }
  {
    StreamScratch b(5000, s);  // fits into the first block (at least 64 KiB)
    EXPECT_TRUE(b.kept());
    EXPECT_EQ(b.address(), first);
  }
  std::uint64_t grown = 0;
  {
    StreamScratch c(3 << 20, s);  // too large: a new block of 4 MiB replaces the kept one
    EXPECT_TRUE(c.kept());
    EXPECT_EQ(c.bytes(), std::size_t{4} << 20);
    expect_writable(c, s, 0xa5);
    grown = c.address();
  }
  StreamScratch d(7, s);  // the grown block serves small leases too
  EXPECT_EQ(d.address(), grown);
  EXPECT_EQ(d.bytes(), std::size_t{4} << 20);
}

TEST(StreamScratch, LeasesHeldAtOnceNeverShareMemory) {
  CUTLET_REQUIRE_GPU();
  cutlet::Stream s(cutlet::Device(0));
  std::uint64_t outer_address = 0, inner_address = 0;
  {
    StreamScratch outer(1000, s);
    StreamScratch inner(1000, s);  // the block is held by `outer`: a block of its own
    EXPECT_TRUE(outer.kept());
    EXPECT_TRUE(inner.kept());
    EXPECT_NE(outer.address(), inner.address());
    EXPECT_GE(inner.bytes(), 1000u);
    outer_address = outer.address();
    inner_address = inner.address();
  }  // `inner` goes back first and is kept; `outer`'s is freed
  StreamScratch next(1000, s);
  EXPECT_EQ(next.address(), inner_address);
  EXPECT_NE(next.address(), outer_address);
}

TEST(StreamScratch, LeaseAboveTheKeptSizeIsItsOwn) {
  CUTLET_REQUIRE_GPU();
  cutlet::Stream s(cutlet::Device(0));
  StreamScratch big(StreamScratch::kMaxKeptBytes + 1, s);
  EXPECT_FALSE(big.kept());
  EXPECT_EQ(big.bytes(), StreamScratch::kMaxKeptBytes + 1);
  expect_writable(big, s, 0x11);
}

TEST(StreamScratch, WrappedAndDefaultStreamsKeepNothing) {
  CUTLET_REQUIRE_GPU();
  cutlet::Stream owned(cutlet::Device(0));
  const cutlet::Stream wrapped = cutlet::Stream::wrap(owned.handle(), owned.device());
  StreamScratch a(100, wrapped);
  EXPECT_FALSE(a.kept());
  EXPECT_EQ(a.bytes(), 100u);
  expect_writable(a, wrapped, 0x33);
  const cutlet::Stream legacy = cutlet::Stream::legacy_default(owned.device());
  StreamScratch b(100, legacy);
  EXPECT_FALSE(b.kept());
}

TEST(StreamScratch, ZeroBytesIsEmpty) {
  CUTLET_REQUIRE_GPU();
  cutlet::Stream s(cutlet::Device(0));
  StreamScratch none(0, s);
  EXPECT_EQ(none.address(), 0u);
  EXPECT_EQ(none.bytes(), 0u);
  EXPECT_FALSE(none.kept());
  StreamScratch moved(std::move(none));
  EXPECT_EQ(moved.address(), 0u);
}

TEST(StreamScratch, MovedLeaseGoesBackOnce) {
  CUTLET_REQUIRE_GPU();
  cutlet::Stream s(cutlet::Device(0));
  std::uint64_t address = 0;
  {
    StreamScratch a(100, s);
    address = a.address();
    StreamScratch b(std::move(a));
    EXPECT_EQ(b.address(), address);
    EXPECT_TRUE(b.kept());
    EXPECT_EQ(a.address(), 0u);  // NOLINT(bugprone-use-after-move): moved-from is empty
    EXPECT_FALSE(a.kept());      // NOLINT(bugprone-use-after-move)
  }
  StreamScratch c(100, s);
  EXPECT_EQ(c.address(), address);
}

TEST(StreamScratch, OfTwoBlocksTheLargerIsKept) {
  CUTLET_REQUIRE_GPU();
  cutlet::Stream s(cutlet::Device(0));
  std::uint64_t large_address = 0;
  {
    StreamScratch small(1000, s);
    StreamScratch large(1 << 20, s);  // the block is held: one of its own, 1 MiB
    large_address = large.address();
  }  // `large` goes back first and stays; `small`, smaller, is freed
  {
    StreamScratch again(1 << 20, s);
    EXPECT_EQ(again.address(), large_address);
  }
  {
    StreamScratch large(1 << 20, s);  // takes the kept block
    StreamScratch small(1000, s);     // a 64 KiB block of its own
    EXPECT_EQ(large.address(), large_address);
    EXPECT_EQ(small.bytes(), std::size_t{64} << 10);
  }  // `small` goes back first, then `large` replaces it, being larger
  StreamScratch after(1 << 20, s);
  EXPECT_EQ(after.address(), large_address);
}

TEST(StreamScratch, KeptBlockIsFreedByTrimAndWithItsStream) {
  CUTLET_REQUIRE_GPU();
  const cutlet::Device device(0);
  const auto& pool = cutlet::PoolMemoryResource::device_default(device);
  device.synchronize();
  const std::size_t used_before = pool->usage().used;
  {
    cutlet::Stream s(device);
    { StreamScratch lease(2 << 20, s); }
    EXPECT_GE(pool->usage().used, used_before + (2 << 20));  // kept by the stream
    StreamScratch::trim(s);
    s.synchronize();
    EXPECT_EQ(pool->usage().used, used_before);
    StreamScratch::trim(s);  // keeps none now: nothing to do
    StreamScratch lease(2 << 20, s);
    EXPECT_TRUE(lease.kept());
    EXPECT_GE(pool->usage().used, used_before + (2 << 20));
  }  // the lease goes back to the stream, the stream frees it when released
  device.synchronize();
  EXPECT_EQ(pool->usage().used, used_before);
  cutlet::Stream wrapped = cutlet::Stream::wrap(nullptr, device);
  StreamScratch::trim(wrapped);  // a stream that keeps nothing
}

TEST(StreamScratch, LeaseDuringCaptureIsTheGraphsOwn) {
  CUTLET_REQUIRE_CUDA("stream-ordered allocation nodes in a captured graph");
  cutlet::Stream s(cutlet::Device(0));
  std::uint64_t kept_address = 0;
  {
    StreamScratch before(100, s);
    kept_address = before.address();
  }
  cutlet::Graph g = cutlet::Graph::capture(s, [&] {
    StreamScratch during(100, s);
    EXPECT_FALSE(during.kept());
    EXPECT_NE(during.address(), kept_address);
    cutlet::DeviceMemory::wrap(during.address(), during.bytes(), s.device()).fill_bytes(s, 1);
  });
  cutlet::GraphExec exec = g.instantiate();
  exec.launch(s);
  exec.launch(s);
  s.synchronize();
  StreamScratch after(100, s);  // the stream's block is still there, untouched by the capture
  EXPECT_TRUE(after.kept());
  EXPECT_EQ(after.address(), kept_address);
}

}  // namespace
