// The PTX of the radix sort's kernels for every key type, keys alone and with values: the
// histogram counts every pass's digits with shared-memory atomics from 16-byte key loads;
// the sorting pass ranks keys with match.any and shared atomics, publishes the tile's digit
// counts with release exchanges and reads the tiles before with acquire loads, and moves the
// keys (and values) through dynamic shared memory.
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
                                      "CHECK: atom.global.add.u32\n" + kNoCall + "CHECK: match.any.sync.b32\n" +
                                      kNoCall + "CHECK: atom{{(.relaxed.cta)?}}.shared.add.u32\n" + kNoCall + "CHECK: bar.sync\n" +
                                      kNoCall + "CHECK: atom.release.gpu.global.exch.b32\n" + kNoCall +
                                      "CHECK: ld.acquire.gpu.global.b32\n" + kNoCall + "CHECK: st.shared\n" +
                                      kNoCall + "CHECK: st.global\n" + kNoCall);
  auto pairs = alg::radix_sort_kernels<true, K, float>().onesweep.compile();
  EXPECT_FALSE(pairs->cubin.empty());
  expect_filecheck(pairs->ptx, "CHECK: .visible .entry cutlet_radix_sort_pairs_" + name + "_f32(\n" + kNoCall +
                                   "CHECK: match.any.sync.b32\n" + kNoCall + "CHECK: st.global\n" + kNoCall +
                                   "CHECK: ld.global.f32\n" + kNoCall + "CHECK: st.shared.f32\n" + kNoCall +
                                   "CHECK: st.global.f32\n" + kNoCall);
}

TEST(AlgorithmsRadixSortCodegen, EveryKeyType) {
  test::for_each_element_type([]<class T> { check_type<T>(); });
}

TEST(AlgorithmsRadixSortCodegen, BinOffsets) {
  auto offsets = alg::radix_sort_kernels<false, std::uint32_t>().offsets.compile();
  expect_filecheck(offsets->ptx, "CHECK: .visible .entry cutlet_radix_bin_offsets(\n"
                                 "CHECK: shfl.sync.up\n"
                                 "CHECK: bar.sync\n"
                                 "CHECK: st.global.u32\n");
}

}  // namespace
