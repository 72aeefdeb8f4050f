// The whole compile path (tracing, the IR passes, LLVM, nvJitLink, the memory and disk caches)
// from several threads at once: one specialization asked for by many threads is compiled once
// and shared, and kernels compiled concurrently are the code a serial compile makes. No GPU.
#include <gtest/gtest.h>

#include <cutlet/cutlet.h>

#include <cstddef>
#include <functional>
#include <latch>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "isolated_cache_dir.h"

using namespace cutlet;

// Every process of this test executable gets its own empty kernel cache.
static const bool kIsolated = cutlet::test::isolate_kernel_cache();

namespace {

constexpr int kThreads = 8;

/// y[i] = y[i] * K + a over a bounds-checked grid, K a compile-time constant.
auto scaled_kernel(const std::string& name) {
  return kernel(
      [](Ptr<float> y, f32 a, i32 n, Const<int> K) {
        i32 i = block_idx().x * block_dim().x + thread_idx().x;
        if_(i < n, [&] { y[i] = y[i] * static_cast<float>(K.value()) + a; });
      },
      {.name = name});
}

/// A block-wide sum through shared memory and barriers.
auto block_sum_kernel(const std::string& name) {
  return kernel(
      [](Ptr<float> out, Ptr<float> x) {
        auto s = shared_array<float>(256);
        i32 t = thread_idx().x;
        s[t] = x[block_idx().x * 256 + t];
        syncthreads();
        for (int stride = 128; stride > 0; stride /= 2) {
          if_(t < stride, [&] { s[t] = s[t] + s[t + stride]; });
          syncthreads();
        }
        if_(t == 0, [&] { out[block_idx().x] = s[0]; });
      },
      {.name = name});
}

/// A tile kernel: y = exp(x) - x, 256 elements per program, masked at the edge.
auto tile_kernel_named(const std::string& name) {
  return tile_kernel(
      [](Tensor<float, 1> y, Tensor<float, 1> x) {
        auto i = program_id(0) * 256 + arange(256);
        auto v = load(x, {i});
        store(y, {i}, exp(v) - v);
      },
      {.name = name}, 4);
}

/// Runs `work(t)` on kThreads threads that start together.
void on_threads(const std::function<void(int)>& work) {
  std::latch start(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      start.arrive_and_wait();
      work(t);
    });
  for (auto& th : threads) th.join();
}

/// The compiles of the kernels named with `prefix`: four constants of the scaled kernel, the
/// block sum and the tile kernel.
std::vector<std::function<std::shared_ptr<const CompiledKernel>()>> compiles(const std::string& prefix) {
  std::vector<std::function<std::shared_ptr<const CompiledKernel>()>> out;
  for (int k = 1; k <= 4; ++k)
    out.push_back([prefix, k] { return scaled_kernel(prefix + "_scaled").compile(k); });
  out.push_back([prefix] { return block_sum_kernel(prefix + "_block_sum").compile(); });
  out.push_back([prefix] { return tile_kernel_named(prefix + "_tile").compile(); });
  return out;
}

/// `ptx` with every occurrence of `from` replaced by `to`.
std::string renamed(std::string ptx, const std::string& from, const std::string& to) {
  for (auto p = ptx.find(from); p != std::string::npos; p = ptx.find(from, p + to.size())) ptx.replace(p, from.size(), to);
  return ptx;
}

TEST(CompileConcurrency, OneSpecializationAskedForByManyThreadsIsCompiledOnce) {
  const CacheStats before = cache_stats();
  std::vector<std::shared_ptr<const CompiledKernel>> got(kThreads);
  // Each thread has its own Kernel object; the traced IR is the same, so is the code.
  on_threads([&](int t) { got[t] = scaled_kernel("concurrent_once").compile(7); });
  const CacheStats after = cache_stats();
  for (int t = 0; t < kThreads; ++t) {
    ASSERT_TRUE(got[t]) << t;
    EXPECT_EQ(got[t], got[0]) << "thread " << t << " got its own copy";
  }
  EXPECT_EQ(after.traces - before.traces, static_cast<std::uint64_t>(kThreads)) << "every thread traces";
  EXPECT_EQ((after.compiles - before.compiles) + (after.disk_hits - before.disk_hits), 1u)
      << "one compile (or one disk read), the other threads wait for it";
  EXPECT_EQ(after.ir_hits - before.ir_hits, static_cast<std::uint64_t>(kThreads - 1));
  EXPECT_NE(got[0]->ptx.find(".entry concurrent_once"), std::string::npos) << got[0]->ptx;
  EXPECT_FALSE(got[0]->cubin.empty());
}

TEST(CompileConcurrency, KernelsCompiledTogetherAreTheCodeASerialCompileMakes) {
  // The same kernels under two sets of names (so that neither is a cache hit of the other):
  // one compiled a kernel at a time, the other by all threads at once, each thread taking
  // every kernel in its own order.
  auto serial = compiles("serial");
  std::vector<std::shared_ptr<const CompiledKernel>> reference;
  for (auto& c : serial) reference.push_back(c());
  auto parallel = compiles("parallel");
  std::vector<std::vector<std::shared_ptr<const CompiledKernel>>> got(kThreads,
                                                                       std::vector<std::shared_ptr<const CompiledKernel>>(parallel.size()));
  on_threads([&](int t) {
    for (std::size_t j = 0; j < parallel.size(); ++j) {
      const std::size_t k = (j + static_cast<std::size_t>(t)) % parallel.size();
      got[t][k] = parallel[k]();
    }
  });
  for (std::size_t k = 0; k < parallel.size(); ++k) {
    ASSERT_TRUE(reference[k]);
    const std::string expected = renamed(reference[k]->ptx, "serial_", "parallel_");
    for (int t = 0; t < kThreads; ++t) {
      ASSERT_TRUE(got[t][k]) << "thread " << t << ", kernel " << k;
      EXPECT_EQ(got[t][k], got[0][k]) << "one compile per specialization";
      EXPECT_EQ(got[t][k]->ptx, expected) << "thread " << t << ", kernel " << reference[k]->name;
      EXPECT_EQ(got[t][k]->resources.registers, reference[k]->resources.registers) << reference[k]->name;
      EXPECT_FALSE(got[t][k]->cubin.empty());
    }
  }
}

TEST(CompileConcurrency, AFailingCompileOnOneThreadLeavesTheOthersAlone) {
  // A kernel that needs more shared memory than any block can have fails to compile with a
  // CompileError on every thread that asks for it; kernels compiled meanwhile are unharmed.
  auto too_big = kernel(
      [](Ptr<float> y) {
        auto s = shared_array<float>(1 << 20);  // 4 MiB
        s[thread_idx().x] = 1.0f;
        syncthreads();
        y[thread_idx().x] = s[thread_idx().x + 1];
      },
      {.name = "concurrent_too_big"});
  std::vector<std::string> errors(kThreads);
  std::vector<std::shared_ptr<const CompiledKernel>> fine(kThreads);
  on_threads([&](int t) {
    if (t % 2) {
      try {
        too_big.compile();
      } catch (const Error& e) {
        errors[t] = e.what();
      }
    } else {
      fine[t] = scaled_kernel("concurrent_beside_failure").compile(t + 100);
    }
  });
  for (int t = 0; t < kThreads; ++t) {
    if (t % 2) {
      EXPECT_NE(errors[t].find("shared"), std::string::npos) << "thread " << t << ": " << errors[t];
    } else {
      ASSERT_TRUE(fine[t]) << t;
      EXPECT_FALSE(fine[t]->cubin.empty());
    }
  }
}

}  // namespace
