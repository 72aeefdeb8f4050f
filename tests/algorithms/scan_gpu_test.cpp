// inclusive_scan and exclusive_scan against sequential CPU scans: every element type, sizes
// around the tile boundaries and past several 32-tile look-back windows, non-commutative
// operators (packed 2x2 matrix products, affine maps, "last nonzero"), in place, and with a
// caller's workspace.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <tuple>
#include <limits>

#include "algorithms/algorithm_test_support.h"
#include "gpu_test_support.h"
#include "kernel_test_support.h"

using namespace cutlet;
using namespace cutlet::test;
namespace alg = cutlet::algorithms;

namespace {

/// Tiles of the largest size: several look-back windows of 32 tiles.
constexpr std::size_t kLargeTiles = 300;

/// The sequential scan of `h` (inclusive, or exclusive from `init`) with `host_op`.
template <class T, class HostOp>
std::vector<T> host_scan(const std::vector<T>& h, HostOp host_op, bool exclusive, T init) {
  std::vector<T> r(h.size());
  if (h.empty()) return r;
  if (exclusive) {
    T acc = init;
    for (std::size_t i = 0; i < h.size(); ++i) {
      r[i] = acc;
      acc = host_op(acc, h[i]);
    }
  } else {
    T acc = h[0];
    r[0] = acc;
    for (std::size_t i = 1; i < h.size(); ++i) r[i] = acc = host_op(acc, h[i]);
  }
  return r;
}

/// Runs one scan on `h` and compares every element with the CPU: exactly, or (float sums,
/// `tolerance` > 0) within tolerance of the prefix's sum of |x|.
template <class T, class Op, class HostOp>
void check_one(const Stream& st, const std::vector<T>& h, Op op, HostOp host_op, bool exclusive, T init,
               double tolerance) {
  Buffer<T> in(st, h);
  auto out = poisoned<T>(st, h.size());
  if (exclusive) alg::exclusive_scan(st, in, out, op, init);
  else alg::inclusive_scan(st, in, out, op);
  const std::vector<T> got = out.to_host(st);
  const std::vector<T> want = host_scan(h, host_op, exclusive, init);
  double magnitude = exclusive ? std::fabs(static_cast<double>(init)) : 0.0;
  for (std::size_t i = 0; i < h.size(); ++i) {
    if (!exclusive) magnitude += std::fabs(static_cast<double>(h[i]));
    if (tolerance == 0) ASSERT_EQ(got[i], want[i]) << "element " << i << " of " << h.size();
    else
      ASSERT_NEAR(static_cast<double>(got[i]), static_cast<double>(want[i]), tolerance * (magnitude + 1))
          << "element " << i << " of " << h.size();
    if (exclusive) magnitude += std::fabs(static_cast<double>(h[i]));
  }
}

/// Both scans of `make_input(n)` on every boundary size.
template <class T, class Op, class HostOp, class MakeInput>
void check_scans(Op op, HostOp host_op, T init, double tolerance, MakeInput make_input) {
  Stream st;
  SCOPED_TRACE(element_label<T>());
  for (std::size_t n : boundary_sizes(alg::kScanTile<T>, kLargeTiles)) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const std::vector<T> h = make_input(n);
    check_one<T>(st, h, op, host_op, false, init, tolerance);
    check_one<T>(st, h, op, host_op, true, init, tolerance);
  }
}

template <class T>
void check_type() {
  const double tolerance = std::is_same_v<T, float> ? 1e-5 : std::is_same_v<T, double> ? 1e-13 : 0.0;
  auto random = [](std::size_t n) { return algorithm_input<T>(n, 77 + n); };
  check_scans<T>(alg::plus{}, [](T a, T b) { return T(a + b); }, T(3), tolerance, random);
  check_scans<T>(alg::maximum{}, [](T a, T b) { return std::max(a, b); }, std::numeric_limits<T>::lowest(), 0.0, random);
  // "The last nonzero element so far": associative, not commutative; mostly zeros.
  auto sparse = [](std::size_t n) {
    auto v = algorithm_input<T>(n, 91 + n);
    for (std::size_t i = 0; i < n; ++i)
      if (i % 4 != 0 || i % 7 == 0) v[i] = T(0);
    return v;
  };
  check_scans<T>([](Value<T> a, Value<T> b) { return select(b != T(0), b, a); },
                 [](T a, T b) { return b != T(0) ? b : a; }, T(5), 0.0, sparse);
}

TEST(AlgorithmsScanGpu, Float) {
  CUTLET_REQUIRE_GPU();
  check_type<float>();
}
TEST(AlgorithmsScanGpu, Double) {
  CUTLET_REQUIRE_GPU();
  check_type<double>();
}
TEST(AlgorithmsScanGpu, Int32) {
  CUTLET_REQUIRE_GPU();
  check_type<std::int32_t>();
}
TEST(AlgorithmsScanGpu, UInt32) {
  CUTLET_REQUIRE_GPU();
  check_type<std::uint32_t>();
}
TEST(AlgorithmsScanGpu, Int64) {
  CUTLET_REQUIRE_GPU();
  check_type<std::int64_t>();
}
TEST(AlgorithmsScanGpu, UInt64) {
  CUTLET_REQUIRE_GPU();
  check_type<std::uint64_t>();
}

TEST(AlgorithmsScanGpu, MatrixProductsInOrder) {
  CUTLET_REQUIRE_GPU();
  // Identity-free, non-commutative: any reordering or regrouping of a product shows.
  check_scans<std::uint64_t>(mat2x2_product{}, mat2x2_product_host, std::uint64_t{0x0001000200030004ull}, 0.0,
                             [](std::size_t n) { return random_words(n, 13 + n); });
}

TEST(AlgorithmsScanGpu, AffineMapsInOrder) {
  CUTLET_REQUIRE_GPU();
  check_scans<std::uint32_t>(affine_then{}, affine_then_host, std::uint32_t{0x00030005u}, 0.0, [](std::size_t n) {
    auto w = random_words(n, 17 + n);
    return std::vector<std::uint32_t>(w.begin(), w.end());
  });
}

/// Both scans of the first n elements of iterator `it` (whose CPU twin is `host`) on every
/// boundary size, against the CPU's scans of host's elements.
template <class T, class MakeIt, class Op, class HostOp>
void check_iterator_scans(MakeIt make_it, const std::function<std::vector<T>(std::size_t)>& host, Op op,
                          HostOp host_op, T init, double tolerance) {
  Stream st;
  SCOPED_TRACE(element_label<T>());
  for (std::size_t n : boundary_sizes(alg::kScanTile<T>, 40)) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const std::vector<T> h = host(n);
    auto holder = make_it(st, n);
    for (bool exclusive : {false, true}) {
      auto out = poisoned<T>(st, n);
      if (exclusive) alg::exclusive_scan(st, holder.it, n, out, op, init);
      else alg::inclusive_scan(st, holder.it, n, out, op);
      const std::vector<T> got = out.to_host(st);
      const std::vector<T> want = host_scan(h, host_op, exclusive, init);
      double magnitude = std::fabs(static_cast<double>(init));
      for (std::size_t i = 0; i < n; ++i) {
        magnitude += std::fabs(static_cast<double>(h[i]));
        if (tolerance == 0) ASSERT_EQ(got[i], want[i]) << (exclusive ? "exclusive" : "inclusive") << ", element " << i;
        else
          ASSERT_NEAR(static_cast<double>(got[i]), static_cast<double>(want[i]), tolerance * (magnitude + 1))
              << (exclusive ? "exclusive" : "inclusive") << ", element " << i;
      }
    }
  }
}

/// An iterator with the buffers it reads, kept alive while it is used.
template <class It, class... Buffers>
struct Held {
  It it;
  std::tuple<Buffers...> buffers;
};

TEST(AlgorithmsScanGpu, OverIterators) {
  CUTLET_REQUIRE_GPU();
  // A counter: no memory read at all.
  check_iterator_scans<std::int64_t>(
      [](const Stream&, std::size_t) {
        auto it = alg::counting_iterator<std::int64_t>(-7);
        return Held<decltype(it)>{it, {}};
      },
      [](std::size_t n) {
        std::vector<std::int64_t> v(n);
        for (std::size_t i = 0; i < n; ++i) v[i] = -7 + static_cast<std::int64_t>(i);
        return v;
      },
      alg::plus{}, [](std::int64_t a, std::int64_t b) { return a + b; }, std::int64_t{3}, 0.0);
  // Signed squares of a buffer's floats, computed where they are read.
  auto square = [](f32 v) { return v * abs(v); };
  check_iterator_scans<float>(
      [&](const Stream& st, std::size_t n) {
        Buffer<float> x(st, algorithm_input<float>(n, 31 + n));
        auto it = alg::transform_iterator(x, square);
        return Held<decltype(it), Buffer<float>>{it, {std::move(x)}};
      },
      [](std::size_t n) {
        auto v = algorithm_input<float>(n, 31 + n);
        for (auto& x : v) x = x * std::fabs(x);
        return v;
      },
      alg::plus{}, [](float a, float b) { return a + b; }, 0.5f, 1e-5);
  // A buffer read backwards, with a non-commutative operator on u32 (affine maps in order).
  check_iterator_scans<std::uint32_t>(
      [](const Stream& st, std::size_t n) {
        auto w = random_words(n, 41 + n);
        Buffer<std::uint32_t> x(st, std::vector<std::uint32_t>(w.begin(), w.end()));
        auto it = alg::reverse_iterator(x, n);
        return Held<decltype(it), Buffer<std::uint32_t>>{it, {std::move(x)}};
      },
      [](std::size_t n) {
        auto w = random_words(n, 41 + n);
        return std::vector<std::uint32_t>(w.rbegin(), w.rend());
      },
      affine_then{}, affine_then_host, std::uint32_t{0x00030005u}, 0.0);
  // Streaming loads of 8-byte words, multiplied as 2x2 matrices in order.
  check_iterator_scans<std::uint64_t>(
      [](const Stream& st, std::size_t n) {
        Buffer<std::uint64_t> x(st, random_words(n, 43 + n));
        auto it = alg::cache_modified_iterator<CacheHint::Streaming>(x);
        return Held<decltype(it), Buffer<std::uint64_t>>{it, {std::move(x)}};
      },
      [](std::size_t n) { return random_words(n, 43 + n); }, mat2x2_product{}, mat2x2_product_host,
      std::uint64_t{0x0001000200030004ull}, 0.0);
}

TEST(AlgorithmsScanGpu, InPlaceAndBorrowedWorkspace) {
  CUTLET_REQUIRE_GPU();
  Stream st;
  const std::size_t n = 50 * alg::kScanTile<std::int32_t> + 77;
  auto h = algorithm_input<std::int32_t>(n, 3);
  const auto want = host_scan(h, [](std::int32_t a, std::int32_t b) { return a + b; }, true, std::int32_t{-9});
  Buffer<std::int32_t> data(st, h);
  DeviceMemory scratch(alg::scan_workspace_bytes<std::int32_t>(n), st.device());
  scratch.fill_bytes(st, 0xAB);  // the scan clears what it needs itself
  alg::exclusive_scan(st, data, data, alg::plus{}, std::int32_t{-9}, alg::Workspace::borrow(scratch));
  EXPECT_EQ(data.to_host(st), want);
  // The same workspace again: the tile status is reset for each scan.
  Buffer<std::int32_t> again(st, h);
  alg::exclusive_scan(st, again, again, alg::plus{}, std::int32_t{-9}, alg::Workspace::borrow(scratch));
  EXPECT_EQ(again.to_host(st), want);
}

TEST(AlgorithmsScanGpu, MoreThanTwoToThe31ElementsInChunks) {
  CUTLET_REQUIRE_GPU();
  Stream st;
  if (st.device().is_cpu()) GTEST_SKIP() << "2^31 elements on the CPU device take too long for a test";
  const std::size_t n = (std::size_t{1} << 31) + 4099;  // three chunks, the last partial
  if (st.device().total_memory() < (std::size_t{16} << 30))
    GTEST_SKIP() << "needs 16 GiB of device memory for 2^31 + 4099 u32 elements (" << st.device().name() << " has "
                 << (st.device().total_memory() >> 30) << " GiB)";
  // x[i] = a hash of i in [0, 8), made on the device; sums wrap modulo 2^32.
  auto x = [](std::uint64_t i) { return static_cast<std::uint32_t>((i * 2654435761u) >> 29) & 7u; };
  Buffer<std::uint32_t> data(n, st);
  for (bool exclusive : {false, true}) {
    SCOPED_TRACE(exclusive ? "exclusive, init 11" : "inclusive");
    alg::transform(st, alg::counting_iterator<std::uint64_t>(0), n, data,
                   [](u64 i) { return cast<std::uint32_t>((i * 2654435761u) >> 29u) & 7u; });
    if (exclusive) alg::exclusive_scan(st, data, data, alg::plus{}, 11u);
    else alg::inclusive_scan(st, data, data, alg::plus{});
    const std::vector<std::uint32_t> got = data.to_host(st);
    std::uint32_t sum = exclusive ? 11u : 0u;
    for (std::size_t i = 0; i < n; ++i) {
      if (!exclusive) sum += x(i);
      ASSERT_EQ(got[i], sum) << "element " << i;
      if (exclusive) sum += x(i);
    }
  }
}

TEST(AlgorithmsScanGpu, ArgumentChecks) {
  CUTLET_REQUIRE_GPU();
  Stream st;
  Buffer<float> in(st, algorithm_input<float>(100, 1));
  auto short_out = poisoned<float>(st, 99);
  EXPECT_NE(message_of([&] { alg::inclusive_scan(st, in, short_out, alg::plus{}); }).find("holds 99 elements but 100"),
            std::string::npos);
  DeviceMemory small(16, st.device());
  auto out = poisoned<float>(st, 100);
  EXPECT_NE(message_of([&] { alg::inclusive_scan(st, in, out, alg::plus{}, alg::Workspace::borrow(small)); })
                .find("workspace holds 16 bytes"),
            std::string::npos);
}

}  // namespace
