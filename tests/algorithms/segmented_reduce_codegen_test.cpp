// The PTX of segmented_reduce's two kernels (a block and a warp per segment) for every element
// type and several operators: the operator inlined (no call), 16-byte vector loads of the
// segments' whole vectors, warp shuffles, no atomics; the block kernel also combines its warps
// through shared memory.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <utility>

#include "algorithms/algorithm_test_support.h"
#include "filecheck_support.h"

using namespace cutlet;
namespace alg = cutlet::algorithms;

namespace {

constexpr const char* kNoCallNoAtomic = "CHECK-NOT: {{[[:space:]](call(\\.uni)?[[:space:]]|atom\\.|red\\.)}}\n";

template <class T, class Op>
void check_kernels() {
  SCOPED_TRACE(test::element_label<T>());
  auto& kernels = alg::segmented_reduce_kernels<T, Op>();
  auto block = kernels.block.compile();
  auto warp = kernels.warp.compile();
  EXPECT_FALSE(block->cubin.empty());
  EXPECT_FALSE(warp->cubin.empty());
  const std::string name = test::element_label<T>();
  const std::string v = sizeof(T) == 4 ? "v4" : "v2";
  expect_filecheck(block->ptx, "CHECK: .visible .entry cutlet_segmented_reduce_block_" + name + "(\n" +
                                   kNoCallNoAtomic + "CHECK: ld.global." + v + "\n" + kNoCallNoAtomic +
                                   "CHECK: shfl.sync.down\n" + kNoCallNoAtomic + "CHECK: bar.sync\n" +
                                   kNoCallNoAtomic + "CHECK: ret;\n");
  expect_filecheck(warp->ptx, "CHECK: .visible .entry cutlet_segmented_reduce_warp_" + name + "(\n" +
                                  kNoCallNoAtomic + "CHECK-NOT: bar.sync\n" + "CHECK: ld.global." + v + "\n" +
                                  kNoCallNoAtomic + "CHECK-NOT: bar.sync\n" + "CHECK: shfl.sync.down\n" +
                                  kNoCallNoAtomic + "CHECK-NOT: bar.sync\n" + "CHECK: ret;\n");
}

template <class T>
void check_every_operator() {
  check_kernels<T, alg::plus>();
  check_kernels<T, alg::maximum>();
  auto custom = [](Value<T> a, Value<T> b) { return select(a > b, a - b, b - a); };
  check_kernels<T, decltype(custom)>();
}

TEST(AlgorithmsSegmentedReduceCodegen, EveryElementTypeAndOperatorInlined) {
  test::for_each_element_type([]<class T> { check_every_operator<T>(); });
}

TEST(AlgorithmsSegmentedReduceCodegen, FloatSumAddsVectorLanes) {
  auto ptx = alg::segmented_reduce_kernels<float, alg::plus>().block.compile()->ptx;
  expect_filecheck(ptx, R"(
CHECK: .visible .entry cutlet_segmented_reduce_block_f32(
CHECK: ld.global.v4.f32
CHECK: add{{(\.rn)?}}.f32
CHECK: shfl.sync.down.b32
CHECK: st.shared
CHECK: bar.sync
)");
}

TEST(AlgorithmsSegmentedReduceCodegen, UserLambdaInlined) {
  // A lambda with an instruction of its own: the larger of |a| and |b| (i64).
  auto larger_magnitude = [](i64 a, i64 b) { return max(abs(a), abs(b)); };
  auto ptx = alg::segmented_reduce_kernels<std::int64_t, decltype(larger_magnitude)>().warp.compile()->ptx;
  expect_filecheck(ptx, R"(
CHECK: .visible .entry cutlet_segmented_reduce_warp_i64(
CHECK-NOT: {{[[:space:]]call(\.uni)?[[:space:]]}}
CHECK: ld.global.v2
CHECK-NOT: {{[[:space:]]call(\.uni)?[[:space:]]}}
CHECK: max.s64
CHECK-NOT: {{[[:space:]]call(\.uni)?[[:space:]]}}
)");
}

TEST(AlgorithmsSegmentedReduceCodegen, WarpKernelForShortSegments) {
  // The threshold is one warp tile of 16-byte vectors.
  EXPECT_EQ(alg::kSegmentedReduceWarpMean<float>, 512);
  EXPECT_EQ(alg::kSegmentedReduceWarpMean<double>, 256);
}

/// 16 bytes: a float score, an index and a count (one 16-byte load).
struct Scored {
  float score;
  std::int32_t index;
  std::uint64_t count;
};

TEST(AlgorithmsSegmentedReduceCodegen, StructsLoadWholeAndIteratorsInline) {
  // Structs of 16 bytes: one 16-byte load each, the operator inlined, stores of the words.
  auto best = [](Struct<Scored> a, Struct<Scored> b) {
    Struct<Scored> r = select(a[&Scored::score] >= b[&Scored::score], a, b);
    r.set(&Scored::count, a[&Scored::count] + b[&Scored::count]);
    return r;
  };
  auto& structs = alg::segmented_reduce_iterator_kernels<alg::StructBufferIterator<Scored>, decltype(best)>();
  const std::string struct_checks = std::string(kNoCallNoAtomic) + "CHECK: ld.global.v4.u32\n" + kNoCallNoAtomic +
                                    "CHECK: shfl.sync.down\n" + kNoCallNoAtomic + "CHECK: st.global\n" +
                                    kNoCallNoAtomic + "CHECK: ret;\n";
  auto block = structs.block.compile();
  auto warp = structs.warp.compile();
  const std::string entry = "CHECK: .visible .entry cutlet_segmented_reduce_";
  expect_filecheck(block->ptx, entry + "block_iterator_struct16(\n" + struct_checks);
  expect_filecheck(warp->ptx, entry + "warp_iterator_struct16(\n" + struct_checks);
  // A transform iterator: its operator traced into the kernel, no call.
  using Squares = decltype(alg::transform_iterator(std::declval<const Buffer<std::int32_t>&>(), [](i32 x) {
    return cast<std::int64_t>(x) * cast<std::int64_t>(x);
  }));
  auto squares = alg::segmented_reduce_iterator_kernels<Squares, alg::plus>().block.compile();
  expect_filecheck(squares->ptx, std::string("CHECK: .visible .entry cutlet_segmented_reduce_block_iterator_i64(\n") +
                                     kNoCallNoAtomic + "CHECK: ld.global{{.*}}.u32\n" + "CHECK: mul{{.*}}\n" +
                                     kNoCallNoAtomic + "CHECK: bar.sync\n");
}

}  // namespace
