// The PTX of the transform kernels: the operator inlined (no call) and 16-byte accesses for
// 32-bit elements, 2-lane ones when a 64-bit type takes part.
#include <gtest/gtest.h>

#include <string>

#include "algorithms/algorithm_test_support.h"
#include "filecheck_support.h"

using namespace cutlet;
namespace alg = cutlet::algorithms;

namespace {

constexpr const char* kNoCall = "CHECK-NOT: {{[[:space:]]call(\\.uni)?[[:space:]]}}\n";

TEST(AlgorithmsTransformCodegen, UnaryFloat) {
  auto op = [](f32 x) { return x * 2.0f + 1.0f; };
  auto ptx = alg::transform_kernel<float, float, decltype(op)>().compile()->ptx;
  expect_filecheck(ptx, std::string("CHECK: .visible .entry cutlet_transform_f32_f32(\n") + kNoCall +
                            "CHECK: ld.global.v4.f32\n" + kNoCall + "CHECK: fma.rn.f32\n" + kNoCall +
                            "CHECK: st.global.v4.f32\n" + kNoCall);
}

TEST(AlgorithmsTransformCodegen, WideningToDouble) {
  auto op = [](f32 x) { return cast<double>(x); };
  auto ptx = alg::transform_kernel<float, double, decltype(op)>().compile()->ptx;
  expect_filecheck(ptx, std::string("CHECK: .visible .entry cutlet_transform_f32_f64(\n") + kNoCall +
                            "CHECK: ld.global.v2.f32\n" + kNoCall + "CHECK: cvt.f64.f32\n" + kNoCall +
                            "CHECK: st.global.v2.f64\n" + kNoCall);
}

TEST(AlgorithmsTransformCodegen, BinaryIntegers) {
  auto op = [](i32 a, i64 b) { return b - a; };
  auto ptx = alg::transform_kernel<std::int32_t, std::int64_t, std::int64_t, decltype(op)>().compile()->ptx;
  expect_filecheck(ptx, std::string("CHECK: .visible .entry cutlet_transform_i32_i64_i64(\n") + kNoCall +
                            "CHECK: ld.global.v2\n" + kNoCall + "CHECK: ld.global.v2\n" + kNoCall +
                            "CHECK: sub.s64\n" + kNoCall + "CHECK: st.global.v2\n" + kNoCall);
}

template <class T>
void check_unary() {
  SCOPED_TRACE(test::element_label<T>());
  auto op = [](Value<T> x) { return x + x; };
  auto compiled = alg::transform_kernel<T, T, decltype(op)>().compile();
  EXPECT_FALSE(compiled->cubin.empty());
  const std::string v = sizeof(T) == 4 ? "v4" : "v2";
  expect_filecheck(compiled->ptx, std::string("CHECK: .visible .entry cutlet_transform_\n") + kNoCall +
                                      "CHECK: ld.global." + v + "\n" + kNoCall + "CHECK: st.global." + v + "\n" +
                                      kNoCall);
}

TEST(AlgorithmsTransformCodegen, EveryElementType) {
  test::for_each_element_type([]<class T> { check_unary<T>(); });
}

}  // namespace
