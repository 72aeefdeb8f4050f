// The PTX of the radix sort's kernels for every key type, keys alone and with values: the
// histogram counts every pass's digits with shared-memory atomics from 16-byte key loads;
// the sorting pass ranks keys with ballots and shared atomics, publishes the tile's digit
// counts with relaxed exchanges (no fences) and reads the tiles before with relaxed loads
// (no cache invalidation), and moves the keys (and values) through dynamic shared memory.
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
  const std::string v = sizeof(K) == 4 ? "v4" : "v2";
  auto& keys = alg::radix_sort_kernels<false, K>();
  auto histogram = keys.histogram.compile();
  EXPECT_FALSE(histogram->cubin.empty());
  expect_filecheck(histogram->ptx, "CHECK: .visible .entry cutlet_radix_histogram_" + name + "(\n" + kNoCall +
                                       "CHECK: ld.global." + v + "\n" + kNoCall + "CHECK: atom{{(.relaxed.cta)?}}.shared.add.u32\n" +
                                       kNoCall + "CHECK: bar.sync\n" + kNoCall + "CHECK: atom.global.add.u32\n" +
                                       kNoCall);
  auto onesweep = keys.onesweep.compile();
  EXPECT_FALSE(onesweep->cubin.empty());
  expect_filecheck(onesweep->ptx, "CHECK: .visible .entry cutlet_radix_sort_keys_" + name + "(\n" + kNoCall +
                                      "CHECK: atom.global.add.u32\n" + kNoCall + "CHECK: vote.sync.ballot.b32\n" +
                                      kNoCall + "CHECK: atom{{(.relaxed.cta)?}}.shared.add.u32\n" + kNoCall + "CHECK: bar.sync\n" +
                                      kNoCall + "CHECK: atom{{(.relaxed.gpu)?}}.global.exch.b32\n" + kNoCall +
                                      "CHECK: st.shared\n" + kNoCall + "CHECK: ld.relaxed.gpu.global.b32\n" + kNoCall +
                                      "CHECK: st.global\n" + kNoCall);
  EXPECT_EQ(onesweep->ptx.find("match.any"), std::string::npos);
  EXPECT_EQ(onesweep->ptx.find(".release"), std::string::npos) << "no fence in the look-back";
  EXPECT_EQ(onesweep->ptx.find(".acquire"), std::string::npos) << "no cache invalidation in the look-back";
  auto pairs = alg::radix_sort_kernels<true, K, float>().onesweep.compile();
  EXPECT_FALSE(pairs->cubin.empty());
  // The values are loaded after the keys are ranked (the ballots), while the keys wait in
  // shared memory; no spills with keys, ranks and values in registers at two blocks per SM.
  expect_filecheck(pairs->ptx, "CHECK: .visible .entry cutlet_radix_sort_pairs_" + name + "_f32(\n" + kNoCall +
                                   "CHECK: vote.sync.ballot.b32\n" + kNoCall + "CHECK: st.shared\n" + kNoCall +
                                   "CHECK: ld.global.f32\n" + kNoCall + "CHECK: st.shared.f32\n" + kNoCall +
                                   "CHECK: st.global\n" + kNoCall + "CHECK: st.global.f32\n" + kNoCall);
  EXPECT_EQ(pairs->resources.spill_store_bytes, 0) << name;
  EXPECT_EQ(onesweep->resources.spill_store_bytes, 0) << name;
}

TEST(AlgorithmsRadixSortCodegen, EveryKeyType) {
  test::for_each_element_type([]<class T> { check_type<T>(); });
}

// 8-byte keys with 8-byte values (12 of each a thread) fit the registers of two blocks per SM.
// (4-byte keys with 8-byte values, 20 of each, spill two registers' worth: 8 bytes.)
TEST(AlgorithmsRadixSortCodegen, EightByteKeysAndValuesFitWithoutSpills) {
  auto u64 = alg::radix_sort_kernels<true, std::uint64_t, std::uint64_t>().onesweep.compile();
  EXPECT_EQ(u64->resources.spill_store_bytes, 0);
  EXPECT_LE(u64->resources.registers, 80);
}

TEST(AlgorithmsRadixSortCodegen, BinOffsets) {
  auto offsets = alg::radix_sort_kernels<false, std::uint32_t>().offsets.compile();
  expect_filecheck(offsets->ptx, "CHECK: .visible .entry cutlet_radix_bin_offsets(\n"
                                 "CHECK: shfl.sync.up\n"
                                 "CHECK: bar.sync\n"
                                 "CHECK: st.global.u32\n");
}

}  // namespace
