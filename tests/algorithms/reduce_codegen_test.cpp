// The PTX of reduce's two kernels for every element type and several operators: the
// operator inlined (no call), 16-byte vector loads, warp shuffles, and no atomics (the
// result does not depend on the order blocks finish in).
#include <gtest/gtest.h>

#include <string>

#include "algorithms/algorithm_test_support.h"
#include "filecheck_support.h"

using namespace cutlet;
namespace alg = cutlet::algorithms;

namespace {

/// What each element type's 16-byte loads look like in PTX.
template <class T>
std::string vector_load() {
  return sizeof(T) == 4 ? "ld.global.v4" : "ld.global.v2";
}

template <class T, class Op>
void check_reduce_kernels() {
  SCOPED_TRACE(test::element_label<T>());
  auto& kernels = alg::reduce_kernels<T, Op>();
  auto partials = kernels.partials.compile();
  auto final_pass = kernels.final_pass.compile();
  EXPECT_FALSE(partials->cubin.empty());
  EXPECT_FALSE(final_pass->cubin.empty());
  const std::string name = test::element_label<T>();
  expect_filecheck(partials->ptx, "CHECK: .visible .entry cutlet_reduce_partials_" + name + R"((
CHECK-NOT: {{[[:space:]]call(\.uni)?[[:space:]]}}
CHECK: )" + vector_load<T>() + R"(
CHECK-NOT: {{[[:space:]]call(\.uni)?[[:space:]]}}
CHECK: shfl.sync.down
CHECK-NOT: {{[[:space:]](call(\.uni)?[[:space:]]|atom\.|red\.)}}
CHECK: ret;
)");
  expect_filecheck(final_pass->ptx, "CHECK: .visible .entry cutlet_reduce_final_" + name + R"((
CHECK-NOT: {{[[:space:]](call(\.uni)?[[:space:]]|atom\.|red\.)}}
CHECK: shfl.sync.down
CHECK-NOT: {{[[:space:]](call(\.uni)?[[:space:]]|atom\.|red\.)}}
CHECK: ret;
)");
}

template <class T>
void check_every_operator() {
  check_reduce_kernels<T, alg::plus>();
  check_reduce_kernels<T, alg::maximum>();
  check_reduce_kernels<T, alg::minimum>();
  auto custom = [](Value<T> a, Value<T> b) { return select(a > b, a - b, b - a); };
  check_reduce_kernels<T, decltype(custom)>();
}

TEST(AlgorithmsReduceCodegen, EveryElementTypeAndOperatorInlined) {
  test::for_each_element_type([]<class T> { check_every_operator<T>(); });
}

TEST(AlgorithmsReduceCodegen, FloatSumAddsInTheKernel) {
  auto ptx = alg::reduce_kernels<float, alg::plus>().partials.compile()->ptx;
  expect_filecheck(ptx, R"(
CHECK: .visible .entry cutlet_reduce_partials_f32(
CHECK: ld.global.v4.f32
CHECK: add{{(\.rn)?}}.f32
CHECK: shfl.sync.down.b32
CHECK: st.shared
CHECK: bar.sync
)");
}

TEST(AlgorithmsReduceCodegen, BitwiseOperatorOfUnsignedIntegers) {
  auto ptx = alg::reduce_kernels<std::uint64_t, alg::bit_xor>().partials.compile()->ptx;
  expect_filecheck(ptx, R"(
CHECK: .visible .entry cutlet_reduce_partials_u64(
CHECK: ld.global.v2
CHECK: xor.b64
)");
}

TEST(AlgorithmsReduceCodegen, OneKernelObjectPerTypeAndOperator) {
  auto& a = alg::reduce_kernels<float, alg::plus>();
  auto& b = alg::reduce_kernels<float, alg::plus>();
  auto& c = alg::reduce_kernels<float, alg::maximum>();
  EXPECT_EQ(&a, &b);
  EXPECT_NE(static_cast<const void*>(&a), static_cast<const void*>(&c));
}

}  // namespace
