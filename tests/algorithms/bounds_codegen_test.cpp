// The PTX of the bounds kernels: the comparator inlined (no call), the sorted buffer read
// through the read-only cache, the halving step taken by selects, for every element type.
#include <gtest/gtest.h>

#include <string>

#include "algorithms/algorithm_test_support.h"
#include "filecheck_support.h"

using namespace cutlet;
namespace alg = cutlet::algorithms;

namespace {

constexpr const char* kNoCall = "CHECK-NOT: {{[[:space:]]call(\\.uni)?[[:space:]]}}\n";

template <bool Upper, class T, class Comp>
void check_bounds_kernel() {
  SCOPED_TRACE(std::string(Upper ? "upper " : "lower ") + test::element_label<T>());
  auto compiled = alg::bounds_kernel<Upper, T, Comp>().compile();
  EXPECT_FALSE(compiled->cubin.empty());
  // The store's block may come before the search loop's.
  expect_filecheck(compiled->ptx, std::string("CHECK: .visible .entry cutlet_") + (Upper ? "upper" : "lower") +
                                      "_bound_" + test::element_label<T>() + "(\n" + kNoCall +
                                      "CHECK-DAG: ld.global.nc\nCHECK-DAG: setp\nCHECK-DAG: selp\n"
                                      "CHECK-DAG: st.global.u32\n");
  EXPECT_EQ(compiled->ptx.find("call"), std::string::npos) << compiled->ptx;
}

template <class T>
void check_type() {
  check_bounds_kernel<false, T, alg::less>();
  check_bounds_kernel<true, T, alg::less>();
  check_bounds_kernel<false, T, alg::greater>();
}

TEST(AlgorithmsBoundsCodegen, EveryElementTypeBothBounds) {
  test::for_each_element_type([]<class T> { check_type<T>(); });
}

TEST(AlgorithmsBoundsCodegen, AUserComparatorIsInlined) {
  // By magnitude: a comparator that is not one of the built-in ones.
  auto by_magnitude = [](Value<float> a, Value<float> b) { return abs(a) < abs(b); };
  auto ptx = alg::bounds_kernel<false, float, decltype(by_magnitude)>().compile()->ptx;
  expect_filecheck(ptx, std::string("CHECK: .visible .entry cutlet_lower_bound_f32(\n") + kNoCall + "CHECK: abs.f32\n" +
                            kNoCall);
}

}  // namespace
