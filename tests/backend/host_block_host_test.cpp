// Per-thread kernels whose threads wait for each other, run on the host CPU (HostKernel, its
// blocks in phases or as fibers): barriers, shared memory, warp shuffles, votes, match, redux,
// atomics, against C++ references on random data with the outputs poisoned first; and the
// errors for threads that can never meet.
#include <gtest/gtest.h>

#include <cutlet/backend/host_kernel.h>
#include <cutlet/cutlet.h>

#include <dlfcn.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

using namespace cutlet;

namespace {

constexpr int kBlock = 256;
constexpr int kWarps = kBlock / warp_size;

/// The sum of `v` over the warp's lanes, in every lane.
f32 warp_sum(f32 v) {
  for (int d = warp_size / 2; d > 0; d /= 2) v = v + shfl_xor_sync(full_mask, v, d);
  return v;
}

/// The block reduction of the block_reduce example: a grid-stride loop, warp shuffles, per-warp
/// sums in shared memory, a barrier, and one atomic add per block.
auto block_sum() {
  return kernel(
      [](Ptr<float> out, Ptr<float> x, i32 n) {
        auto partial = shared_array<float>(kWarps);
        i32 tid = thread_idx().x;
        Var<float> acc = 0.0f;
        for_range(block_idx().x * kBlock + tid, n, grid_dim().x * kBlock, [&](i32 i) { acc += x[i]; });
        f32 w = warp_sum(acc);
        if_(lane_id() == 0, [&] { partial[warp_id()] = w; });
        syncthreads();
        if_(tid < warp_size, [&] {
          f32 p = if_(tid < kWarps, [&] { return partial[tid].load(); }, [&] { return 0.0f; });
          f32 s = warp_sum(p);
          if_(tid == 0, [&] { atomic_add(out[0], s); });
        });
      },
      {.name = "host_block_sum"});
}

TEST(HostBlock, ABlockReductionWithSharedMemoryBarriersAndShufflesMatchesTheCpp) {
  const HostKernel k = HostKernel::compile(block_sum().trace_ir<Ptr<float>, Ptr<float>, i32>());
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (int n : {1, 255, 1000, 100003}) {
    std::vector<float> x(static_cast<std::size_t>(n));
    double want = 0, magnitude = 0;
    for (float& v : x) {
      v = dist(rng);
      want += v;
      magnitude += std::fabs(v);
    }
    float out = 0.0f;
    float* po = &out;
    float* px = x.data();
    void* args[] = {&po, &px, &n};
    for (std::uint32_t blocks : {1u, 3u, 7u}) {
      out = 0.0f;
      k.run({blocks}, {kBlock}, args);
      EXPECT_NEAR(out, want, 1e-5 * magnitude + 1e-6) << "n " << n << ", " << blocks << " blocks";
    }
  }
}

/// An inclusive scan of each block's 256 values through shared memory (Hillis-Steele, two
/// barriers a step): every step reads what the other threads wrote before the barrier.
auto block_scan() {
  return kernel(
      [](Ptr<int> out, Ptr<int> x) {
        auto buf = shared_array<int>(kBlock);
        i32 tid = thread_idx().x;
        i32 base = block_idx().x * kBlock;
        buf[tid] = x[base + tid];
        syncthreads();
        for (int d = 1; d < kBlock; d *= 2) {
          i32 add = if_(tid >= d, [&] { return buf[tid - d].load(); }, [&] { return i32(0); });
          syncthreads();
          buf[tid] = buf[tid] + add;
          syncthreads();
        }
        out[base + tid] = buf[tid];
      },
      {.name = "host_block_scan"});
}

TEST(HostBlock, ASharedMemoryScanSeesEveryWriteBeforeEachBarrier) {
  const HostKernel k = HostKernel::compile(block_scan().trace_ir<Ptr<int>, Ptr<int>>());
  constexpr int kBlocks = 5;
  std::mt19937 rng(3);
  std::vector<int> x(kBlocks * kBlock), out(x.size(), 0x7f7f7f7f);
  for (int& v : x) v = static_cast<int>(rng() % 2001) - 1000;
  int* po = out.data();
  int* px = x.data();
  void* args[] = {&po, &px};
  k.run({kBlocks}, {kBlock}, args);
  for (int b = 0; b < kBlocks; ++b) {
    int sum = 0;
    for (int t = 0; t < kBlock; ++t) {
      sum += x[b * kBlock + t];
      ASSERT_EQ(out[b * kBlock + t], sum) << "block " << b << " thread " << t;
    }
  }
}

/// A 256-bin histogram: shared-memory bins zeroed, atomic adds into them, a barrier, then one
/// global atomic per bin and block.
auto histogram() {
  return kernel(
      [](Ptr<std::uint32_t> hist, Ptr<std::uint32_t> x, i32 n) {
        auto bins = shared_array<std::uint32_t>(256);
        i32 tid = thread_idx().x;
        bins[tid] = std::uint32_t{0};
        syncthreads();
        for_range(block_idx().x * kBlock + tid, n, grid_dim().x * kBlock,
                  [&](i32 i) { atomic_add(bins[cast<int>(x[i] & 255u)], std::uint32_t{1}); });
        syncthreads();
        atomic_add(hist[tid], bins[tid].load());
      },
      {.name = "host_histogram"});
}

TEST(HostBlock, ASharedMemoryHistogramWithAtomicsCountsEverySample) {
  const HostKernel k = HostKernel::compile(histogram().trace_ir<Ptr<std::uint32_t>, Ptr<std::uint32_t>, i32>());
  std::mt19937 rng(5);
  int n = 77777;
  std::vector<std::uint32_t> x(static_cast<std::size_t>(n)), hist(256, 0), want(256, 0);
  for (auto& v : x) {
    v = rng();
    ++want[v & 255u];
  }
  std::uint32_t* ph = hist.data();
  std::uint32_t* px = x.data();
  void* args[] = {&ph, &px, &n};
  k.run({6}, {kBlock}, args);
  EXPECT_EQ(hist, want);
}

/// Per lane: the ballot of odd values, all/any of them, the lanes holding the same value
/// (match any), and the warp's sum, minimum and xor through redux.
auto warp_ops() {
  return kernel(
      [](Ptr<std::uint32_t> out, Ptr<int> x) {
        i32 i = block_idx().x * block_dim().x + thread_idx().x;
        i32 v = x[i];
        Value<bool> odd = (v & 1) == 1;
        out[8 * i + 0] = ballot_sync(full_mask, odd);
        out[8 * i + 1] = cast<std::uint32_t>(all_sync(full_mask, odd));
        out[8 * i + 2] = cast<std::uint32_t>(any_sync(full_mask, odd));
        out[8 * i + 3] = match_any_sync(full_mask, v & 3);
        out[8 * i + 4] = cast<std::uint32_t>(reduce_add_sync(full_mask, v));
        out[8 * i + 5] = cast<std::uint32_t>(reduce_min_sync(full_mask, v));
        out[8 * i + 6] = cast<std::uint32_t>(reduce_xor_sync(full_mask, cast<std::uint32_t>(v)));
        out[8 * i + 7] = cast<std::uint32_t>(shfl_down_sync(full_mask, v, 3));
      },
      {.name = "host_warp_ops"});
}

TEST(HostBlock, VotesMatchReduxAndShufflesSeeTheirWholeWarp) {
  const HostKernel k = HostKernel::compile(warp_ops().trace_ir<Ptr<std::uint32_t>, Ptr<int>>());
  constexpr int kThreads = 96;  // three warps in one block
  std::mt19937 rng(9);
  std::vector<int> x(kThreads);
  for (int& v : x) v = static_cast<int>(rng() % 200) - 100;
  std::vector<std::uint32_t> out(8 * kThreads, 0xdeadbeefu);
  std::uint32_t* po = out.data();
  int* px = x.data();
  void* args[] = {&po, &px};
  k.run({1}, {kThreads}, args);
  for (int w = 0; w < kThreads / 32; ++w) {
    std::uint32_t ballot = 0, x_or = 0;
    int sum = 0, lo = std::numeric_limits<int>::max();
    for (int l = 0; l < 32; ++l) {
      const int v = x[32 * w + l];
      if (v & 1) ballot |= 1u << l;
      sum += v;
      lo = std::min(lo, v);
      x_or ^= static_cast<std::uint32_t>(v);
    }
    for (int l = 0; l < 32; ++l) {
      const std::uint32_t* o = &out[8 * (32 * w + l)];
      std::uint32_t same = 0;
      for (int m = 0; m < 32; ++m)
        if ((x[32 * w + m] & 3) == (x[32 * w + l] & 3)) same |= 1u << m;
      EXPECT_EQ(o[0], ballot) << "warp " << w << " lane " << l;
      EXPECT_EQ(o[1], ballot == ~0u ? 1u : 0u);
      EXPECT_EQ(o[2], ballot != 0 ? 1u : 0u);
      EXPECT_EQ(o[3], same);
      EXPECT_EQ(static_cast<int>(o[4]), sum);
      EXPECT_EQ(static_cast<int>(o[5]), lo);
      EXPECT_EQ(o[6], x_or);
      EXPECT_EQ(static_cast<int>(o[7]), x[32 * w + (l + 3 < 32 ? l + 3 : l)]);
    }
  }
}

/// Threads that finish without reaching a barrier count as arrived at it, as threads that
/// have exited do on the GPU (the usual bounds test around a block-wide step).
auto early_exit() {
  return kernel(
      [](Ptr<int> out, i32 n) {
        auto buf = shared_array<int>(kBlock);
        i32 tid = thread_idx().x;
        if_(tid < n, [&] {
          buf[tid] = tid * 2;
          syncthreads();
          out[tid] = buf[n - 1 - tid];
        });
      },
      {.name = "host_early_exit"});
}

TEST(HostBlock, ThreadsThatFinishedDoNotHoldUpABarrier) {
  const HostKernel k = HostKernel::compile(early_exit().trace_ir<Ptr<int>, i32>());
  int n = 100;
  std::vector<int> out(kBlock, -1);
  int* po = out.data();
  void* args[] = {&po, &n};
  k.run({1}, {kBlock}, args);
  for (int t = 0; t < kBlock; ++t) EXPECT_EQ(out[t], t < n ? 2 * (n - 1 - t) : -1) << t;
}

/// Half a warp waits at a barrier, the other half in a shuffle of `mask` that needs the first
/// half.
auto divergent_barrier(std::uint32_t mask) {
  return kernel(
      [mask](Ptr<int> out) {
        i32 tid = thread_idx().x;
        if_(tid < 16, [&] { syncthreads(); }, [&] { out[tid] = shfl_sync(mask, tid, 0); });
      },
      {.name = "host_divergent_barrier_" + std::to_string(mask)});
}

TEST(HostBlock, ThreadsThatCanNeverMeetAreReportedNotHung) {
  // Run in phases (every warp operation over the whole warp), the if is found to split the
  // block at its barrier; run as fibers (a shuffle over part of a warp), the threads are
  // found waiting for each other. Either names the kernel and where.
  for (const std::uint32_t mask : {full_mask, 0x00ffff00u}) {
    const HostKernel k = HostKernel::compile(divergent_barrier(mask).trace_ir<Ptr<int>>());
    std::vector<int> out(32, 0);
    int* po = out.data();
    void* args[] = {&po};
    try {
      k.run({1}, {32}, args);
      FAIL() << "a barrier and a shuffle that wait for each other completed";
    } catch (const Error& e) {
      const std::string m = e.what();
      EXPECT_NE(m.find("host_divergent_barrier"), std::string::npos) << m;
      if (mask == full_mask) {
        EXPECT_NE(m.find("stopped in block (0, 0, 0): the threads of the block disagree on the condition of the if at "),
                  std::string::npos)
            << m;
        EXPECT_NE(m.find("host_block_host_test.cpp:"), std::string::npos) << m;
        EXPECT_NE(m.find("which holds syncthreads()"), std::string::npos) << m;
        continue;
      }
      EXPECT_NE(m.find("can make no progress"), std::string::npos) << m;
      EXPECT_NE(m.find("16 threads wait at a barrier (the first: thread (0, 0, 0) of block (0, 0, 0))"), std::string::npos) << m;
      EXPECT_NE(m.find("16 threads wait at a warp shuffle of mask 0x00ffff00 (the first: thread (16, 0, 0) of block (0, 0, 0))"),
                std::string::npos)
          << m;
    }
  }
}

/// A device function reading the thread's indices (the host asks the running block for them).
auto indices_in_a_device_function() {
  static auto global_index =
      device_function([]() -> i32 { return block_idx().x * block_dim().x + thread_idx().x; }, "host_global_index");
  return kernel([](Ptr<int> out) { out[global_index()] = global_index() * 3; }, {.name = "host_indices_in_device_function"});
}

TEST(HostBlock, DeviceFunctionsReadTheCallingThreadsIndices) {
  const HostKernel k = HostKernel::compile(indices_in_a_device_function().trace_ir<Ptr<int>>());
  std::vector<int> out(4 * 48, -1);
  int* po = out.data();
  void* args[] = {&po};
  k.run({4}, {48}, args);
  for (int i = 0; i < 4 * 48; ++i) EXPECT_EQ(out[i], 3 * i) << i;
}

TEST(HostBlock, PrintfPrintsEveryArgumentAsTheGpuWould) {
  auto k = kernel(
      [](Ptr<double> d, i32 n) {
        if_(thread_idx().x == 1, [&] {
          print("t=%d n=%u x=%.3f big=%lld c=%c d=%g|\n", thread_idx().x, cast<std::uint32_t>(n), 1.5f,
                cast<std::int64_t>(n) * 1000000000LL, i32(65), d[0]);
        });
      },
      {.name = "host_printf"});
  const HostKernel host = HostKernel::compile(k.trace_ir<Ptr<double>, i32>());
  double value = 0.25;
  double* pd = &value;
  int n = 7;
  void* args[] = {&pd, &n};
  testing::internal::CaptureStdout();
  host.run({1}, {4}, args);
  EXPECT_EQ(testing::internal::GetCapturedStdout(), "t=1 n=7 x=1.500 big=7000000000 c=A d=0.25|\n");
}

TEST(HostBlock, AFailedAssertStopsTheKernelNamingItsMessageLineAndThread) {
  const int line = __LINE__ + 2;
  auto k = kernel([](Ptr<int> x) {
    assert_(x[thread_idx().x] >= 0, "x must not be negative");
  }, {.name = "host_assert"});
  const HostKernel host = HostKernel::compile(k.trace_ir<Ptr<int>>());
  std::vector<int> x(64, 1);
  x[37] = -3;
  int* px = x.data();
  void* args[] = {&px};
  try {
    host.run({1}, {64}, args);
    FAIL() << "a failed assertion went unreported";
  } catch (const Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("kernel 'host_assert' on the CPU: assertion failed: x must not be negative (" ), std::string::npos) << m;
    EXPECT_NE(m.find("host_block_host_test.cpp:" + std::to_string(line) + ")"), std::string::npos) << m;
    EXPECT_NE(m.find("in thread (37, 0, 0) of block (0, 0, 0)"), std::string::npos) << m;
  }
  x[37] = 5;
  EXPECT_NO_THROW(host.run({1}, {64}, args));
}

/// The GDB JIT interface's descriptor (what debuggers read to find JIT-compiled code).
struct JitCodeEntry {
  JitCodeEntry* next;
  JitCodeEntry* prev;
  const char* symfile;
  std::uint64_t size;
};
struct JitDescriptor {
  std::uint32_t version, action;
  JitCodeEntry* relevant;
  JitCodeEntry* first;
};

TEST(HostBlock, WithLineInfoTheKernelsLinesReachDebuggers) {
  const int line = __LINE__ + 3;
  auto k = kernel(
      [](Ptr<int> out) {
        out[thread_idx().x] = thread_idx().x * 5;
      },
      {.name = "host_line_info", .line_info = true});
  CompileOptions options;
  options.line_info = true;
  options.opt_level = 0;
  const HostKernel host = HostKernel::compile(k.trace_ir<Ptr<int>>(), options);
  EXPECT_NE(host.llvm_ir().find("!DILocation(line: " + std::to_string(line)), std::string::npos) << host.llvm_ir();
  EXPECT_NE(host.llvm_ir().find("host_block_host_test.cpp"), std::string::npos);
  // The thread's indices and the kernel's parameters are described for debuggers too.
  EXPECT_NE(host.llvm_ir().find("!DILocalVariable(name: \"threadIdx\""), std::string::npos) << host.llvm_ir();
  EXPECT_NE(host.llvm_ir().find("!DILocalVariable(name: \"arg1\""), std::string::npos);
  EXPECT_FALSE(host.runs_in_phases()) << "with line info each thread is a fiber a debugger can stop in";
  std::vector<int> out(64, -1);
  int* po = out.data();
  void* args[] = {&po};
  host.run({1}, {64}, args);
  for (int t = 0; t < 64; ++t) EXPECT_EQ(out[t], 5 * t);
  // The object code was announced to debuggers with its line tables: the descriptor's list
  // holds an object naming this file. (A build whose LLVM is linked in statically keeps the
  // descriptor's symbol local: only its unstripped libraries show it.)
  auto* descriptor = static_cast<JitDescriptor*>(dlsym(RTLD_DEFAULT, "__jit_debug_descriptor"));
  if (!descriptor) GTEST_SKIP() << "the GDB JIT interface's descriptor is not an exported symbol of this build";
  bool found = false;
  for (JitCodeEntry* e = descriptor->first; e && !found; e = e->next)
    found = memmem(e->symfile, e->size, "host_block_host_test.cpp", std::strlen("host_block_host_test.cpp")) != nullptr;
  EXPECT_TRUE(found) << "no JIT-compiled object with this file's line tables was announced to debuggers";
}

}  // namespace
