// The PTX of the look-back scan kernels for every element type: the operator inlined (no
// call), 16-byte vector loads and stores, the tile counter, the status published with an
// exchange and read with atomic loads (one u64 word with the value for 4-byte elements, relaxed;
// a u32 flag, released and acquired, and the value from L2 for 8-byte ones), and a
// non-commutative operator on 64-bit elements.
#include <gtest/gtest.h>

#include <string>

#include "algorithms/algorithm_test_support.h"
#include "filecheck_support.h"

using namespace cutlet;
namespace alg = cutlet::algorithms;

namespace {

template <bool Exclusive, class T, class Op>
void check_scan_kernel() {
  SCOPED_TRACE(std::string(Exclusive ? "exclusive " : "inclusive ") + test::element_label<T>());
  auto compiled = alg::scan_kernel<Exclusive, T, Op>().compile();
  EXPECT_FALSE(compiled->cubin.empty());
  const std::string v = sizeof(T) == 4 ? "v4" : "v2";
  // Packed: the flag and the value in one u64 word; split: a u32 flag, then the value.
  const std::string status = sizeof(T) == 4 ? "b64" : "b32";
  const std::string publish = sizeof(T) == 4 ? "atom.global.exch." : "atom.release.gpu.global.exch.";
  const std::string read = sizeof(T) == 4 ? "ld.relaxed.gpu.global." : "ld.acquire.gpu.global.";
  const std::string value_load = sizeof(T) == 4 ? "" : "CHECK: ld.global.cg\nCHECK-NOT: {{[[:space:]]call(\\.uni)?[[:space:]]}}\n";
  expect_filecheck(compiled->ptx, std::string("CHECK: .visible .entry cutlet_") +
                                      (Exclusive ? "exclusive" : "inclusive") + "_scan_" + test::element_label<T>() +
                                      R"((
CHECK-NOT: {{[[:space:]]call(\.uni)?[[:space:]]}}
CHECK: atom.global.add.u32
CHECK-NOT: {{[[:space:]]call(\.uni)?[[:space:]]}}
CHECK: ld.global.)" + v + R"(
CHECK-NOT: {{[[:space:]]call(\.uni)?[[:space:]]}}
CHECK: shfl.sync.up
CHECK-NOT: {{[[:space:]]call(\.uni)?[[:space:]]}}
CHECK: )" + publish + status + R"(
CHECK-NOT: {{[[:space:]]call(\.uni)?[[:space:]]}}
CHECK: )" + read + status + R"(
CHECK-NOT: {{[[:space:]]call(\.uni)?[[:space:]]}}
)" + value_load + R"(CHECK: st.global.)" + v + R"(
CHECK-NOT: {{[[:space:]]call(\.uni)?[[:space:]]}}
)");
}

template <class T>
void check_type() {
  check_scan_kernel<false, T, alg::plus>();
  check_scan_kernel<true, T, alg::plus>();
  check_scan_kernel<false, T, alg::maximum>();
  auto last = [](Value<T> a, Value<T> b) { return select(b != T(0), b, a); };  // not commutative
  check_scan_kernel<true, T, decltype(last)>();
}

TEST(AlgorithmsScanCodegen, EveryElementTypeBothScans) {
  test::for_each_element_type([]<class T> { check_type<T>(); });
}

TEST(AlgorithmsScanCodegen, NarrowElementsLinkToCubins) {
  // Their look-back values are read with ld.global.cg, which ptxas takes for 16-bit floats
  // only as .b16.
  test::for_each_narrow_element_type([]<class T> {
    SCOPED_TRACE(alg::element_name<T>());
    EXPECT_FALSE((alg::scan_kernel<false, T, alg::minimum>().compile()->cubin.empty()));
    EXPECT_FALSE((alg::scan_kernel<true, T, alg::plus>().compile()->cubin.empty()));
  });
}

TEST(AlgorithmsScanCodegen, MatrixProductInlined) {
  auto ptx = alg::scan_kernel<false, std::uint64_t, test::mat2x2_product>().compile()->ptx;
  expect_filecheck(ptx, R"(
CHECK: .visible .entry cutlet_inclusive_scan_u64(
CHECK-NOT: {{[[:space:]]call(\.uni)?[[:space:]]}}
CHECK: mul.lo.s64
CHECK-NOT: {{[[:space:]]call(\.uni)?[[:space:]]}}
)");
}

TEST(AlgorithmsScanCodegen, WorkspaceLayout) {
  // A counter, then per tile a u64 status word (4-byte elements) or a flag, an aggregate and a
  // prefix (8-byte ones), each array 256-byte aligned, then 256 bytes of carries between
  // chunks; the tiles of one chunk at most.
  const std::size_t tile = alg::kScanTile<float>;
  EXPECT_EQ(alg::scan_workspace_bytes<float>(0), 0u);
  EXPECT_EQ(alg::scan_workspace_bytes<float>(1), 2u * 256 + 256);
  EXPECT_EQ(alg::scan_workspace_bytes<float>(64 * tile), 256u + 512 + 256);
  EXPECT_EQ(alg::scan_workspace_bytes<float>(64 * tile + 1), 256u + 768 + 256);
  EXPECT_EQ(alg::scan_workspace_bytes<double>(64 * alg::kScanTile<double> + 1), 256u + 512 + 2 * 768 + 256);
  const std::size_t chunk_tiles = static_cast<std::size_t>(alg::kScanChunk) / tile;
  EXPECT_EQ(alg::scan_workspace_bytes<float>(std::size_t{3} << 31), 256u + chunk_tiles * 8 + 256);
}

}  // namespace
