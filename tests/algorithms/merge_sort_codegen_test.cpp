// The PTX of the merge sort's kernels for every key type: the comparator inlined (no call),
// the block sort's tile staged in shared memory between barriers, the merge pass's split
// search reading global memory with warp ballots, the merge's loads of both runs and stores
// of the tile, and the launch bounds that keep the merge at 40 registers without spills.
#include <gtest/gtest.h>

#include <string>

#include "algorithms/algorithm_test_support.h"
#include "filecheck_support.h"

using namespace cutlet;
namespace alg = cutlet::algorithms;

namespace {

constexpr const char* kNoCall = "CHECK-NOT: {{[[:space:]]call(\\.uni)?[[:space:]]}}\n";

template <class K>
void check_type() {
  SCOPED_TRACE(test::element_label<K>());
  const std::string name = test::element_label<K>();
  auto& keys = alg::merge_sort_kernels<false, K, K, alg::less>();
  auto block = keys.block_sort.compile();
  EXPECT_FALSE(block->cubin.empty());
  expect_filecheck(block->ptx, "CHECK: .visible .entry cutlet_merge_sort_block_" + name + "(\n" + kNoCall +
                                   "CHECK: ld.global\n" + kNoCall + "CHECK: st.shared\n" + kNoCall +
                                   "CHECK: bar.sync\n" + kNoCall + "CHECK: setp\n" + kNoCall + "CHECK: bar.sync\n" +
                                   kNoCall + "CHECK: ld.shared\n" + kNoCall + "CHECK: st.global\n" + kNoCall);
  auto splits = keys.splits.compile();
  expect_filecheck(splits->ptx, "CHECK: .visible .entry cutlet_merge_sort_splits_" + name + "(\n" + kNoCall +
                                    "CHECK-DAG: ld.global\n" + "CHECK-DAG: vote.sync.ballot.b32\n" +
                                    "CHECK-DAG: st.global.u32\n" + kNoCall);
  auto merge = keys.merge.compile();
  // Launch bounds of 256 threads and 6 blocks: at most 40 registers, nothing spilled.
  EXPECT_NE(merge->ptx.find(".maxntid 256, 1, 1"), std::string::npos);
  EXPECT_LE(merge->resources.registers, 40);
  EXPECT_EQ(merge->resources.spill_store_bytes, 0);
  expect_filecheck(merge->ptx, "CHECK: .visible .entry cutlet_merge_sort_merge_" + name + "(\n" + kNoCall +
                                   "CHECK: ld.global\n" + kNoCall + "CHECK: bar.sync\n" + kNoCall +
                                   "CHECK: ld.shared\n" + kNoCall + "CHECK: st.global\n" + kNoCall);
  auto pairs = alg::merge_sort_kernels<true, K, std::int32_t, alg::greater>().merge.compile();
  EXPECT_FALSE(pairs->cubin.empty());
  expect_filecheck(pairs->ptx, "CHECK: .visible .entry cutlet_merge_sort_merge_" + name + "_i32(\n" + kNoCall);
}

TEST(AlgorithmsMergeSortCodegen, EveryKeyType) {
  test::for_each_element_type([]<class K> { check_type<K>(); });
}

TEST(AlgorithmsMergeSortCodegen, ComparatorInlined) {
  // A comparator with instructions of its own: by absolute value.
  auto by_magnitude = [](f32 a, f32 b) { return abs(a) < abs(b); };
  auto ptx = alg::merge_sort_kernels<false, float, float, decltype(by_magnitude)>().merge.compile()->ptx;
  expect_filecheck(ptx, std::string("CHECK: .visible .entry cutlet_merge_sort_merge_f32(\n") + kNoCall +
                            "CHECK: abs.f32\n" + kNoCall + "CHECK: setp.{{.*}}f32\n" + kNoCall);
}

}  // namespace
