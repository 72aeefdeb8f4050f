// Per-thread kernels run on the host CPU in phases (loops over a block's threads split at
// barriers and warp operations): loops and ifs that hold barriers or shuffles, blocks with a
// partial last warp, local variables living across barriers, barrier reductions, grid-stride
// loops run in lock step, and the errors for threads that disagree where they must wait.
// Against C++ references on random data, outputs poisoned first.
#include <gtest/gtest.h>

#include <cutlet/backend/host_kernel.h>
#include <cutlet/cutlet.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

using namespace cutlet;

namespace {

constexpr int kPoison = -7777;

std::vector<int> random_ints(std::size_t n, unsigned seed, int lo = -1000, int hi = 1000) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> dist(lo, hi);
  std::vector<int> v(n);
  for (int& x : v) x = dist(rng);
  return v;
}

/// Each thread passes its value to the next thread of its block `steps` times (read from
/// memory: the same in every thread, but not known to be), through shared memory between two
/// barriers, adding the step each time; the running value lives in a local variable.
auto rotate_in_steps() {
  return kernel(
      [](Ptr<int> out, Ptr<int> in, Ptr<int> steps) {
        auto buf = shared_array<int>(128);
        i32 tid = thread_idx().x;
        i32 n = block_dim().x;
        i32 g = block_idx().x * n + tid;
        Var<int> v = in[g];
        for_range(0, steps[0], [&](i32 s) {
          buf[tid] = v.get();
          syncthreads();
          v = buf[(tid + 1) % n] + s;
          syncthreads();
        });
        out[g] = v.get();
      },
      {.name = "phases_rotate_in_steps"});
}

TEST(HostPhases, ALoopHoldingBarriersRunsToBoundsReadFromMemory) {
  const HostKernel k = HostKernel::compile(rotate_in_steps().trace_ir<Ptr<int>, Ptr<int>, Ptr<int>>());
  for (const int block : {96, 100, 128}) {
    const int blocks = 3, steps = 5;
    std::vector<int> in = random_ints(std::size_t(block) * blocks, 1), out(in.size(), kPoison), s{steps};
    int *po = out.data(), *pi = in.data(), *ps = s.data();
    void* args[] = {&po, &pi, &ps};
    k.run({static_cast<std::uint32_t>(blocks)}, {static_cast<std::uint32_t>(block)}, args);
    for (int b = 0; b < blocks; ++b) {
      std::vector<int> v(in.begin() + b * block, in.begin() + (b + 1) * block);
      for (int st = 0; st < steps; ++st) {
        std::vector<int> next(block);
        for (int t = 0; t < block; ++t) next[t] = v[(t + 1) % block] + st;
        v = next;
      }
      for (int t = 0; t < block; ++t) ASSERT_EQ(out[b * block + t], v[t]) << "block size " << block << ", thread " << t;
    }
  }
}

/// Thread 0 counts up in shared memory until the count reaches the block's first input; every
/// thread tests the count in a while loop that holds the barriers.
auto count_up_together() {
  return kernel(
      [](Ptr<int> out, Ptr<int> limit) {
        auto count = shared_array<int>(1);
        i32 tid = thread_idx().x;
        if_(tid == 0, [&] { count[0] = 0; });
        syncthreads();
        Var<int> rounds = 0;
        while_([&] { return count[0].load() < limit[block_idx().x]; },
               [&] {
                 syncthreads();
                 if_(tid == 0, [&] { count[0] = count[0] + 1; });
                 rounds += 1;
                 syncthreads();
               });
        out[block_idx().x * block_dim().x + tid] = rounds.get() * 1000 + count[0].load();
      },
      {.name = "phases_count_up_together"});
}

TEST(HostPhases, AWhileLoopHoldingBarriersEndsForTheWholeBlock) {
  const HostKernel k = HostKernel::compile(count_up_together().trace_ir<Ptr<int>, Ptr<int>>());
  const int block = 70, blocks = 4;
  std::vector<int> limit = {3, 0, 11, 1}, out(std::size_t(block) * blocks, kPoison);
  int *po = out.data(), *pl = limit.data();
  void* args[] = {&po, &pl};
  k.run({blocks}, {block}, args);
  for (int b = 0; b < blocks; ++b)
    for (int t = 0; t < block; ++t) ASSERT_EQ(out[b * block + t], limit[b] * 1000 + limit[b]) << b << " " << t;
}

/// Warps 1 and 2 (of a block whose last warp has 16 threads) sum their lanes with shuffles;
/// warp 0 writes its input back.
auto sum_in_some_warps() {
  return kernel(
      [](Ptr<int> out, Ptr<int> in) {
        i32 tid = thread_idx().x;
        i32 x = in[tid];
        i32 r = if_(
            warp_id() > 0,
            [&] {
              Var<int> v = x;
              for (int d = 16; d > 0; d /= 2) v = v + shfl_xor_sync(full_mask, v.get(), d);
              return v.get();
            },
            [&] { return x; });
        out[tid] = r;
      },
      {.name = "phases_sum_in_some_warps"});
}

TEST(HostPhases, AnIfOverWholeWarpsHoldingShufflesRunsThoseWarpsOnly) {
  const HostKernel k = HostKernel::compile(sum_in_some_warps().trace_ir<Ptr<int>, Ptr<int>>());
  const int block = 80;
  std::vector<int> in = random_ints(block, 2), out(block, kPoison);
  int *po = out.data(), *pi = in.data();
  void* args[] = {&po, &pi};
  k.run({1}, {block}, args);
  for (int t = 0; t < block; ++t) {
    if (t < 32) {
      ASSERT_EQ(out[t], in[t]) << t;
      continue;
    }
    // An xor partner past the block's last thread gives the lane its own value.
    const int w = t / 32 * 32, width = std::min(32, block - w);
    std::vector<int> v(in.begin() + w, in.begin() + w + width);
    for (int d = 16; d > 0; d /= 2) {
      std::vector<int> next(width);
      for (int l = 0; l < width; ++l) next[l] = v[l] + ((l ^ d) < width ? v[l ^ d] : v[l]);
      v = next;
    }
    ASSERT_EQ(out[t], v[t - w]) << t;
  }
}

/// The barrier reductions: how many threads hold a predicate, and whether all or any do.
auto barrier_reductions() {
  return kernel(
      [](Ptr<int> out, Ptr<int> in) {
        i32 g = block_idx().x * block_dim().x + thread_idx().x;
        Value<bool> p = in[g] > 0;
        i32 n = syncthreads_count(p);
        Value<bool> all = syncthreads_and(p);
        Value<bool> any = syncthreads_or(p);
        out[g] = n * 4 + select(all, 2, 0) + select(any, 1, 0);
      },
      {.name = "phases_barrier_reductions"});
}

TEST(HostPhases, BarrierReductionsSeeEveryThreadOfTheBlock) {
  const HostKernel k = HostKernel::compile(barrier_reductions().trace_ir<Ptr<int>, Ptr<int>>());
  const int block = 100;
  std::vector<int> in = random_ints(3 * block, 3);
  for (int t = block; t < 2 * block; ++t) in[t] = 1 + (t & 7);  // block 1: all positive
  for (int t = 2 * block; t < 3 * block; ++t) in[t] = -(t & 7);  // block 2: none
  std::vector<int> out(in.size(), kPoison);
  int *po = out.data(), *pi = in.data();
  void* args[] = {&po, &pi};
  k.run({3}, {block}, args);
  for (int b = 0; b < 3; ++b) {
    int n = 0;
    for (int t = 0; t < block; ++t) n += in[b * block + t] > 0;
    const int want = n * 4 + (n == block ? 2 : 0) + (n > 0 ? 1 : 0);
    for (int t = 0; t < block; ++t) ASSERT_EQ(out[b * block + t], want) << b << " " << t;
  }
}

/// A grid-stride loop (its start differs by thread): each element doubled plus its index,
/// and each thread's count of elements.
auto grid_stride() {
  return kernel(
      [](Ptr<int> out, Ptr<int> counts, Ptr<int> in, i32 n) {
        i32 g = block_idx().x * block_dim().x + thread_idx().x;
        Var<int> count = 0;
        for_range(g, n, grid_dim().x * block_dim().x, [&](i32 i) {
          out[i] = in[i] * 2 + i;
          count += 1;
        });
        counts[g] = count.get();
      },
      {.name = "phases_grid_stride"});
}

TEST(HostPhases, AGridStrideLoopVisitsEveryElementOnceWithEachThreadsOwnBounds) {
  const HostKernel k = HostKernel::compile(grid_stride().trace_ir<Ptr<int>, Ptr<int>, Ptr<int>, i32>());
  const int n = 100003, block = 96, blocks = 5;
  std::vector<int> in = random_ints(n, 4), out(n, kPoison), counts(block * blocks, kPoison);
  int *po = out.data(), *pc = counts.data(), *pi = in.data();
  int count = n;
  void* args[] = {&po, &pc, &pi, &count};
  k.run({blocks}, {block}, args);
  for (int i = 0; i < n; ++i) ASSERT_EQ(out[i], in[i] * 2 + i) << i;
  const int threads = block * blocks;
  for (int g = 0; g < threads; ++g) ASSERT_EQ(counts[g], (n - g + threads - 1) / threads) << g;
}

/// Grid-stride loops whose step is the same for every thread, run in counted sweeps: a
/// downward one (a negative step, so i > end), one over unsigned indices, one over 16-bit
/// indices, and one whose stride is read from memory (not known to be the same for every
/// thread). The stride and a shared array's address are made before a barrier and used after
/// it, where they are kept once for the block.
auto uniform_strides() {
  return kernel(
      [](Ptr<int> down, Ptr<std::uint32_t> up, Ptr<int> narrow, Ptr<int> read, Ptr<int> visits, Ptr<int> in, i32 n,
         Ptr<int> strides) {
        auto seen = shared_array<int>(1);
        i32 tid = thread_idx().x;
        i32 threads = grid_dim().x * block_dim().x;
        i32 g = block_idx().x * block_dim().x + tid;
        if_(tid == 0, [&] { seen[0] = 0; });
        syncthreads();
        Var<int> acc = 0;
        for_range(n - 1 - g, -1, 0 - threads, [&](i32 i) {
          acc += in[i] * (i % 7 + 1);
          atomic_add(seen[0], 1);
        });
        down[g] = acc.get();
        Var<std::uint32_t> uacc = 0u;
        for_range(cast<std::uint32_t>(g), cast<std::uint32_t>(n), cast<std::uint32_t>(threads),
                  [&](Value<std::uint32_t> i) { uacc += cast<std::uint32_t>(in[cast<int>(i)]) ^ i; });
        up[g] = uacc.get();
        Var<int> nacc = 0;
        for_range(cast<std::int16_t>(g), cast<std::int16_t>(300), cast<std::int16_t>(threads),
                  [&](Value<std::int16_t> i) { nacc += in[cast<int>(i)] + 1; });
        narrow[g] = nacc.get();
        Var<int> racc = 0;
        for_range(g, n, strides[0], [&](i32 i) { racc += in[i]; });
        syncthreads();
        read[g] = racc.get();
        if_(tid == 0, [&] { visits[block_idx().x] = seen[0].load(); });
      },
      {.name = "phases_uniform_strides"});
}

TEST(HostPhases, GridStrideLoopsWithOneStrideForTheBlockRunEachThreadsIterations) {
  const HostKernel k = HostKernel::compile(
      uniform_strides().trace_ir<Ptr<int>, Ptr<std::uint32_t>, Ptr<int>, Ptr<int>, Ptr<int>, Ptr<int>, i32, Ptr<int>>());
  for (const int n : {0, 1, 95, 100003}) {
    const int block = 96, blocks = 5, threads = block * blocks;
    std::vector<int> in = random_ints(std::max(n, 300), 9), down(threads, kPoison), narrow(threads, kPoison),
        read(threads, kPoison), visits(blocks, kPoison), strides{threads};
    std::vector<std::uint32_t> up(threads, 0xdeadbeefu);
    int *pd = down.data(), *pn = narrow.data(), *pr = read.data(), *pv = visits.data(), *pi = in.data(), *ps = strides.data();
    std::uint32_t* pu = up.data();
    int count = n;
    void* args[] = {&pd, &pu, &pn, &pr, &pv, &pi, &count, &ps};
    k.run({blocks}, {block}, args);
    for (int g = 0; g < threads; ++g) {
      int d = 0, r = 0, w = 0;
      std::uint32_t u = 0;
      for (int i = n - 1 - g; i > -1; i -= threads) d += in[i] * (i % 7 + 1);
      for (int i = g; i < n; i += threads) {
        u += static_cast<std::uint32_t>(in[i]) ^ static_cast<std::uint32_t>(i);
        r += in[i];
      }
      for (int i = g; i < 300; i += threads) w += in[i] + 1;
      ASSERT_EQ(down[g], d) << "n " << n << ", thread " << g;
      ASSERT_EQ(up[g], u) << "n " << n << ", thread " << g;
      ASSERT_EQ(narrow[g], w) << "n " << n << ", thread " << g;
      ASSERT_EQ(read[g], r) << "n " << n << ", thread " << g;
    }
    for (int b = 0; b < blocks; ++b) {
      int v = 0;
      for (int g = b * block; g < (b + 1) * block; ++g) v += g < n ? (n - 1 - g) / threads + 1 : 0;
      EXPECT_EQ(visits[b], v) << "n " << n << ", block " << b;
    }
  }
}

/// activemask() in the branches of ifs that split warps, in a block whose last warp has 16
/// threads: the lanes that run with the thread.
auto active_masks() {
  return kernel(
      [](Ptr<std::uint32_t> out) {
        i32 t = thread_idx().x;
        if_((t & 1) == 0, [&] { out[t] = active_mask(); },
            [&] { if_(t % 3 == 0, [&] { out[t] = active_mask(); }, [&] { out[t] = active_mask() | 1u; }); });
        out[48 + t] = active_mask();
      },
      {.name = "phases_active_masks"});
}

TEST(HostPhases, ActiveMaskGivesTheLanesOfTheBranch) {
  const HostKernel k = HostKernel::compile(active_masks().trace_ir<Ptr<std::uint32_t>>());
  std::vector<std::uint32_t> out(96, 0xdeadbeefu);
  std::uint32_t* po = out.data();
  void* args[] = {&po};
  k.run({1}, {48}, args);
  for (int t = 0; t < 48; ++t) {
    const int w = t / 32 * 32, width = std::min(32, 48 - w);
    std::uint32_t same = 0;
    for (int l = 0; l < width; ++l) {
      const int u = w + l;
      const bool together = (u & 1) == (t & 1) && ((t & 1) == 0 || (u % 3 == 0) == (t % 3 == 0));
      if (together) same |= 1u << l;
    }
    const std::uint32_t want = (t & 1) == 0 || t % 3 == 0 ? same : same | 1u;
    EXPECT_EQ(out[t], want) << t;
    EXPECT_EQ(out[48 + t], width == 32 ? 0xffffffffu : (1u << width) - 1) << t;
  }
}

int divergent_if_line = 0;

/// Lanes below 5 shuffle with the whole warp, which the others never join (they go on past
/// the if: they have not returned).
auto divergent_shuffle() {
  return kernel(
      [](Ptr<int> out) {
        i32 tid = thread_idx().x;
        divergent_if_line = __LINE__ + 1;
        if_(lane_id() < 5, [&] { out[tid] = shfl_xor_sync(full_mask, tid, 1); });
        out[64 + tid] = tid;
      },
      {.name = "phases_divergent_shuffle"});
}

TEST(HostPhases, LanesThatDisagreeAroundAWholeWarpShuffleAreReportedWithTheLine) {
  const HostKernel k = HostKernel::compile(divergent_shuffle().trace_ir<Ptr<int>>());
  std::vector<int> out(128, kPoison);
  int* po = out.data();
  void* args[] = {&po};
  try {
    k.run({1}, {64}, args);
    FAIL() << "a shuffle over the whole warp ran with 5 of its lanes";
  } catch (const Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("kernel 'phases_divergent_shuffle' on the CPU stopped in block (0, 0, 0): the threads of a warp disagree "
                     "on the condition of the if at "),
              std::string::npos)
        << m;
    EXPECT_NE(m.find("host_phases_host_test.cpp:" + std::to_string(divergent_if_line) + ", which holds a warp operation"),
              std::string::npos)
        << m;
  }
}

}  // namespace
