// The PTX of unique's and run_length_encode's kernels for every element type: the equality
// inlined (no call), 16-byte item loads, each item's neighbour from the lane below (a
// shuffle up), ranks from warp ballots, and the tile status: unique's counts packed in one
// u64 word per tile (relaxed atomics: the word is all a reader needs), run_length_encode's
// (count, last head) pairs in arrays of their own behind u32 flags (released and acquired);
// run_length_encode also takes each row's last head with a warp max.
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
  auto unique = alg::unique_kernel<T>().compile();
  EXPECT_FALSE(unique->cubin.empty());
  expect_filecheck(unique->ptx, "CHECK: .visible .entry cutlet_unique_" + name + "(\n" + kNoCall +
                                    "CHECK: atom.global.add.u32\n" + kNoCall + "CHECK: ld.global." + v + "\n" +
                                    kNoCall + "CHECK: shfl.sync.up\n" + kNoCall + "CHECK: vote.sync.ballot.b32\n" +
                                    kNoCall + "CHECK: bar.sync\n" + kNoCall +
                                    "CHECK: atom.global.exch.b64\n" + kNoCall +
                                    "CHECK: ld.relaxed.gpu.global.b64\n" + kNoCall + "CHECK: st.global\n" +
                                    kNoCall);
  auto rle = alg::run_length_encode_kernel<T>().compile();
  EXPECT_FALSE(rle->cubin.empty());
  expect_filecheck(rle->ptx, "CHECK: .visible .entry cutlet_run_length_encode_" + name + "(\n" + kNoCall +
                                 "CHECK: atom.global.add.u32\n" + kNoCall + "CHECK: ld.global." + v + "\n" +
                                 kNoCall + "CHECK: shfl.sync.up\n" + kNoCall + "CHECK: vote.sync.ballot.b32\n" +
                                 kNoCall + "CHECK: redux.sync.max.u32\n" + kNoCall + "CHECK: bar.sync\n" + kNoCall +
                                 "CHECK: atom.release.gpu.global.exch.b32\n" + kNoCall +
                                 "CHECK: ld.acquire.gpu.global.b32\n" + kNoCall + "CHECK: ld.global.cg.{{[bu]}}64\n" +
                                 kNoCall + "CHECK: st.global\n" + kNoCall);
}

TEST(AlgorithmsUniqueCodegen, EveryElementType) {
  test::for_each_element_type([]<class T> { check_type<T>(); });
}

TEST(AlgorithmsUniqueCodegen, UserEqualityInlined) {
  // Equal when in the same bucket of 7: a division by a constant (a high multiply) each.
  auto same_bucket = [](u32 a, u32 b) { return a / 7u == b / 7u; };
  auto unique = alg::unique_kernel<std::uint32_t, decltype(same_bucket)>().compile()->ptx;
  expect_filecheck(unique, std::string("CHECK: .visible .entry cutlet_unique_u32(\n") + kNoCall +
                               "CHECK: ld.global.v4.{{[bu]}}32\n" + kNoCall + "CHECK: mul.hi.u32\n" + kNoCall +
                               "CHECK: vote.sync.ballot.b32\n" + kNoCall);
  // Floats equal within 0.5: a subtraction and an absolute value per neighbour pair.
  auto close = [](f64 a, f64 b) { return abs(a - b) < 0.5; };
  auto rle = alg::run_length_encode_kernel<double, decltype(close)>().compile()->ptx;
  expect_filecheck(rle, std::string("CHECK: .visible .entry cutlet_run_length_encode_f64(\n") + kNoCall +
                            "CHECK: ld.global.v2.f64\n" + kNoCall + "CHECK: sub{{(\\.rn)?}}.f64\n" + kNoCall +
                            "CHECK: abs.f64\n" + kNoCall + "CHECK: vote.sync.ballot.b32\n" + kNoCall);
}

TEST(AlgorithmsUniqueCodegen, WorkspaceLayouts) {
  // unique: select's (a counter and a u64 status word per tile). run_length_encode: a
  // counter, a u32 flag per tile, then two u64 per tile, each part 256-byte aligned.
  const std::size_t tile = alg::kSelectTile<std::int32_t>;
  EXPECT_EQ(alg::select_workspace_bytes<std::int32_t>(64 * tile), 256u + 512);
  EXPECT_EQ(alg::run_length_encode_workspace_bytes<std::int32_t>(0), 0u);
  EXPECT_EQ(alg::run_length_encode_workspace_bytes<std::int32_t>(1), 4u * 256);
  EXPECT_EQ(alg::run_length_encode_workspace_bytes<std::int32_t>(64 * tile), 256u + 256 + 2 * 512);
}

}  // namespace
