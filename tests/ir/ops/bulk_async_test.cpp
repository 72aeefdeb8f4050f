// The rules of the TMA and mbarrier ops (ir/ops/bulk_async.cpp): what each takes, the
// messages for what it does not, the printed IR, and the verifier's agreement.
#include <gtest/gtest.h>

#include <array>
#include <string>

#include "cutlet/ir/builder.h"
#include "cutlet/ir/ops.h"
#include "cutlet/ir/printer.h"
#include "cutlet/ir/verifier.h"
#include "ir/ir_test_support.h"

namespace cutlet::ir {
namespace {

struct Kernel {
  Function f{"k"};
  Builder b{f};
  ValueId desc = b.add_param(Type::record(128, 64));
  ValueId box = b.shared_alloc(Type::f32(), 1024);
  ValueId bar = b.shared_alloc(Type::u64(), 1);
  ValueId zero = b.const_int(Type::i32(), 0);
  ValueId row = b.const_int(Type::i32(), 64);
};

TEST(BulkAsyncOps, AWholeLoadAndStoreBuildsPrintsAndVerifies) {
  Kernel k;
  auto& b = k.b;
  const std::array<ValueId, 2> at{k.row, k.zero};
  b.mbarrier_init(k.bar, b.const_int(Type::i32(), 1));
  b.fence_proxy_async();
  b.mbarrier_arrive(k.bar, b.const_int(Type::i32(), 4096));
  b.tma_load(k.desc, k.box, k.bar, at);
  ValueId done = b.mbarrier_try_wait(k.bar, k.zero);
  EXPECT_EQ(k.f.type_of(done), Type::i1());
  b.mbarrier_arrive(k.bar);
  b.tma_store(k.desc, k.box, at);
  b.bulk_commit();
  b.bulk_wait(0, true);
  EXPECT_NO_THROW(verify(k.f));
  const std::string text = print(k.f);
  for (const char* op : {"mbarrier.init", "fence.proxy_async", "mbarrier.arrive", "tma.load", "mbarrier.try_wait",
                         "tma.store", "bulk.commit", "bulk.wait"})
    EXPECT_TRUE(contains(text, op)) << op << " in\n" << text;
  // The views read operands by name; the coordinates are the rest.
  const Instruction* load = nullptr;
  for (InstId id : k.f.body().body)
    if (k.f.inst(id).op == Opcode::TmaLoad) load = &k.f.inst(id);
  ASSERT_TRUE(load);
  const ops::TmaLoad view(*load);
  EXPECT_EQ(view.desc(), k.desc);
  EXPECT_EQ(view.dst(), k.box);
  EXPECT_EQ(view.bar(), k.bar);
  ASSERT_EQ(view.coords().size(), 2u);
  EXPECT_EQ(view.coords()[0], k.row);
}

TEST(BulkAsyncOps, WrongOperandsAreRefusedWithWhatToUse) {
  Kernel k;
  auto& b = k.b;
  ValueId global = b.add_param(Type::pointer(Type::f32()));
  ValueId i64 = b.const_int(Type::i64(), 1);
  ValueId u32bar = b.shared_alloc(Type::u32(), 1);
  const std::array<ValueId, 1> one{k.zero};
  EXPECT_TRUE(contains(ir_error_of([&] { b.mbarrier_init(u32bar, k.zero); }),
                       "needs an mbarrier: a pointer to a 64-bit integer in shared memory"));
  EXPECT_TRUE(contains(ir_error_of([&] { b.mbarrier_init(k.bar, i64); }), "arrival count must be a 32-bit integer, not i64"));
  EXPECT_TRUE(contains(ir_error_of([&] { b.tma_load(k.desc, global, k.bar, one); }),
                       "tma.load copies to or from shared memory"));
  EXPECT_TRUE(contains(ir_error_of([&] { b.tma_load(global, k.box, k.bar, one); }), "needs a TMA descriptor"));
  ValueId small = b.add_param(Type::record(64, 8));
  EXPECT_TRUE(contains(ir_error_of([&] { b.tma_store(small, k.box, one); }), "needs a TMA descriptor"));
  const std::array<ValueId, 6> six{k.zero, k.zero, k.zero, k.zero, k.zero, k.zero};
  EXPECT_TRUE(contains(ir_error_of([&] { b.tma_store(k.desc, k.box, six); }), "1 to 5 coordinates, not 6"));
  EXPECT_TRUE(contains(ir_error_of([&] { b.tma_store(k.desc, k.box, std::array<ValueId, 0>{}); }),
                       "1 to 5 coordinates, not 0"));
  const std::array<ValueId, 1> wide{i64};
  EXPECT_TRUE(contains(ir_error_of([&] { b.tma_store(k.desc, k.box, wide); }),
                       "tma.store coordinate 0 must be a 32-bit integer"));
  EXPECT_TRUE(contains(ir_error_of([&] { b.bulk_wait(64, false); }), "0 to 63 groups pending, not 64"));
}

TEST(BulkAsyncOps, TheyHaveEffectsAndAreNeverRemoved) {
  for (Opcode op : {Opcode::MbarrierInit, Opcode::MbarrierArrive, Opcode::MbarrierTryWait, Opcode::TmaLoad, Opcode::TmaStore,
                    Opcode::BulkCommit, Opcode::BulkWait, Opcode::FenceProxyAsync})
    EXPECT_TRUE(has_trait(op, OpTrait::WritesMemory)) << mnemonic(op);
}

}  // namespace
}  // namespace cutlet::ir
