// The default workspace of the algorithms, the block an owned stream keeps between calls: calls
// queued on one stream from several threads at once, and a call captured into a graph that
// then runs beside the stream's own calls, each get memory no other pending call uses.
#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>
#include <thread>
#include <vector>

#include "algorithms/algorithm_test_support.h"
#include "gpu_test_support.h"
#include "kernel_test_support.h"

using namespace cutlet;
using namespace cutlet::test;
namespace alg = cutlet::algorithms;

namespace {

/// One call's input, its expected sum and inclusive prefix sums, and its outputs.
struct Job {
  std::vector<std::int64_t> host;
  Buffer<std::int64_t> in, sum, prefix;
  std::int64_t want_sum = 0;
  std::vector<std::int64_t> want_prefix;
};

Job make_job(const Stream& st, std::size_t n, std::uint64_t seed) {
  Job j{algorithm_input<std::int64_t>(n, seed), {}, poisoned<std::int64_t>(st, 1), poisoned<std::int64_t>(st, n), 0, {}};
  j.in = Buffer<std::int64_t>(st, j.host);
  j.want_prefix.resize(n);
  std::inclusive_scan(j.host.begin(), j.host.end(), j.want_prefix.begin());
  j.want_sum = j.want_prefix.back() + 7;
  return j;
}

void expect_done(const Stream& st, const Job& j, const char* what) {
  SCOPED_TRACE(what);
  EXPECT_EQ(j.sum.to_host(st)[0], j.want_sum);
  EXPECT_EQ(j.prefix.to_host(st), j.want_prefix);
}

TEST(AlgorithmsStreamWorkspaceGpu, CallsFromFourThreadsOnOneStream) {
  CUTLET_REQUIRE_GPU();
  Stream st;
  constexpr int kThreads = 4, kJobsPerThread = 6;
  // Many blocks per call, so that two calls sharing partials or tile states would mix them.
  std::vector<std::vector<Job>> jobs(kThreads);
  for (int t = 0; t < kThreads; ++t)
    for (int k = 0; k < kJobsPerThread; ++k)
      jobs[t].push_back(make_job(st, 150001 + 40009 * static_cast<std::size_t>(t * kJobsPerThread + k), 100 * t + k));
  st.synchronize();
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (Job& j : jobs[t]) {
        alg::reduce(st, j.in, j.sum, alg::plus{}, std::int64_t{7});
        alg::inclusive_scan(st, j.in, j.prefix, alg::plus{});
      }
    });
  for (auto& th : threads) th.join();
  for (const auto& per_thread : jobs)
    for (const Job& j : per_thread) expect_done(st, j, "a job of the threads");
}

TEST(AlgorithmsStreamWorkspaceGpu, CachedCallsAllocateNothing) {
  CUTLET_REQUIRE_GPU();
  const auto& pool = PoolMemoryResource::device_default(Device(0));
  Device(0).synchronize();
  const std::size_t used_before = pool->usage().used;
  Stream st(Device(0));
  Job first = make_job(st, 300007, 3), second = make_job(st, 123457, 4);
  alg::reduce(st, first.in, first.sum, alg::plus{}, std::int64_t{7});
  alg::inclusive_scan(st, first.in, first.prefix, alg::plus{});
  st.synchronize();
  // The stream keeps the block of the first calls.
  EXPECT_GE(pool->usage().used, used_before + (std::size_t{64} << 10));
  pool->reset_peaks();
  const std::size_t used_kept = pool->usage().used;
  for (int i = 0; i < 3; ++i) {
    alg::reduce(st, second.in, second.sum, alg::plus{}, std::int64_t{7});
    alg::inclusive_scan(st, second.in, second.prefix, alg::plus{});
  }
  st.synchronize();
  EXPECT_EQ(pool->usage().used_high, used_kept);  // not one allocation from the pool
  expect_done(st, first, "the first calls");
  expect_done(st, second, "the cached calls");
}

TEST(AlgorithmsStreamWorkspaceGpu, CapturedCallsRunBesideTheStreamsOwn) {
  CUTLET_REQUIRE_CUDA("graphs of stream-ordered allocations");
  Stream st, other;
  Job captured = make_job(st, 1 << 20, 1);
  std::vector<Job> direct;
  for (int k = 0; k < 4; ++k) direct.push_back(make_job(st, (1 << 20) + 977 * k, 10 + k));
  // Compiled and loaded before the capture; the stream keeps a block now.
  alg::reduce(st, direct[0].in, direct[0].sum, alg::plus{}, std::int64_t{7});
  alg::inclusive_scan(st, direct[0].in, direct[0].prefix, alg::plus{});
  st.synchronize();
  Graph g = Graph::capture(st, [&] {
    alg::reduce(st, captured.in, captured.sum, alg::plus{}, std::int64_t{7});
    alg::inclusive_scan(st, captured.in, captured.prefix, alg::plus{});
  });
  GraphExec exec = g.instantiate();
  for (Job& j : direct) {
    exec.launch(other);  // the graph's calls on `other` while `st` runs its own
    alg::reduce(st, j.in, j.sum, alg::plus{}, std::int64_t{7});
    alg::inclusive_scan(st, j.in, j.prefix, alg::plus{});
  }
  other.synchronize();
  for (const Job& j : direct) expect_done(st, j, "a call on the stream");
  expect_done(st, captured, "the captured calls");
}

}  // namespace
