// Warp primitives against CPU simulations of one warp: lane ids, shuffles of every width (8-
// to 64-bit numbers, half and bfloat16), votes, match and redux.
#include <cstring>
#include <random>
#include <vector>

#include "gpu_test_support.h"
#include "kernel_test_support.h"

using namespace cutlet;
using namespace cutlet::test;

namespace {

template <class T>
void check_shuffles(std::vector<T> h) {
  auto k = kernel([](Ptr<T> out, Ptr<T> x) {
    i32 t = thread_idx().x;
    i32 lane = lane_id();
    Value<T> v = x[t];
    out[4 * t] = shfl_sync(full_mask, v, (lane * 7) & 31);
    out[4 * t + 1] = shfl_up_sync(full_mask, v, 3);
    out[4 * t + 2] = shfl_down_sync(full_mask, v, 5);
    out[4 * t + 3] = shfl_xor_sync(full_mask, v, 9);
  }, {.name = "shuffles"});
  Stream st;
  const int threads = 96;  // three warps
  Buffer<T> x(st, h);
  auto out = poisoned<T>(st, 4 * threads);
  k.launch(st, {.grid = 1, .block = threads}, out, x);
  auto r = out.to_host(st);
  auto same = [](const T& a, const T& b) { return std::memcmp(&a, &b, sizeof(T)) == 0; };
  for (int t = 0; t < threads; ++t) {
    int w = t / 32 * 32, lane = t % 32;
    ASSERT_TRUE(same(r[4 * t], h[w + ((lane * 7) & 31)])) << t;
    ASSERT_TRUE(same(r[4 * t + 1], h[lane >= 3 ? t - 3 : t])) << t;
    ASSERT_TRUE(same(r[4 * t + 2], h[lane + 5 < 32 ? t + 5 : t])) << t;
    ASSERT_TRUE(same(r[4 * t + 3], h[w + (lane ^ 9)])) << t;
  }
}

template <class T>
void check_shuffles(T lo, T hi) {
  check_shuffles<T>(random_vector<T>(96, 21, lo, hi));
}

/// 96 values of T from random bits (negative ones and, for half and bfloat16, NaNs too).
template <class T>
std::vector<T> random_bits(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<T> v(96);
  for (auto& x : v) {
    const std::uint64_t r = rng();
    std::memcpy(static_cast<void*>(&x), &r, sizeof(T));
  }
  return v;
}

TEST(WarpGpu, ShufflesOfEveryWidth) {
  CUTLET_REQUIRE_GPU();
  check_shuffles<std::int32_t>(-1000000, 1000000);
  check_shuffles<std::uint32_t>(0, 0xffffffffu);
  check_shuffles<float>(-1.0f, 1.0f);
  check_shuffles<std::int64_t>(-(1ll << 60), 1ll << 60);
  check_shuffles<std::uint64_t>(0, ~0ull);
  check_shuffles<double>(-1e300, 1e300);
  check_shuffles<std::int8_t>(random_bits<std::int8_t>(1));
  check_shuffles<std::uint8_t>(random_bits<std::uint8_t>(2));
  check_shuffles<std::int16_t>(random_bits<std::int16_t>(3));
  check_shuffles<std::uint16_t>(random_bits<std::uint16_t>(4));
  check_shuffles<half>(random_bits<half>(5));
  check_shuffles<bfloat16>(random_bits<bfloat16>(6));
}

TEST(WarpGpu, LaneAndWarpIdsInTwoDimensionalBlocks) {
  CUTLET_REQUIRE_GPU();
  auto k = kernel([](Ptr<int> out) {
    i32 linear = thread_idx().x + block_dim().x * thread_idx().y;
    out[2 * linear] = lane_id();
    out[2 * linear + 1] = warp_id();
  }, {.name = "ids"});
  Stream st;
  auto out = poisoned<int>(st, 2 * 16 * 12);
  k.launch(st, {.grid = 1, .block = {16, 12}}, out);
  auto r = out.to_host(st);
  for (int l = 0; l < 16 * 12; ++l) {
    EXPECT_EQ(r[2 * l], l % 32);
    EXPECT_EQ(r[2 * l + 1], l / 32);
  }
}

TEST(WarpGpu, VotesMatchAndRedux) {
  CUTLET_REQUIRE_GPU();
  auto k = kernel([](Ptr<std::uint32_t> out, Ptr<int> x) {
    i32 t = thread_idx().x;
    Value<bool> p = x[t] > 0;
    i32 w = t >> 5;
    if_(lane_id() == 0, [&] {});  // divergence before the collectives must not matter
    u32 ballot = ballot_sync(full_mask, p);
    Value<bool> all = all_sync(full_mask, p);
    Value<bool> any = any_sync(full_mask, p);
    u32 same = match_any_sync(full_mask, x[t] & 3);
    u32 all_same = match_all_sync(full_mask, x[t] & 3);
    i32 sum = reduce_add_sync(full_mask, x[t]);
    i32 mx = reduce_max_sync(full_mask, x[t]);
    u32 ored = reduce_or_sync(full_mask, cast<std::uint32_t>(x[t]));
    out[8 * t] = ballot;
    out[8 * t + 1] = cast<std::uint32_t>(all);
    out[8 * t + 2] = cast<std::uint32_t>(any);
    out[8 * t + 3] = same;
    out[8 * t + 4] = all_same;
    out[8 * t + 5] = cast<std::uint32_t>(sum);
    out[8 * t + 6] = cast<std::uint32_t>(mx);
    out[8 * t + 7] = ored + cast<std::uint32_t>(w) * 0u;
  }, {.name = "votes"});
  Stream st;
  const int threads = 128;
  auto h = random_vector<int>(threads, 22, -50, 50);
  for (int t = 32; t < 64; ++t) h[t] = 4 + 4 * t;   // warp 1: all positive, all (x & 3) == 0
  for (int t = 64; t < 96; ++t) h[t] = -t;          // warp 2: none positive
  Buffer<int> x(st, h);
  auto out = poisoned<std::uint32_t>(st, 8 * threads);
  k.launch(st, {.grid = 1, .block = threads}, out, x);
  auto r = out.to_host(st);
  for (int w = 0; w < threads / 32; ++w) {
    std::uint32_t ballot = 0, ored = 0;
    int sum = 0, mx = std::numeric_limits<int>::min();
    for (int l = 0; l < 32; ++l) {
      int v = h[32 * w + l];
      ballot |= (v > 0 ? 1u : 0u) << l;
      sum += v;
      mx = std::max(mx, v);
      ored |= static_cast<std::uint32_t>(v);
    }
    for (int l = 0; l < 32; ++l) {
      int t = 32 * w + l;
      std::uint32_t same = 0;
      for (int m = 0; m < 32; ++m) same |= ((h[32 * w + m] & 3) == (h[t] & 3) ? 1u : 0u) << m;
      ASSERT_EQ(r[8 * t], ballot) << t;
      ASSERT_EQ(r[8 * t + 1], ballot == 0xffffffffu ? 1u : 0u) << t;
      ASSERT_EQ(r[8 * t + 2], ballot != 0 ? 1u : 0u) << t;
      ASSERT_EQ(r[8 * t + 3], same) << t;
      ASSERT_EQ(r[8 * t + 4], same == 0xffffffffu ? 0xffffffffu : 0u) << t;
      ASSERT_EQ(static_cast<int>(r[8 * t + 5]), sum) << t;
      ASSERT_EQ(static_cast<int>(r[8 * t + 6]), mx) << t;
      ASSERT_EQ(r[8 * t + 7], ored) << t;
    }
  }
}

TEST(WarpGpu, ActiveMaskInsideABranch) {
  CUTLET_REQUIRE_GPU();
  auto k = kernel([](Ptr<std::uint32_t> out) {
    i32 t = thread_idx().x;
    if_((t & 1) == 0, [&] { out[t] = active_mask(); }, [&] { out[t] = 7u; });
  }, {.name = "active"});
  Stream st;
  auto out = poisoned<std::uint32_t>(st, 32);
  k.launch(st, {.grid = 1, .block = 32}, out);
  auto r = out.to_host(st);
  for (int t = 0; t < 32; ++t) EXPECT_EQ(r[t], t % 2 == 0 ? 0x55555555u : 7u) << t;
}

}  // namespace
