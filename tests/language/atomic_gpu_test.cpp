// Atomics on global and shared memory for every supported type, with scopes and orders,
// against CPU references.
#include <cstring>

#include "gpu_test_support.h"
#include "kernel_test_support.h"

using namespace cutlet;
using namespace cutlet::test;

namespace {

template <class T>
void check_global_add(T lo, T hi, double tolerance) {
  auto k = kernel([](Ptr<T> sums, Ptr<T> x, i32 n) {
    i32 i = block_idx().x * block_dim().x + thread_idx().x;
    if_(i < n, [&] { atomic_add(sums[i & 7], x[i]); });
  }, {.name = "atomic_add_global"});
  Stream st;
  const int n = 20011;
  auto h = random_vector<T>(n, 11, lo, hi);
  Buffer<T> x(st, h);
  Buffer<T> sums(st, std::vector<T>(8, T{}));
  k.launch(st, {.grid = ceil_div(n, 256), .block = 256}, sums, x, n);
  auto r = sums.to_host(st);
  for (int b = 0; b < 8; ++b) {
    T want{};
    for (int i = b; i < n; i += 8) want = static_cast<T>(want + h[i]);
    if constexpr (std::is_floating_point_v<T>) EXPECT_NEAR(r[b], want, tolerance * (1 + std::abs(want))) << b;
    else EXPECT_EQ(r[b], want) << b;
  }
}

TEST(AtomicGpu, GlobalAddEveryType) {
  CUTLET_REQUIRE_GPU();
  check_global_add<std::int32_t>(-1000, 1000, 0);
  check_global_add<std::uint32_t>(0, 4000000000u, 0);  // wraps, as on the CPU
  check_global_add<std::int64_t>(-(1ll << 40), 1ll << 40, 0);
  check_global_add<std::uint64_t>(0, 1ull << 60, 0);
  check_global_add<float>(-1.0f, 1.0f, 1e-4);
  check_global_add<double>(-1.0, 1.0, 1e-12);
}

TEST(AtomicGpu, SharedMemoryHistogram) {
  CUTLET_REQUIRE_GPU();
  auto k = kernel([](Ptr<std::uint32_t> hist, Ptr<std::uint32_t> data, i32 n) {
    auto local = shared_array<std::uint32_t>(256);
    i32 t = thread_idx().x;
    local[t] = 0u;
    syncthreads();
    for_range(block_idx().x * block_dim().x + t, n, grid_dim().x * block_dim().x,
              [&](i32 i) { atomic_add(local[data[i] & 255u], 1u, Scope::Block); });
    syncthreads();
    atomic_add(hist[t], local[t].load());
  }, {.name = "histogram_test"});
  Stream st;
  const int n = 1 << 20 | 13;
  auto h = random_vector<std::uint32_t>(n, 12, 0, 0xffffffffu);
  Buffer<std::uint32_t> data(st, h);
  Buffer<std::uint32_t> hist(st, std::vector<std::uint32_t>(256, 0));
  k.launch(st, {.grid = 64, .block = 256}, hist, data, n);
  std::vector<std::uint32_t> want(256, 0);
  for (auto v : h) ++want[v & 255];
  EXPECT_EQ(hist.to_host(st), want);
}

TEST(AtomicGpu, IntegerMinMaxBitwiseExchangeAndCas) {
  CUTLET_REQUIRE_GPU();
  auto k = kernel([](Ptr<std::int64_t> r64, Ptr<int> r, Ptr<int> x, i32 n) {
    i32 i = block_idx().x * block_dim().x + thread_idx().x;
    if_(i < n, [&] {
      atomic_min(r[0], x[i]);
      atomic_max(r[1], x[i]);
      atomic_and(r[2], x[i] | 0x0f0f0f0f);
      atomic_or(r[3], x[i] & 0x00ff0000);
      atomic_xor(r[4], x[i]);
      atomic_sub(r[5], 3, Scope::System, Order::AcqRel);
      atomic_exchange(r[6], 42, Scope::Device, Order::Release);
      // Exactly one thread wins the compare-and-swap from -1 to its index.
      i32 old = atomic_cas(r[7], -1, i, Scope::Device, Order::Acquire);
      if_(old == -1, [&] { atomic_add(r[8], 1); });
      atomic_max(r64[0], cast<std::int64_t>(x[i]) * 1000000000ll);
    });
  }, {.name = "int_atomics"});
  Stream st;
  const int n = 5003;
  auto h = random_vector<int>(n, 13, -1000000, 1000000);
  Buffer<int> x(st, h);
  std::vector<int> init{std::numeric_limits<int>::max(), std::numeric_limits<int>::min(), -1, 0, 0, 0, 0, -1, 0};
  Buffer<int> r(st, init);
  Buffer<std::int64_t> r64(st, std::vector<std::int64_t>{std::numeric_limits<std::int64_t>::min()});
  k.launch(st, {.grid = ceil_div(n, 128), .block = 128}, r64, r, x, n);
  auto got = r.to_host(st);
  int mn = init[0], mx = init[1], a = -1, o = 0, xr = 0;
  for (int v : h) mn = std::min(mn, v), mx = std::max(mx, v), a &= v | 0x0f0f0f0f, o |= v & 0x00ff0000, xr ^= v;
  EXPECT_EQ(got[0], mn);
  EXPECT_EQ(got[1], mx);
  EXPECT_EQ(got[2], a);
  EXPECT_EQ(got[3], o);
  EXPECT_EQ(got[4], xr);
  EXPECT_EQ(got[5], -3 * n);
  EXPECT_EQ(got[6], 42);
  EXPECT_GE(got[7], 0);
  EXPECT_LT(got[7], n);
  EXPECT_EQ(got[8], 1);
  EXPECT_EQ(r64.to_host(st)[0], static_cast<std::int64_t>(mx) * 1000000000ll);
}

TEST(AtomicGpu, HalfAndBfloat16Add) {
  CUTLET_REQUIRE_GPU();
  auto k = kernel([](Ptr<half> h, Ptr<bfloat16> b) {
    atomic_add(h[thread_idx().x & 3], cast<half>(0.25f));
    atomic_add(b[thread_idx().x & 3], cast<bfloat16>(0.5f));
  }, {.name = "half_atomics"});
  Stream st;
  Buffer<half> h(st, std::vector<half>(4, half(1.0f)));
  Buffer<bfloat16> b(st, std::vector<bfloat16>(4, bfloat16(2.0f)));
  k.launch(st, {.grid = 1, .block = 64}, h, b);  // 16 adds per element
  for (half v : h.to_host(st)) EXPECT_EQ(static_cast<float>(v), 5.0f);
  for (bfloat16 v : b.to_host(st)) EXPECT_EQ(static_cast<float>(v), 10.0f);
}

TEST(AtomicGpu, FloatCompareExchangeLoopImplementsMax) {
  // A CAS loop builds an operation the hardware lacks: float max.
  CUTLET_REQUIRE_GPU();
  auto k = kernel([](Ptr<float> m, Ptr<float> x, i32 n) {
    i32 i = block_idx().x * block_dim().x + thread_idx().x;
    if_(i < n, [&] {
      f32 v = x[i];
      Var<float> seen = m[0];
      while_([&] { return seen < v; }, [&] {
        f32 old = atomic_cas(m[0], seen.get(), v);
        seen = old;
      });
    });
  }, {.name = "cas_max"});
  Stream st;
  const int n = 7777;
  auto h = random_vector<float>(n, 14, -100.0f, 100.0f);
  Buffer<float> x(st, h);
  Buffer<float> m(st, std::vector<float>{-1e30f});
  k.launch(st, {.grid = ceil_div(n, 256), .block = 256}, m, x, n);
  EXPECT_EQ(m.to_host(st)[0], *std::max_element(h.begin(), h.end()));
}

TEST(AtomicGpu, UnsupportedAtomicsAreTraceErrors) {
  auto k = kernel([](Ptr<float> x) { atomic_and(x[0], 1.0f); });
  std::string msg = message_of([&] { k.trace_ir(); });
  EXPECT_NE(msg.find("not available for f32"), std::string::npos) << msg;
}

}  // namespace
