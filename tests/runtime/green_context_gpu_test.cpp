// Green contexts: SM partitions, their streams, and a kernel confined to k SMs (needs a GPU).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <optional>
#include <set>
#include <vector>

#include "../gpu_test_support.h"
#include "cutlet/runtime/buffer.h"
#include "cutlet/runtime/green_context.h"
#include "cutlet/runtime/launch.h"
#include "cutlet/runtime/module.h"
#include "runtime_test_support.h"
#include "test_kernels.h"

namespace {

/// Skips the test when the driver has no green contexts (before CUDA 12.5).
#define CUTLET_REQUIRE_GREEN_CONTEXTS()                                                  \
  do {                                                                                   \
    try {                                                                                \
      (void)cutlet::GreenContext::sm_partitioning(cutlet::Device(0));                    \
    } catch (const cutlet::Error& e) {                                                   \
      GTEST_SKIP() << "no green contexts: " << e.what();                                 \
    }                                                                                    \
  } while (0)

/// The distinct SMs that the blocks of record_smid ran on.
std::set<std::uint32_t> sms_used(const cutlet::Stream& s, const cutlet::Function& record, std::uint32_t blocks) {
  cutlet::Buffer<std::uint32_t> out(blocks, s.device());
  out.fill_bytes(s, 0xff);
  std::uint64_t p = out.data();
  std::uint32_t spin = 200000;  // ~0.1 ms per block at ~2 GHz: blocks overlap and spread
  void* args[] = {&p, &spin};
  cutlet::launch(s, record, {.grid = blocks, .block = 128}, args);
  const std::vector<std::uint32_t> host = out.to_host(s);
  std::set<std::uint32_t> sms;
  for (std::uint32_t id : host) {
    EXPECT_NE(id, 0xffffffffu) << "a block did not run";
    sms.insert(id);
  }
  return sms;
}

TEST(GreenContext, PartitioningOfTheDevice) {
  CUTLET_REQUIRE_CUDA("green contexts");
  CUTLET_REQUIRE_GREEN_CONTEXTS();
  cutlet::Device d(0);
  const cutlet::SmPartitioning p = cutlet::GreenContext::sm_partitioning(d);
  EXPECT_EQ(p.sm_count, d.sm_count());
  EXPECT_GE(p.min_partition_size, 1);
  EXPECT_GE(p.coscheduled_alignment, 1);
  cutlet::GreenContext rest;
  std::vector<cutlet::GreenContext> parts = cutlet::GreenContext::split(d, 2, p.min_partition_size, &rest);
  ASSERT_EQ(parts.size(), 2u);
  int total = 0;
  for (const cutlet::GreenContext& g : parts) {
    EXPECT_GE(g.sm_count(), p.min_partition_size);
    EXPECT_EQ(g.device(), d);
    EXPECT_NE(g.handle(), nullptr);
    EXPECT_NE(g.context(), nullptr);
    total += g.sm_count();
  }
  if (rest.valid()) total += rest.sm_count();
  EXPECT_EQ(total, d.sm_count());
  const std::string msg = cutlet::test::error_message([&] { (void)cutlet::GreenContext::split(d, 1000, 8); });
  EXPECT_CONTAINS(msg, std::to_string(d.sm_count()) + " SMs");
  EXPECT_THROW((void)cutlet::GreenContext().sm_count(), cutlet::Error);
}

TEST(GreenContext, KernelOnAPartitionOfKSmsUsesAtMostKSms) {
  CUTLET_REQUIRE_CUDA("green contexts");
  CUTLET_REQUIRE_GREEN_CONTEXTS();
  cutlet::Device d(0);
  const cutlet::SmPartitioning p = cutlet::GreenContext::sm_partitioning(d);
  const cutlet::GreenContext green = cutlet::GreenContext::create(d, p.min_partition_size);
  const int k = green.sm_count();
  ASSERT_LT(k, d.sm_count()) << "the partition should be smaller than the device";
  cutlet::Module m = cutlet::Module::load(d, {cutlet::test::kSmidPtx, std::strlen(cutlet::test::kSmidPtx)});
  const cutlet::Function record = m.function("record_smid");
  const std::uint32_t blocks = 4 * static_cast<std::uint32_t>(d.sm_count());

  cutlet::Stream on_green = green.create_stream();
  EXPECT_EQ(on_green.green_context(), green.handle());
  EXPECT_EQ(on_green.context(), green.context());
  const std::set<std::uint32_t> green_sms = sms_used(on_green, record, blocks);
  EXPECT_GE(green_sms.size(), 1u);
  EXPECT_LE(green_sms.size(), static_cast<std::size_t>(k))
      << "a kernel on a " << k << "-SM green context ran on " << green_sms.size() << " SMs";

  // The same launch on an ordinary stream spreads over more SMs than the partition has.
  cutlet::Stream plain(d);
  const std::set<std::uint32_t> all_sms = sms_used(plain, record, blocks);
  EXPECT_GT(all_sms.size(), static_cast<std::size_t>(k));
  RecordProperty("green_sms", std::to_string(green_sms.size()));
  RecordProperty("partition_sms", std::to_string(k));
  RecordProperty("plain_sms", std::to_string(all_sms.size()));
}

TEST(GreenContext, StreamKeepsTheContextAliveAndRunsCopies) {
  CUTLET_REQUIRE_CUDA("green contexts");
  CUTLET_REQUIRE_GREEN_CONTEXTS();
  cutlet::Device d(0);
  std::optional<cutlet::Stream> s;
  {
    const cutlet::GreenContext green =
        cutlet::GreenContext::create(d, cutlet::GreenContext::sm_partitioning(d).min_partition_size);
    s.emplace(green.create_stream());
  }  // the last GreenContext handle is gone; the stream still holds the context
  cutlet::Buffer<int> b(1000, d);
  b.fill_bytes(*s, 0x04);
  EXPECT_EQ(b.to_host(*s)[999], 0x04040404);
  cutlet::Module m = cutlet::Module::load(d, {cutlet::test::kTestPtx, std::strlen(cutlet::test::kTestPtx)});
  std::uint64_t p = b.data();
  std::uint32_t n = 1000;
  void* args[] = {&p, &n};
  cutlet::launch(*s, m.function("write42"), {.grid = 8, .block = 128}, args);
  EXPECT_EQ(b.to_host(*s)[999], 1041);
  // Ordinary streams keep working after green ones switched the thread's context.
  cutlet::Stream plain(d);
  b.fill_bytes(plain, 0);
  EXPECT_EQ(b.to_host(plain)[0], 0);
}

}  // namespace
