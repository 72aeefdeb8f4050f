// The PTX of histogram_even's and histogram_range's kernels for every sample type:
// shared-memory atomics into the block's bins and one global atomic per bin in the privatized
// kernels, global atomics alone in the others, 16-byte sample loads, the levels searched in
// shared memory (privatized) or global memory, and no calls.
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
  const std::string name = test::element_label<T>();
  const std::string v = sizeof(T) == 4 ? "v4" : "v2";
  auto shared = alg::histogram_kernel<true, T>().compile();
  EXPECT_FALSE(shared->cubin.empty());
  expect_filecheck(shared->ptx, "CHECK: .visible .entry cutlet_histogram_even_shared_" + name + "(\n" + kNoCall +
                                    "CHECK: ld.global." + v + "\n" + kNoCall +
                                    "CHECK: atom.relaxed.cta.shared.add.u32\n" + kNoCall + "CHECK: bar.sync\n" +
                                    kNoCall + "CHECK: atom.global.add.u32\n" + kNoCall);
  auto global = alg::histogram_kernel<false, T>().compile();
  expect_filecheck(global->ptx, "CHECK: .visible .entry cutlet_histogram_even_global_" + name + "(\n" + kNoCall +
                                    "CHECK-NOT: atom.{{.*}}shared\n" + "CHECK: atom.global.add.u32\n" + kNoCall +
                                    "CHECK-NOT: atom.{{.*}}shared\n");
  auto range_shared = alg::histogram_range_kernel<true, T>().compile();
  EXPECT_FALSE(range_shared->cubin.empty());
  expect_filecheck(range_shared->ptx, "CHECK: .visible .entry cutlet_histogram_range_shared_" + name + "(\n" +
                                          kNoCall + "CHECK: st.shared\n" + kNoCall + "CHECK: bar.sync\n" + kNoCall +
                                          "CHECK: ld.global." + v + "\n" + kNoCall + "CHECK: ld.shared\n" + kNoCall +
                                          "CHECK: atom.relaxed.cta.shared.add.u32\n" + kNoCall +
                                          "CHECK: atom.global.add.u32\n" + kNoCall);
  auto range_global = alg::histogram_range_kernel<false, T>().compile();
  expect_filecheck(range_global->ptx, "CHECK: .visible .entry cutlet_histogram_range_global_" + name + "(\n" +
                                          kNoCall + "CHECK-NOT: {{(ld|st|atom).*shared}}\n" +
                                          "CHECK: atom.global.add.u32\n" + kNoCall +
                                          "CHECK-NOT: {{(ld|st|atom).*shared}}\n");
}

TEST(AlgorithmsHistogramCodegen, EverySampleType) {
  test::for_each_element_type([]<class T> { check_type<T>(); });
}

}  // namespace
