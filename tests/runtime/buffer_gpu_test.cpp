// Device memory: allocation, wrapping, copies, fills and their errors (needs a GPU).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "../gpu_test_support.h"
#include "cutlet/runtime/buffer.h"
#include "cutlet/runtime/cuda_error.h"
#include "runtime_test_support.h"

namespace {

template <class T>
std::vector<T> random_values(std::size_t n, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::vector<T> v(n);
  for (auto& x : v) {
    if constexpr (std::is_floating_point_v<T>)
      x = static_cast<T>(std::uniform_real_distribution<double>(-1e3, 1e3)(rng));
    else
      x = static_cast<T>(rng() | 1);  // never zero
  }
  return v;
}

TEST(Buffer, RoundTripOfOddSizes) {
  CUTLET_REQUIRE_GPU();
  cutlet::Stream s(cutlet::Device(0));
  {
    const auto host = random_values<float>(1000003, 1);
    cutlet::Buffer<float> b(s, host);
    EXPECT_EQ(b.size(), host.size());
    EXPECT_EQ(b.bytes(), host.size() * sizeof(float));
    EXPECT_NE(b.data(), 0u);
    EXPECT_EQ(b.data() % 256, 0u);
    std::vector<float> back(host.size(), std::nanf(""));  // poisoned
    b.copy_to_host(s, back);
    s.synchronize();
    EXPECT_EQ(back, host);
  }
  {
    const auto host = random_values<std::uint8_t>(7, 2);
    cutlet::Buffer<std::uint8_t> b(s, host);
    EXPECT_EQ(b.to_host(s), host);
  }
  {
    const auto host = random_values<double>(12345, 3);
    cutlet::Buffer<double> b(s, std::span<const double>(host));
    EXPECT_EQ(b.to_host(s), host);
  }
}

TEST(Buffer, PartialCopyWritesOnlyThePrefix) {
  CUTLET_REQUIRE_GPU();
  cutlet::Stream s(cutlet::Device(0));
  cutlet::Buffer<std::int32_t> b(100, s.device());
  b.fill_bytes(s, 0xff);  // every element -1
  const std::vector<std::int32_t> head = {5, 6, 7};
  b.copy_from_host(s, head);
  const auto back = b.to_host(s);
  EXPECT_EQ(back[0], 5);
  EXPECT_EQ(back[2], 7);
  EXPECT_EQ(back[3], -1);
  EXPECT_EQ(back[99], -1);
}

TEST(Buffer, FillBytesAndDeviceToDeviceCopy) {
  CUTLET_REQUIRE_GPU();
  cutlet::Stream s(cutlet::Device(0));
  cutlet::Buffer<std::uint8_t> a(4099, s.device());
  a.fill_bytes(s, 0xab);
  for (std::uint8_t x : a.to_host(s)) ASSERT_EQ(x, 0xab);
  const auto host = random_values<std::uint32_t>(333331, 4);
  cutlet::Buffer<std::uint32_t> src(s, host);
  cutlet::Buffer<std::uint32_t> dst(host.size(), s.device());
  dst.fill_bytes(s, 0);
  dst.copy_from(s, src);
  EXPECT_EQ(dst.to_host(s), host);
}

TEST(Buffer, CopySizeMismatchThrowsNamingBothSizes) {
  CUTLET_REQUIRE_GPU();
  cutlet::Stream s(cutlet::Device(0));
  cutlet::Buffer<float> b(10, s.device());
  std::vector<float> eleven(11, 1.0f);
  std::string msg = cutlet::test::error_message([&] { b.copy_from_host(s, eleven); });
  EXPECT_CONTAINS(msg, "11 elements");
  EXPECT_CONTAINS(msg, "10 elements");
  msg = cutlet::test::error_message([&] { b.copy_to_host(s, std::span<float>(eleven)); });
  EXPECT_CONTAINS(msg, "11 elements");
  cutlet::Buffer<float> big(20, s.device());
  EXPECT_THROW(b.copy_from(s, big), cutlet::Error);

  cutlet::DeviceMemory m(100, s.device());
  char host[200] = {};
  msg = cutlet::test::error_message([&] { m.copy_from_host(s, host, 101); });
  EXPECT_CONTAINS(msg, "101 bytes");
  EXPECT_CONTAINS(msg, "100-byte");
  EXPECT_THROW(m.copy_to_host(s, host, 10, 95), cutlet::Error);  // reaches past the end
  EXPECT_THROW(m.copy_to_host(s, host, 1, std::numeric_limits<std::size_t>::max()), cutlet::Error);
  cutlet::DeviceMemory small(50, s.device());
  msg = cutlet::test::error_message([&] { m.copy_from(s, small, 60); });
  EXPECT_CONTAINS(msg, "60 bytes");
  EXPECT_CONTAINS(msg, "50 bytes");
  EXPECT_CONTAINS(msg, "100 bytes");
  EXPECT_THROW(m.copy_from(s, m, 10), cutlet::Error);  // overlapping
}

TEST(Buffer, EmptyBufferRejectsNonEmptyCopies) {
  CUTLET_REQUIRE_GPU();
  cutlet::Stream s(cutlet::Device(0));
  cutlet::Buffer<float> e;
  EXPECT_TRUE(e.to_host(s).empty());  // zero elements: allowed, nothing to do
  const std::vector<float> one = {1.0f};
  EXPECT_THROW(e.copy_from_host(s, one), cutlet::Error);
  cutlet::DeviceMemory m;
  char c = 0;
  const std::string msg = cutlet::test::error_message([&] { m.copy_to_host(s, &c, 1); });
  EXPECT_CONTAINS(msg, "empty");
  cutlet::Buffer<float> zero(0, s.device());
  EXPECT_TRUE(zero.empty());
  EXPECT_EQ(zero.data(), 0u);
}

TEST(Buffer, WrapDoesNotFree) {
  CUTLET_REQUIRE_GPU();
  cutlet::Stream s(cutlet::Device(0));
  const auto host = random_values<std::int64_t>(5001, 5);
  cutlet::DeviceMemory owner(host.size() * sizeof(std::int64_t), s.device());
  EXPECT_TRUE(owner.owning());
  {
    cutlet::DeviceMemory w = cutlet::DeviceMemory::wrap(owner.address(), owner.bytes(), s.device());
    EXPECT_FALSE(w.owning());
    EXPECT_EQ(w.address(), owner.address());
    w.copy_from_host(s, host.data(), owner.bytes());
    auto typed = cutlet::Buffer<std::int64_t>::wrap(owner.address(), host.size(), s.device());
    EXPECT_FALSE(typed.memory().owning());
    EXPECT_EQ(typed.size(), host.size());
    s.synchronize();
  }  // both wrappers destroyed here: the memory must survive
  // Allocate again so that a wrongly freed block would likely be handed out and overwritten.
  cutlet::Buffer<std::int64_t> other(host.size(), s.device());
  other.fill_bytes(s, 0);
  std::vector<std::int64_t> back(host.size());
  owner.copy_to_host(s, back.data(), owner.bytes());
  s.synchronize();
  EXPECT_EQ(back, host);
  EXPECT_NE(other.data(), owner.address());
  EXPECT_THROW(cutlet::DeviceMemory::wrap(0, 16, s.device()), cutlet::Error);
}

TEST(Buffer, MoveLeavesSourceEmpty) {
  CUTLET_REQUIRE_GPU();
  cutlet::Buffer<int> a(10, cutlet::Device(0));
  const std::uint64_t p = a.data();
  cutlet::Buffer<int> b(std::move(a));
  EXPECT_TRUE(a.empty());
  EXPECT_EQ(a.size(), 0u);
  EXPECT_EQ(b.data(), p);
  EXPECT_EQ(b.size(), 10u);
  b = cutlet::Buffer<int>(3, cutlet::Device(0));  // frees the old block
  EXPECT_EQ(b.size(), 3u);
}

TEST(Buffer, HugeAllocationThrowsSayingWhatIsFree) {
  CUTLET_REQUIRE_GPU();  // on the CPU device too, whose device memory is the host's
  const std::size_t huge = std::size_t{1} << 50;
  try {
    cutlet::DeviceMemory m(huge, cutlet::Device(0));
    FAIL() << "allocating 1 PiB did not throw";
  } catch (const cutlet::CudaError& e) {
    EXPECT_CONTAINS(e.what(), std::to_string(huge));
    EXPECT_CONTAINS(e.what(), "free");
    EXPECT_EQ(e.call(), (cutlet::Device(0).is_cpu() ? "host allocation (" : "cuMemAlloc(") + std::to_string(huge) +
                            " bytes)");
  }
  const std::string msg = cutlet::test::error_message([] {
    cutlet::Buffer<double> b(std::numeric_limits<std::size_t>::max() / 4, cutlet::Device(0));
  });
  EXPECT_CONTAINS(msg, "overflow");
}

}  // namespace
