// Shared memory (static and dynamic), local arrays, barrier reductions, fences and cache
// hints, on the GPU against CPU references.
#include "gpu_test_support.h"
#include "kernel_test_support.h"

using namespace cutlet;
using namespace cutlet::test;

namespace {

TEST(MemoryGpu, BlockSumThroughSharedMemoryTree) {
  CUTLET_REQUIRE_GPU();
  constexpr int block = 256;
  auto k = kernel([=](Ptr<float> partial, Ptr<float> in, i32 n) {
    auto s = shared_array<float>(block);
    i32 t = thread_idx().x;
    i32 i = block_idx().x * block + t;
    Var<float> v = 0.0f;  // not select(i < n, in[i], 0.0f): select evaluates both sides
    if_(i < n, [&] { v = in[i]; });
    s[t] = v;
    syncthreads();
    for (int stride = block / 2; stride > 0; stride /= 2) {  // unrolled at trace time
      if_(t < stride, [&] { s[t] = s[t] + s[t + stride]; });
      syncthreads();
    }
    if_(t == 0, [&] { partial[block_idx().x] = s[0]; });
  }, {.name = "tree_sum"});
  Stream st;
  const int n = 1000001;
  auto h = random_vector<float>(n, 1, -1.0f, 1.0f);
  Buffer<float> in(st, h);
  int blocks = static_cast<int>(ceil_div(n, block));
  auto partial = poisoned<float>(st, blocks);
  k.launch(st, {.grid = blocks, .block = block}, partial, in, n);
  auto r = partial.to_host(st);
  for (int b = 0; b < blocks; ++b) {
    double want = 0;
    for (int j = b * block; j < std::min(n, (b + 1) * block); ++j) want += h[j];
    ASSERT_NEAR(r[b], want, 1e-4) << b;
  }
}

TEST(MemoryGpu, DynamicSharedReversesEachBlock) {
  CUTLET_REQUIRE_GPU();
  auto k = kernel([](Ptr<int> y) {
    auto s = dynamic_shared<int>();
    i32 t = thread_idx().x;
    i32 base = block_idx().x * block_dim().x;
    s[t] = y[base + t];
    syncthreads();
    y[base + t] = s[block_dim().x - 1 - t];
  }, {.name = "reverse_blocks"});
  Stream st;
  const int block = 96, blocks = 37;
  auto h = random_vector<int>(block * blocks, 2, -1000, 1000);
  Buffer<int> y(st, h);
  k.launch(st, {.grid = blocks, .block = block, .shared_bytes = block * sizeof(int)}, y);
  auto r = y.to_host(st);
  for (int b = 0; b < blocks; ++b)
    for (int t = 0; t < block; ++t) ASSERT_EQ(r[b * block + t], h[b * block + block - 1 - t]);
}

TEST(MemoryGpu, LocalArrayWithDataDependentIndexing) {
  CUTLET_REQUIRE_GPU();
  auto k = kernel([](Ptr<int> out, Ptr<int> idx, i32 n) {
    i32 i = block_idx().x * block_dim().x + thread_idx().x;
    if_(i < n, [&] {
      auto a = local_array<int>(16);
      for_range(16, [&](i32 j) { a[j] = j * j + i; });
      out[i] = a[idx[i] & 15] + a[(idx[i] >> 4) & 15];
    });
  }, {.name = "local_array"});
  Stream st;
  const int n = 4097;
  auto h = random_vector<int>(n, 3, 0, 1 << 20);
  Buffer<int> idx(st, h);
  auto out = poisoned<int>(st, n);
  k.launch(st, {.grid = ceil_div(n, 128), .block = 128}, out, idx, n);
  auto r = out.to_host(st);
  for (int i = 0; i < n; ++i) {
    int a = h[i] & 15, b = (h[i] >> 4) & 15;
    ASSERT_EQ(r[i], a * a + i + b * b + i) << i;
  }
}

TEST(MemoryGpu, BarrierReductionsCountAndAgree) {
  CUTLET_REQUIRE_GPU();
  auto k = kernel([](Ptr<int> out, Ptr<int> x) {
    i32 t = thread_idx().x;
    i32 b = block_idx().x;
    Value<bool> positive = x[b * block_dim().x + t] > 0;
    i32 count = syncthreads_count(positive);
    Value<bool> all = syncthreads_and(positive);
    Value<bool> any = syncthreads_or(positive);
    if_(t == 0, [&] {
      out[3 * b] = count;
      out[3 * b + 1] = cast<int>(all);
      out[3 * b + 2] = cast<int>(any);
    });
  }, {.name = "barrier_reduce"});
  Stream st;
  const int block = 128, blocks = 5;
  auto h = random_vector<int>(block * blocks, 4, -5, 5);
  for (int t = 0; t < block; ++t) h[block + t] = 1 + t;    // block 1: all positive
  for (int t = 0; t < block; ++t) h[2 * block + t] = -t;   // block 2: none positive
  Buffer<int> x(st, h);
  auto out = poisoned<int>(st, 3 * blocks);
  k.launch(st, {.grid = blocks, .block = block}, out, x);
  auto r = out.to_host(st);
  for (int b = 0; b < blocks; ++b) {
    int c = 0;
    for (int t = 0; t < block; ++t) c += h[b * block + t] > 0;
    EXPECT_EQ(r[3 * b], c) << b;
    EXPECT_EQ(r[3 * b + 1], c == block ? 1 : 0) << b;
    EXPECT_EQ(r[3 * b + 2], c > 0 ? 1 : 0) << b;
  }
}

TEST(MemoryGpu, LastBlockSumsPartialsAfterFence) {
  // The threadfence reduction pattern: every block publishes a partial sum, fences, and
  // counts itself done; the last block to arrive adds up all partials.
  CUTLET_REQUIRE_GPU();
  auto k = kernel([](Ptr<float> result, Ptr<float> partials, Ptr<std::uint32_t> done, Ptr<float> in, i32 n) {
    auto s = shared_array<float>(128);
    auto is_last = shared_array<int>(1);
    i32 t = thread_idx().x;
    i32 i = block_idx().x * 128 + t;
    Var<float> v = 0.0f;  // not select(i < n, in[i], 0.0f): select evaluates both sides
    if_(i < n, [&] { v = in[i]; });
    s[t] = v;
    syncthreads();
    for (int stride = 64; stride > 0; stride /= 2) {
      if_(t < stride, [&] { s[t] = s[t] + s[t + stride]; });
      syncthreads();
    }
    if_(t == 0, [&] {
      partials[block_idx().x] = s[0];
      threadfence();
      u32 ticket = atomic_add(done[0], 1u);
      is_last[0] = cast<int>(ticket == cast<std::uint32_t>(grid_dim().x - 1));
    });
    syncthreads();
    if_((is_last[0] == 1) & (t == 0), [&] {
      Var<float> sum = 0.0f;
      for_range(grid_dim().x, [&](i32 b) { sum += partials.load(b, CacheHint::CacheGlobal); });
      result[0] = sum;
    });
  }, {.name = "fence_reduce"});
  Stream st;
  const int n = 100000;
  auto h = random_vector<float>(n, 5, 0.0f, 1.0f);
  Buffer<float> in(st, h);
  int blocks = static_cast<int>(ceil_div(n, 128));
  Buffer<float> partials(blocks, st.device());
  Buffer<std::uint32_t> done(st, std::vector<std::uint32_t>{0});
  auto result = poisoned<float>(st, 1);
  k.launch(st, {.grid = blocks, .block = 128}, result, partials, done, in, n);
  double want = 0;
  for (float v : h) want += v;
  EXPECT_NEAR(result.to_host(st)[0], want, 1e-3 * want);
}

TEST(MemoryGpu, CacheHintsReadTheSameData) {
  CUTLET_REQUIRE_GPU();
  auto k = kernel([](Ptr<float> out, Ptr<float> x, i32 n) {
    i32 i = block_idx().x * block_dim().x + thread_idx().x;
    if_(i < n, [&] {
      out[4 * i] = x.load(i, CacheHint::ReadOnly);
      out[4 * i + 1] = x.load(i, CacheHint::Streaming);
      out[4 * i + 2] = x.load(i, CacheHint::LastUse);
      out[4 * i + 3] = x.load(i, CacheHint::CacheGlobal);
    });
  }, {.name = "cache_hints"});
  Stream st;
  const int n = 3001;
  auto h = random_vector<float>(n, 6, -3.0f, 3.0f);
  Buffer<float> x(st, h);
  auto out = poisoned<float>(st, 4 * n);
  k.launch(st, {.grid = ceil_div(n, 64), .block = 64}, out, x, n);
  auto r = out.to_host(st);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < 4; ++j) ASSERT_EQ(r[4 * i + j], h[i]) << i << " hint " << j;
}

// Rounds of a stencil over the whole array, each reading what other blocks wrote in the
// round before: correct only if grid_sync() orders every block's writes.
TEST(MemoryGpu, GridSyncOrdersRoundsAcrossTheWholeGrid) {
  CUTLET_REQUIRE_GPU();
  constexpr int rounds = 6;
  auto k = kernel([](Ptr<float> a, Ptr<float> b, i32 n) {
    i32 first = block_idx().x * block_dim().x + thread_idx().x;
    i32 stride = grid_dim().x * block_dim().x;
    for (int r = 0; r < rounds; ++r) {  // unrolled at trace time: a -> b, b -> a, ...
      Ptr<float> src = r % 2 == 0 ? a : b;
      Ptr<float> dst = r % 2 == 0 ? b : a;
      const int shift = 1 + 977 * r;
      for_range(first, n, stride, [&](i32 i) { dst[i] = src[i] * 0.5f + src[(i + shift) % n]; });
      grid_sync();
    }
  }, {.name = "grid_rounds"});
  Stream st;
  const Device dev = st.device();
  const int n = 3000017;  // far more elements than threads: each thread owns many
  auto h = random_vector<float>(n, 7, -1.0f, 1.0f);
  Buffer<float> a(st, h);
  auto b = poisoned<float>(st, n);
  // Two blocks per SM always fit; then the largest grid the occupancy query allows.
  k.launch(st, {.grid = 2 * dev.sm_count(), .block = 256, .cooperative = true}, a, b, n);
  std::vector<float> ref = h, tmp(n);
  for (int r = 0; r < rounds; ++r) {
    const int shift = 1 + 977 * r;
    for (int i = 0; i < n; ++i) tmp[i] = ref[i] * 0.5f + ref[(i + shift) % n];
    ref.swap(tmp);
  }
  auto got = a.to_host(st);
  for (int i = 0; i < n; ++i) ASSERT_NEAR(got[i], ref[i], 1e-4f * (1 + std::abs(ref[i]))) << i;

  const long long most = max_cooperative_blocks(k.last_specialization()->function, 256);
  ASSERT_GE(most, dev.sm_count());
  a.copy_from_host(st, std::span<const float>(h));
  k.launch(st, {.grid = static_cast<int>(most), .block = 256, .cooperative = true}, a, b, n);
  got = a.to_host(st);
  for (int i = 0; i < n; ++i) ASSERT_NEAR(got[i], ref[i], 1e-4f * (1 + std::abs(ref[i]))) << i;

  // A grid that cannot be resident at once is refused before it can deadlock.
  EXPECT_THROW(k.launch(st, {.grid = static_cast<int>(most) + 1, .block = 256, .cooperative = true}, a, b, n), Error);
  // Without the cooperative flag the launch is refused, naming the grid_sync() line.
  auto msg = message_of([&] { k.launch(st, {.grid = 4, .block = 256}, a, b, n); });
  EXPECT_NE(msg.find("grid_sync()"), std::string::npos) << msg;
  EXPECT_NE(msg.find("memory_gpu_test.cpp:"), std::string::npos) << msg;
  EXPECT_NE(msg.find("cooperative = true"), std::string::npos) << msg;
}

}  // namespace
