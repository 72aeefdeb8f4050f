// Owned and wrapped streams (needs a GPU).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>
#include <utility>
#include <vector>

#include "../gpu_test_support.h"
#include "cutlet/runtime/buffer.h"
#include "cutlet/runtime/memory_resource.h"
#include "cutlet/runtime/device.h"
#include "cutlet/runtime/event.h"
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

TEST(Stream, PrioritiesAndFlags) {
  CUTLET_REQUIRE_GPU();
  cutlet::Device d(0);
  const cutlet::StreamPriorityRange range = cutlet::Stream::priority_range(d);
  EXPECT_LE(range.greatest, range.least);
  if (d.is_cpu()) {  // one priority, as on a device without stream priorities
    EXPECT_EQ(range.greatest, 0);
    EXPECT_EQ(range.least, 0);
    EXPECT_FALSE(d.properties().stream_priorities);
  }
  cutlet::Stream urgent(d, {.priority = range.greatest});
  EXPECT_EQ(urgent.priority(), range.greatest);
  EXPECT_TRUE(urgent.non_blocking());
  cutlet::Stream blocking(d, {.non_blocking = false});
  EXPECT_FALSE(blocking.non_blocking());
  EXPECT_EQ(blocking.priority(), range.least);
  // A priority beyond the range is clamped by the driver.
  cutlet::Stream clamped(d, {.priority = range.greatest - 100});
  EXPECT_EQ(clamped.priority(), range.greatest);
}

TEST(Stream, WaitOnEventOrdersAnotherStream) {
  CUTLET_REQUIRE_GPU();
  cutlet::Device d(0);
  cutlet::Stream producer(d), consumer(d);
  const std::size_t n = std::size_t{1} << 28;  // 256 MiB: the fills take a while
  cutlet::Buffer<unsigned char> a(n, d), b(n, d);
  a.fill_bytes(producer, 1);
  for (int i = 2; i <= 6; ++i) a.fill_bytes(producer, static_cast<unsigned char>(i));
  cutlet::Event done(d, false);
  done.record(producer);
  consumer.wait(done);
  b.copy_from(consumer, a);  // must see the last fill, not an earlier one
  const std::vector<unsigned char> host = b.to_host(consumer);
  EXPECT_EQ(host[0], 6);
  EXPECT_EQ(host[n - 1], 6);
  // Waiting on a stream directly does the same.
  a.fill_bytes(producer, 9);
  consumer.wait(producer);
  b.copy_from(consumer, a);
  EXPECT_EQ(b.to_host(consumer)[n / 2], 9);
}

TEST(Stream, HostFunctionsRunInOrderAfterEarlierWork) {
  CUTLET_REQUIRE_GPU();
  cutlet::Stream s(cutlet::Device(0));
  std::vector<int> order;
  std::atomic<bool> release{false};
  s.launch_host_function([&] { order.push_back(1); });
  s.launch_host_function([&] {
    while (!release.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    order.push_back(2);
  });
  cutlet::Buffer<int> b(16, s.device());
  b.fill_bytes(s, 0);  // queued behind the blocked host function
  s.launch_host_function([&] { order.push_back(3); });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_FALSE(s.query());  // the stream waits for the host function
  release = true;
  s.synchronize();
  EXPECT_EQ(order, (std::vector<int>{1, 2, 3}));
  s.launch_host_function([] { throw std::runtime_error("thrown on purpose by a test"); });
  s.synchronize();  // reported on stderr, the stream goes on
  EXPECT_TRUE(s.query());
}

TEST(Stream, LegacyAndPerThreadDefaultStreams) {
  CUTLET_REQUIRE_GPU();
  cutlet::Device d(0);
  auto check = [&](const cutlet::Stream& s) {
    EXPECT_FALSE(s.owning());
    EXPECT_NE(s.handle(), nullptr);  // the special handles 0x1 and 0x2
    cutlet::Buffer<int> b(1000, d);
    b.fill_bytes(s, 0x02);
    EXPECT_EQ(b.to_host(s)[999], 0x02020202);
  };
  check(cutlet::Stream::legacy_default(d));
  check(cutlet::Stream::per_thread_default(d));
  EXPECT_NE(cutlet::Stream::legacy_default(d).handle(), cutlet::Stream::per_thread_default(d).handle());
  // The per-thread default stream works from another thread too.
  int seen = 0;
  std::thread([&] {
    cutlet::Stream s = cutlet::Stream::per_thread_default(d);
    cutlet::Buffer<int> b(10, d);
    b.fill_bytes(s, 0x03);
    seen = b.to_host(s)[9];
  }).join();
  EXPECT_EQ(seen, 0x03030303);
}

TEST(Stream, WorkGoesToTheStreamsDeviceWhateverIsCurrent) {
  CUTLET_REQUIRE_GPU();
  if (cutlet::Device::count() < 2) GTEST_SKIP() << "needs 2 GPUs";
  cutlet::Device(0).set_current();
  cutlet::Stream s1(cutlet::Device(1));
  cutlet::Buffer<int> b(100, s1);  // device 1's default pool
  EXPECT_EQ(cutlet::pointer_info(b.data()).device, 1);
  b.fill_bytes(s1, 0x05);
  EXPECT_EQ(b.to_host(s1)[0], 0x05050505);
}

}  // namespace
