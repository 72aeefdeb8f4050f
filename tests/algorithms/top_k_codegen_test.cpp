// The PTX of top_k's kernels for every key type: the counting pass's 16-byte loads, its
// shared-memory counters (block-scope atomics) and one global atomic per nonzero count; the
// tally's 16-byte loads and block reduction; the writing pass's two ballots per item group
// (the keys better than the k-th and those tied with it) and its stores; the one-block scans
// of the choice and the offsets. No calls anywhere.
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
  auto& kernels = alg::top_k_kernels<K, std::int64_t>();
  const std::string v = sizeof(K) == 4 ? "v4" : "v2";
  const std::string name = test::element_label<K>();

  auto count = kernels.count.compile();
  EXPECT_FALSE(count->cubin.empty());
  expect_filecheck(count->ptx, "CHECK: .visible .entry cutlet_top_k_count_" + name + "(\n" + kNoCall +
                                   "CHECK: ld.global." + v + "\n" + kNoCall + "CHECK: atom{{(.relaxed.cta)?}}.shared.add.u32\n" +
                                   kNoCall + "CHECK: bar.sync\n" + kNoCall + "CHECK: atom.global.add.u32\n" + kNoCall);

  auto tally = kernels.tally.compile();
  EXPECT_FALSE(tally->cubin.empty());
  expect_filecheck(tally->ptx, "CHECK: .visible .entry cutlet_top_k_tally_" + name + "(\n" + kNoCall +
                                   "CHECK: ld.global." + v + "\n" + kNoCall + "CHECK: shfl.sync.down\n" + kNoCall +
                                   "CHECK: bar.sync\n" + kNoCall + "CHECK: st.global.u64\n" + kNoCall);

  auto write = kernels.write.compile();
  EXPECT_FALSE(write->cubin.empty());
  expect_filecheck(write->ptx, "CHECK: .visible .entry cutlet_top_k_write_" + name + "_i64(\n" + kNoCall +
                                   "CHECK: ld.global." + v + "\n" + kNoCall + "CHECK: vote.sync.ballot.b32\n" +
                                   kNoCall + "CHECK: vote.sync.ballot.b32\n" + kNoCall + "CHECK: bar.sync\n" +
                                   kNoCall + "CHECK: st.global.u64\n" + kNoCall);
}

TEST(AlgorithmsTopKCodegen, EveryKeyType) {
  test::for_each_element_type([]<class K> { check_type<K>(); });
}

TEST(AlgorithmsTopKCodegen, TheChoiceAndTheOffsetsScanInOneBlock) {
  auto& kernels = alg::top_k_kernels<float, std::int32_t>();
  auto choose = kernels.choose.compile();
  EXPECT_FALSE(choose->cubin.empty());
  expect_filecheck(choose->ptx, std::string("CHECK: .visible .entry cutlet_top_k_choose(\n") + kNoCall +
                                    "CHECK: shfl.sync.up.b32\n" + kNoCall + "CHECK: bar.sync\n" + kNoCall +
                                    "CHECK: st.global.u64\n" + kNoCall);
  auto offsets = kernels.offsets.compile();
  EXPECT_FALSE(offsets->cubin.empty());
  expect_filecheck(offsets->ptx, std::string("CHECK: .visible .entry cutlet_top_k_offsets(\n") + kNoCall +
                                     "CHECK: shfl.sync.up.b32\n" + kNoCall + "CHECK: bar.sync\n" + kNoCall +
                                     "CHECK: st.global.u64\n" + kNoCall);
}

}  // namespace
