// The PTX of the scans by key: keys and values read in 16-byte vectors (two per row for
// 8-byte keys), the key before each lane's first item taken by a shuffle, the (head, value)
// pairs scanned with the user operator inlined (no call), each tile's status one u64 word (flag
// and pair) published and read with relaxed atomics, and the results stored in 16-byte vectors.
#include <gtest/gtest.h>

#include <string>

#include "algorithms/algorithm_test_support.h"
#include "filecheck_support.h"

using namespace cutlet;
namespace alg = cutlet::algorithms;

namespace {

template <bool Exclusive, class K, class T>
void check_scan_by_key_kernel() {
  SCOPED_TRACE(std::string(Exclusive ? "exclusive " : "inclusive ") + test::element_label<K>() + " keys, " +
               test::element_label<T>() + " values");
  auto compiled = alg::scan_by_key_kernel<Exclusive, K, T, alg::equal_to, alg::plus>().compile();
  EXPECT_FALSE(compiled->cubin.empty());
  EXPECT_EQ(compiled->resources.spill_store_bytes, 0) << compiled->link_log;
  const std::string key_vector = sizeof(K) == 4 ? "v4" : "v2";
  expect_filecheck(compiled->ptx, std::string("CHECK: .visible .entry cutlet_") +
                                      (Exclusive ? "exclusive" : "inclusive") + "_scan_by_key_" +
                                      test::element_label<K>() + "_" + test::element_label<T>() + R"((
CHECK-NOT: {{[[:space:]]call(\.uni)?[[:space:]]}}
CHECK: atom.global.add.u32
CHECK-DAG: ld.global.v4.{{[bfsu]}}32
CHECK-DAG: ld.global.)" + key_vector + "." + R"({{[bfsu]}}{{32|64}}
CHECK: shfl.sync.up
CHECK-NOT: {{[[:space:]]call(\.uni)?[[:space:]]}}
CHECK: atom.global.exch.b64
CHECK-NOT: {{[[:space:]]call(\.uni)?[[:space:]]}}
CHECK: ld.relaxed.gpu.global.b64
CHECK-NOT: {{[[:space:]]call(\.uni)?[[:space:]]}}
CHECK: st.global.v4.{{[bfsu]}}32
CHECK-NOT: {{[[:space:]]call(\.uni)?[[:space:]]}}
)");
}

TEST(AlgorithmsScanByKeyCodegen, KeyWidthsAndBothScans) {
  check_scan_by_key_kernel<false, std::int32_t, float>();
  check_scan_by_key_kernel<true, std::int32_t, float>();
  check_scan_by_key_kernel<false, std::uint64_t, std::uint32_t>();
  check_scan_by_key_kernel<true, double, std::int32_t>();
}

}  // namespace
