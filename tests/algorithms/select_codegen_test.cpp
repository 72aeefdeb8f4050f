// The PTX of select_if's and select_flagged's kernels for every element type: the predicate
// inlined (no call), the tile counter, 16-byte item loads, ranks from warp ballots, the tile
// status as one u64 word per tile (a relaxed exchange to publish, relaxed reads to look
// back: the word is all a reader needs), and the kept items' stores.
#include <gtest/gtest.h>

#include <string>

#include "algorithms/algorithm_test_support.h"
#include "filecheck_support.h"

using namespace cutlet;
namespace alg = cutlet::algorithms;

namespace {

constexpr const char* kNoCall = "CHECK-NOT: {{[[:space:]]call(\\.uni)?[[:space:]]}}\n";

/// The checks of a compaction kernel named `name` whose items are T, from the tile counter to
/// the stores, with `between` (more CHECK lines) after the item loads.
template <class T>
std::string compaction_checks(const std::string& name, const std::string& between = "") {
  const std::string v = sizeof(T) == 4 ? "v4" : "v2";
  return "CHECK: .visible .entry " + name + "(\n" + kNoCall + "CHECK: atom.global.add.u32\n" + kNoCall +
         "CHECK: ld.global." + v + "\n" + kNoCall + between + "CHECK: vote.sync.ballot.b32\n" + kNoCall +
         "CHECK: popc.b32\n" + kNoCall + "CHECK: bar.sync\n" + kNoCall +
         "CHECK: atom.global.exch.b64\n" + kNoCall + "CHECK: ld.relaxed.gpu.global.b64\n" +
         kNoCall + "CHECK: bar.sync\n" + kNoCall + "CHECK: ld.shared\n" + kNoCall + "CHECK: st.global\n" + kNoCall;
}

template <class T>
void check_type() {
  SCOPED_TRACE(test::element_label<T>());
  const std::string name = test::element_label<T>();
  auto positive = [](Value<T> x) { return x > T(0); };
  auto if_kernel = alg::select_if_kernel<T, decltype(positive)>().compile();
  EXPECT_FALSE(if_kernel->cubin.empty());
  expect_filecheck(if_kernel->ptx, compaction_checks<T>("cutlet_select_if_" + name, "CHECK: setp\n"));
  auto flagged = alg::select_flagged_kernel<T, std::uint8_t>().compile();
  EXPECT_FALSE(flagged->cubin.empty());
  expect_filecheck(flagged->ptx, compaction_checks<T>("cutlet_select_flagged_" + name + "_u8"));
}

TEST(AlgorithmsSelectCodegen, EveryElementType) {
  test::for_each_element_type([]<class T> { check_type<T>(); });
}

TEST(AlgorithmsSelectCodegen, PredicateInlined) {
  // A predicate with instructions of its own: |x| in [0.25, 0.75).
  auto band = [](f32 x) { return (abs(x) >= 0.25f) & (abs(x) < 0.75f); };
  auto ptx = alg::select_if_kernel<float, decltype(band)>().compile()->ptx;
  expect_filecheck(ptx, std::string("CHECK: .visible .entry cutlet_select_if_f32(\n") + kNoCall +
                            "CHECK: ld.global.v4.f32\n" + kNoCall + "CHECK: abs.f32\n" + kNoCall +
                            "CHECK: setp.{{.*}}f32\n" + kNoCall + "CHECK: vote.sync.ballot.b32\n" + kNoCall);
}

TEST(AlgorithmsSelectCodegen, FlagsOfEveryWidth) {
  // 4 flags per 16-byte vector of floats: 4 bytes of u8 (one access), 16 of i32, 32 of f64
  // (two 16-byte accesses).
  auto bytes = alg::select_flagged_kernel<float, std::uint8_t>().compile()->ptx;
  expect_filecheck(bytes, std::string("CHECK: .visible .entry cutlet_select_flagged_f32_u8(\n") +
                           "CHECK: ld.global.{{(v4\\.[bu]8|[bu]32)}}\n");
  auto words = alg::select_flagged_kernel<float, std::int32_t>().compile()->ptx;
  expect_filecheck(words, std::string("CHECK: .visible .entry cutlet_select_flagged_f32_i32(\n") +
                            "CHECK-COUNT-2: ld.global.v4\n");
  auto doubles = alg::select_flagged_kernel<float, double>().compile()->ptx;
  expect_filecheck(doubles, std::string("CHECK: .visible .entry cutlet_select_flagged_f32_f64(\n") +
                            "CHECK: ld.global.v2.f64\n" + kNoCall);
}

TEST(AlgorithmsSelectCodegen, WorkspaceLayout) {
  // A counter, then a u64 status word per tile, each part 256-byte aligned.
  const std::size_t tile = alg::kSelectTile<float>;
  EXPECT_EQ(tile, 4096u);
  EXPECT_EQ(alg::kSelectTile<double>, 2048);
  EXPECT_EQ(alg::select_workspace_bytes<float>(0), 0u);
  EXPECT_EQ(alg::select_workspace_bytes<float>(1), 2u * 256);
  EXPECT_EQ(alg::select_workspace_bytes<float>(32 * tile), 2u * 256);
  EXPECT_EQ(alg::select_workspace_bytes<float>(32 * tile + 1), 256u + 512);
}

}  // namespace
