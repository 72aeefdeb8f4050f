// transform (unary and binary) against the CPU: every element type, conversions between
// types, sizes around the vector and grid boundaries, outputs poisoned first, and in place.
#include <gtest/gtest.h>

#include <cstring>

#include "algorithms/algorithm_test_support.h"
#include "gpu_test_support.h"
#include "kernel_test_support.h"

using namespace cutlet;
using namespace cutlet::test;
namespace alg = cutlet::algorithms;

namespace {

/// Sizes around the vector tail and one and several full grid-stride passes of `device`.
std::vector<std::size_t> transform_sizes(const Device& device) {
  const std::size_t pass = static_cast<std::size_t>(device.sm_count()) * alg::kTransformBlocksPerSm *
                           alg::kTransformBlock * 4;
  return boundary_sizes(pass, 3);
}

template <class In, class Out, class Op, class HostOp>
void check_unary(Op op, HostOp host_op) {
  Stream st;
  SCOPED_TRACE(element_label<In>() + " -> " + element_label<Out>());
  for (std::size_t n : transform_sizes(st.device())) {
    SCOPED_TRACE("n = " + std::to_string(n));
    auto h = algorithm_input<In>(n, 400 + n);
    Buffer<In> in(st, h);
    auto out = poisoned<Out>(st, n + 3);  // the elements past n stay poisoned
    alg::transform(st, in, out, op);
    auto got = out.to_host(st);
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(got[i], host_op(h[i])) << "element " << i;
    auto poison = poisoned<Out>(st, 1).to_host(st)[0];
    for (std::size_t i = n; i < n + 3; ++i) ASSERT_EQ(std::memcmp(&got[i], &poison, sizeof(Out)), 0);
  }
}

template <class A, class B, class Out, class Op, class HostOp>
void check_binary(Op op, HostOp host_op) {
  Stream st;
  SCOPED_TRACE(element_label<A>() + ", " + element_label<B>() + " -> " + element_label<Out>());
  for (std::size_t n : transform_sizes(st.device())) {
    SCOPED_TRACE("n = " + std::to_string(n));
    auto ha = algorithm_input<A>(n, 500 + n);
    auto hb = algorithm_input<B>(n, 600 + n);
    Buffer<A> a(st, ha);
    Buffer<B> b(st, hb);
    auto out = poisoned<Out>(st, n);
    alg::transform(st, a, b, out, op);
    auto got = out.to_host(st);
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(got[i], host_op(ha[i], hb[i])) << "element " << i;
  }
}

TEST(AlgorithmsTransformGpu, UnaryEveryType) {
  CUTLET_REQUIRE_GPU();
  // x * 2 + 1 is exact with or without a fused multiply-add (x * 2 is).
  check_unary<float, float>([](f32 x) { return x * 2.0f + 1.0f; }, [](float x) { return x * 2.0f + 1.0f; });
  check_unary<double, double>([](f64 x) { return x * 2.0 + 1.0; }, [](double x) { return x * 2.0 + 1.0; });
  check_unary<std::int32_t, std::int32_t>([](i32 x) { return x * 3 - 7; }, [](std::int32_t x) { return x * 3 - 7; });
  check_unary<std::uint32_t, std::uint32_t>([](u32 x) { return (x << 3u) ^ 0x5au; },
                                            [](std::uint32_t x) { return (x << 3u) ^ 0x5au; });
  check_unary<std::int64_t, std::int64_t>([](i64 x) { return x * x; }, [](std::int64_t x) { return x * x; });
  check_unary<std::uint64_t, std::uint64_t>([](u64 x) { return x + 1u; }, [](std::uint64_t x) { return x + 1u; });
}

TEST(AlgorithmsTransformGpu, UnaryConversions) {
  CUTLET_REQUIRE_GPU();
  check_unary<float, double>([](f32 x) { return cast<double>(x); }, [](float x) { return static_cast<double>(x); });
  check_unary<std::int32_t, std::int64_t>([](i32 x) { return cast<std::int64_t>(x) << 33; },
                                          [](std::int32_t x) { return static_cast<std::int64_t>(x) * (1ll << 33); });
  check_unary<double, std::int32_t>([](f64 x) { return cast<std::int32_t>(x * 1000.0); },
                                    [](double x) { return static_cast<std::int32_t>(x * 1000.0); });
}

TEST(AlgorithmsTransformGpu, Binary) {
  CUTLET_REQUIRE_GPU();
  check_binary<float, float, float>([](f32 a, f32 b) { return a * b; }, [](float a, float b) { return a * b; });
  check_binary<std::int32_t, std::int64_t, std::int64_t>([](i32 a, i64 b) { return b - a; },
                                                         [](std::int32_t a, std::int64_t b) { return b - a; });
  check_binary<double, float, double>([](f64 a, f32 b) { return a - b; }, [](double a, float b) { return a - b; });
  check_binary<std::uint32_t, std::uint32_t, std::uint64_t>(
      [](u32 a, u32 b) { return cast<std::uint64_t>(a) * b; },
      [](std::uint32_t a, std::uint32_t b) { return static_cast<std::uint64_t>(a) * b; });
}

TEST(AlgorithmsTransformGpu, InPlace) {
  CUTLET_REQUIRE_GPU();
  Stream st;
  const std::size_t n = 100003;
  auto h = algorithm_input<std::int32_t>(n, 8);
  Buffer<std::int32_t> x(st, h);
  alg::transform(st, x, x, [](i32 v) { return -v; });
  auto got = x.to_host(st);
  for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(got[i], -h[i]);
}

}  // namespace
