// The PTX of reduce over user structs: the operator inlined, a 16-byte struct read in one
// vector load and a 12-byte one in word loads, its words shuffled, and no atomics; a float4
// VecElement's operator on its lanes.
#include <gtest/gtest.h>

#include <cstdint>

#include "algorithms/algorithm_test_support.h"
#include "filecheck_support.h"

using namespace cutlet;
namespace alg = cutlet::algorithms;

namespace {

struct Pair16 {
  float best;
  std::int32_t index;
  std::uint64_t count;
};
struct Triple12 {
  float lo, hi, sum;
};

struct Pair16Op {
  Struct<Pair16> operator()(const Struct<Pair16>& a, const Struct<Pair16>& b) const {
    Struct<Pair16> r = select(a[&Pair16::best] >= b[&Pair16::best], a, b);
    return r.with(&Pair16::count, a[&Pair16::count] + b[&Pair16::count]);
  }
};
struct Triple12Op {
  Struct<Triple12> operator()(const Struct<Triple12>& a, const Struct<Triple12>& b) const {
    return a.with(&Triple12::lo, min(a[&Triple12::lo], b[&Triple12::lo]))
        .with(&Triple12::hi, max(a[&Triple12::hi], b[&Triple12::hi]))
        .with(&Triple12::sum, a[&Triple12::sum] + b[&Triple12::sum]);
  }
};

constexpr const char* kNoCallsNoAtomics = R"(
CHECK-NOT: {{[[:space:]](call(\.uni)?[[:space:]]|atom\.|red\.)}}
CHECK: shfl.sync.down
CHECK-NOT: {{[[:space:]](call(\.uni)?[[:space:]]|atom\.|red\.)}}
CHECK: ret;
)";

TEST(AlgorithmsReduceStructCodegen, SixteenByteStructsInOneVectorLoad) {
  auto partials = alg::reduce_struct_kernel<Pair16, Pair16Op>().compile();
  EXPECT_FALSE(partials->cubin.empty());
  expect_filecheck(partials->ptx, std::string("CHECK: .visible .entry cutlet_reduce_partials_iterator_struct16\n"
                                              "CHECK: ld.global.v4.u32\n") +
                                      kNoCallsNoAtomics);
  auto final_pass = alg::detail::reduce_final_kernel<Pair16, Pair16Op>().compile();
  EXPECT_FALSE(final_pass->cubin.empty());
  expect_filecheck(final_pass->ptx,
                   std::string("CHECK: .visible .entry cutlet_reduce_final_struct16\n") + kNoCallsNoAtomics);
}

TEST(AlgorithmsReduceStructCodegen, TwelveByteStructsInWordLoads) {
  auto partials = alg::reduce_struct_kernel<Triple12, Triple12Op>().compile();
  EXPECT_FALSE(partials->cubin.empty());
  expect_filecheck(partials->ptx, std::string("CHECK: .visible .entry cutlet_reduce_partials_iterator_struct12\n"
                                              "CHECK-NOT: ld.global.v{{[24]}}\n"
                                              "CHECK: ld.global.{{(nc.)?}}{{[fbu]}}32\n") +
                                      kNoCallsNoAtomics);
}

TEST(AlgorithmsReduceStructCodegen, Float4VecElementsInOneVectorLoadAddedLaneByLane) {
  // The operator over f32x4 gets the struct's words as lanes and gives them back: no moves
  // through memory, four f32 adds a combine.
  using F32x4 = alg::VecElement<float, 4>;
  auto partials = alg::reduce_struct_kernel<F32x4, alg::plus>().compile();
  EXPECT_FALSE(partials->cubin.empty());
  expect_filecheck(partials->ptx, std::string("CHECK: .visible .entry cutlet_reduce_partials_iterator_struct16\n"
                                              "CHECK: ld.global.v4.u32\n"
                                              "CHECK-NOT: {{ld|st}}.local\n"
                                              "CHECK: add.f32\n"
                                              "CHECK-NEXT: add.f32\n"
                                              "CHECK-NEXT: add.f32\n"
                                              "CHECK-NEXT: add.f32\n") +
                                      kNoCallsNoAtomics);
}

}  // namespace
