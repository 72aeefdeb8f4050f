// The PTX of three_way_partition's kernel for every element type: both predicates inlined (no
// call), the tile counter, 16-byte item loads, two ballots per item group (one per part), the
// tile's pair of counts published with one relaxed exchange of a u64 word and read back with
// relaxed loads (the word holds all a reader needs: no fences), and the staged items' stores.
#include <gtest/gtest.h>

#include <string>

#include "algorithms/algorithm_test_support.h"
#include "filecheck_support.h"

using namespace cutlet;
namespace alg = cutlet::algorithms;

namespace {

constexpr const char* kNoCall = "CHECK-NOT: {{[[:space:]]call(\\.uni)?[[:space:]]}}\n";

template <class T>
void check_type() {
  SCOPED_TRACE(test::element_label<T>());
  auto high = [](Value<T> x) { return x > T(1); };
  auto low = [](Value<T> x) { return x < T(0); };
  auto k = alg::three_way_partition_kernel<T, decltype(high), decltype(low)>().compile();
  EXPECT_FALSE(k->cubin.empty());
  const std::string v = sizeof(T) == 4 ? "v4" : "v2";
  expect_filecheck(k->ptx, "CHECK: .visible .entry cutlet_three_way_partition_" + test::element_label<T>() + "(\n" +
                               kNoCall + "CHECK: atom.global.add.u32\n" + kNoCall + "CHECK: ld.global." + v + "\n" +
                               kNoCall + "CHECK: vote.sync.ballot.b32\n" + kNoCall +
                               "CHECK: vote.sync.ballot.b32\n" + kNoCall + "CHECK: bar.sync\n" + kNoCall +
                               "CHECK: atom.global.exch.b64\n" + kNoCall +
                               "CHECK: ld.relaxed.gpu.global.b64\n" + kNoCall + "CHECK: bar.sync\n" + kNoCall +
                               "CHECK: ld.shared\n" + kNoCall + "CHECK: st.global\n" + kNoCall);
}

TEST(AlgorithmsPartitionCodegen, EveryElementType) {
  test::for_each_element_type([]<class T> { check_type<T>(); });
}

}  // namespace
