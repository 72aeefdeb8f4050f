// The PTX of Hopper's TMA in the per-thread language: a TmaDescriptor is one 128-byte,
// 64-byte-aligned .param whose own address the bulk copies use (no copy to local memory);
// mbarrier init, expect_tx, try_wait.parity, cp.async.bulk.tensor loads and stores of every
// rank, bulk groups and the async-proxy fence; nvJitLink links it for sm_90a; a kernel
// compiled for an earlier target is refused at the user's line.
#include <gtest/gtest.h>

#include <cutlet/cutlet.h>

#include <string>

#include "filecheck_support.h"
#include "kernel_test_support.h"

using namespace cutlet;

namespace {

const Target kHopper = Target::from_string("sm_90a");

/// A 64 x 32 box of `in` at (block row, 0) through shared memory, doubled, to `out`.
auto copy_kernel(std::optional<Target> target = kHopper) {
  return kernel(
      [](TmaDescriptor<float, 2> in, TmaDescriptor<float, 2> out) {
        auto box = shared_array<float>(64 * 32);
        auto bar = shared_array<std::uint64_t>(1);
        i32 row = block_idx().x * 64;
        if_(thread_idx().x == 0, [&] {
          mbarrier_init(bar, 1);
          fence_proxy_async();
          mbarrier_arrive_expect_tx(bar, 64 * 32 * 4);
          tma_load(box, in, {row, 0}, bar);
        });
        syncthreads();
        mbarrier_wait(bar, 0);
        for (int k = 0; k < 16; ++k) box[thread_idx().x * 16 + k] = box[thread_idx().x * 16 + k] * 2.0f;
        fence_proxy_async();
        syncthreads();
        if_(thread_idx().x == 0, [&] {
          tma_store(out, {row, 0}, box);
          bulk_commit();
          bulk_wait(0);
        });
      },
      {.name = "tma_copy", .target = target});
}

TEST(TmaCodegen, DescriptorsAreGridConstantParamsAndCopiesCompleteOnAnMbarrier) {
  const auto k = copy_kernel().compile<>();
  expect_filecheck(k->ptx, R"(
CHECK: .target sm_90a
CHECK: .visible .entry tma_copy(
CHECK-NEXT: .param .align 64 .b8 tma_copy_param_0[128],
CHECK-NEXT: .param .align 64 .b8 tma_copy_param_1[128]
CHECK-NOT: .local
CHECK: mbarrier.init.shared::cta.b64 [{{%r[0-9]+}}], {{%r[0-9]+}};
CHECK: fence.proxy.async.shared::cta;
CHECK: mbarrier.arrive.expect_tx.shared::cta.b64 _, [{{%r[0-9]+}}], {{%r[0-9]+}};
CHECK: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [{{%r[0-9]+}}], [{{%rd[0-9]+}}, {{[{]}}{{%r[0-9]+}}, {{%r[0-9]+}}{{[}]}}], [{{%r[0-9]+}}];
CHECK: mbarrier.try_wait.parity.shared::cta.b64
CHECK: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [{{%rd[0-9]+}}, {{[{]}}{{%r[0-9]+}}, {{%r[0-9]+}}{{[}]}}], [{{%r[0-9]+}}];
CHECK: cp.async.bulk.commit_group;
CHECK: cp.async.bulk.wait_group 0;
)");
  // The descriptors' addresses are the parameters' own (cvta.param or the parameter symbol),
  // never a local copy's.
  EXPECT_EQ(k->ptx.find("__local_depot"), std::string::npos) << k->ptx;
  EXPECT_FALSE(k->cubin.empty()) << "nvJitLink linked it for sm_90a";
}

TEST(TmaCodegen, CoordinatesGoInnermostFirstForEveryRank) {
  auto k = kernel(
      [](TmaDescriptor<bfloat16, 5> d, TmaDescriptor<bfloat16, 1> e, i32 a, i32 b, i32 c2, i32 d2, i32 e2) {
        auto box = shared_array<bfloat16>(256);
        auto bar = shared_array<std::uint64_t>(1);
        tma_load(box, d, {a, b, c2, d2, e2}, bar);
        tma_load(box, e, {a}, bar);
        tma_store(d, {e2, d2, c2, b, a}, box);
        bulk_wait(1, true);
      },
      {.name = "tma_ranks", .target = kHopper});
  const auto compiled = k.compile<>();
  // The i32 parameters 2..6 are a..e2: the 5-d load takes them reversed (e2 first).
  expect_filecheck(compiled->ptx, R"(
CHECK-DAG: ld.param.u32 [[A:%r[0-9]+]], [tma_ranks_param_2];
CHECK-DAG: ld.param.u32 [[E:%r[0-9]+]], [tma_ranks_param_6];
CHECK: cp.async.bulk.tensor.5d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [{{%r[0-9]+}}], [{{%rd[0-9]+}}, {{[{]}}[[E]], {{%r[0-9]+}}, {{%r[0-9]+}}, {{%r[0-9]+}}, [[A]]{{[}]}}]
CHECK: cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [{{%r[0-9]+}}], [{{%rd[0-9]+}}, {{[{]}}[[A]]{{[}]}}]
CHECK: cp.async.bulk.tensor.5d.global.shared::cta.tile.bulk_group [{{%rd[0-9]+}}, {{[{]}}[[A]], {{%r[0-9]+}}, {{%r[0-9]+}}, {{%r[0-9]+}}, [[E]]{{[}]}}]
CHECK: cp.async.bulk.wait_group.read 1;
)");
  EXPECT_FALSE(compiled->cubin.empty());
}

TEST(TmaCodegen, AnEarlierTargetIsRefusedAtTheUsersLine) {
  const std::string msg = test::message_of([] { (void)copy_kernel(Target::from_string("sm_80")).compile<>(); });
  EXPECT_NE(msg.find("tma_codegen_test.cpp:"), std::string::npos) << msg;
  EXPECT_NE(msg.find("uses mbarrier.init, a TMA or mbarrier operation of Hopper (sm_90)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("compiled for sm_80; compile it for sm_90a"), std::string::npos) << msg;
}

}  // namespace
