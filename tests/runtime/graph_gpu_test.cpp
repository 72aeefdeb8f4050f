// Graphs: explicit nodes, capture of cutlet and foreign work, replay, kernel-node updates and
// their misuse (CUDA graphs on a GPU, graphs of host work on the CPU device).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "../gpu_test_support.h"
#include "cutlet/runtime/buffer.h"
#include "cutlet/runtime/cuda_error.h"
#include "cutlet/runtime/driver.h"
#include "cutlet/runtime/graph.h"
#include "cutlet/runtime/launch.h"
#include "cutlet/runtime/module.h"
#include "runtime_test_support.h"
#include "test_functions.h"

namespace {

TEST(Graph, ExplicitMemsetKernelMemcpyChain) {
  CUTLET_REQUIRE_GPU();
  cutlet::Stream s(cutlet::Device(0));
  const cutlet::test::TestFunctions m(s.device());
  const std::uint32_t n = 5000;
  cutlet::Buffer<std::uint32_t> work(n + 8, s.device()), out(n + 8, s.device());
  out.fill_bytes(s, 0);
  s.synchronize();
  cutlet::Graph g(s.device());
  const cutlet::GraphNode fill = g.add_memset(work.data(), 0xdeadbeef, 4, n + 8);
  std::uint64_t p = work.data();
  std::uint32_t count = n;
  void* args[] = {&p, &count};
  const cutlet::GraphNode after_fill[] = {fill};
  const cutlet::GraphNode write =
      g.add_kernel(m.function("write42"), {.grid = cutlet::ceil_div(n, 128), .block = 128}, args, after_fill);
  const cutlet::GraphNode copy = g.add_memcpy(out.data(), work.data(), (n + 8) * 4);
  g.add_dependency(write, copy);
  EXPECT_EQ(g.node_count(), 3u);
  EXPECT_EQ(g.kernel_nodes().size(), 1u);
  cutlet::GraphExec exec = g.instantiate();
  exec.upload(s);
  exec.launch(s);
  const auto host = out.to_host(s);
  for (std::uint32_t i = 0; i < n; ++i) ASSERT_EQ(host[i], 42 + i);
  for (std::uint32_t i = n; i < n + 8; ++i) EXPECT_EQ(host[i], 0xdeadbeefu) << i;
}

TEST(Graph, UpdateKernelArgumentsChangesTheResult) {
  CUTLET_REQUIRE_GPU();
  cutlet::Stream s(cutlet::Device(0));
  const cutlet::test::TestFunctions m(s.device());
  const cutlet::Function write42 = m.function("write42");
  cutlet::Buffer<std::uint32_t> a(1000, s.device()), b(1000, s.device());
  a.fill_bytes(s, 0);
  b.fill_bytes(s, 0);
  s.synchronize();
  cutlet::Graph g(s.device());
  std::uint64_t p = a.data();
  std::uint32_t count = 10;
  void* args[] = {&p, &count};
  const cutlet::GraphNode node = g.add_kernel(write42, {.grid = 1, .block = 256}, args);
  cutlet::GraphExec exec = g.instantiate();
  exec.launch(s);
  auto ha = a.to_host(s);
  EXPECT_EQ(ha[9], 51u);
  EXPECT_EQ(ha[10], 0u);  // only 10 written

  // New arguments (another buffer, another count) and geometry, without instantiating again.
  p = b.data();
  count = 1000;
  exec.update_kernel(node, write42, {.grid = 4, .block = 256}, args);
  exec.launch(s);
  const auto hb = b.to_host(s);
  EXPECT_EQ(hb[0], 42u);
  EXPECT_EQ(hb[999], 1041u);
  ha = a.to_host(s);
  EXPECT_EQ(ha[10], 0u);  // the old buffer was not touched again
}

TEST(Graph, UpdateWithAnotherKernelOrForeignNodeIsRejected) {
  CUTLET_REQUIRE_GPU();
  cutlet::Stream s(cutlet::Device(0));
  const cutlet::test::TestFunctions m(s.device());
  cutlet::Buffer<std::uint32_t> a(32, s.device());
  std::uint64_t p = a.data();
  std::uint32_t count = 32;
  void* args[] = {&p, &count};
  cutlet::Graph g(s.device());
  const cutlet::GraphNode node = g.add_kernel(m.function("write42"), {.grid = 1, .block = 32}, args);
  cutlet::GraphExec exec = g.instantiate();
  const std::string msg = cutlet::test::error_message(
      [&] { exec.update_kernel(node, m.function("empty_kernel"), {.grid = 1, .block = 32}, nullptr); });
  EXPECT_CONTAINS(msg, "launches kernel 'write42', not 'empty_kernel'");
  EXPECT_CONTAINS(msg, "new graph");
  cutlet::Graph other(s.device());
  const cutlet::GraphNode foreign = other.add_kernel(m.function("write42"), {.grid = 1, .block = 32}, args);
  EXPECT_CONTAINS(cutlet::test::error_message(
                      [&] { exec.update_kernel(foreign, m.function("write42"), {.grid = 1, .block = 32}, args); }),
                  "not a kernel node of the graph");
  EXPECT_CONTAINS(cutlet::test::error_message(
                      [&] { exec.update_kernel(node, m.function("write42"), {.grid = 1, .block = 4096}, args); }),
                  "4096");
}

TEST(Graph, CaptureRecordsCutletAndForeignWork) {
  CUTLET_REQUIRE_GPU();
  cutlet::Stream s(cutlet::Device(0));
  const cutlet::test::TestFunctions m(s.device());
  const std::uint32_t n = 3000;
  cutlet::Buffer<std::uint32_t> out(n, s.device()), copy(n, s.device());
  // A foreign library's work on the same stream: a raw driver memset on a GPU, a host function
  // on the CPU device.
  using MemsetD32 = int (*)(std::uint64_t, unsigned, std::size_t, void*);
  const auto memset32 = s.device().is_cpu()
                            ? nullptr
                            : reinterpret_cast<MemsetD32>(cutlet::driver_entry_point("cuMemsetD32Async"));
  auto foreign_fill = [&] {
    if (memset32) return memset32(out.data(), 7u, n, s.handle());
    s.launch_host_function([p = reinterpret_cast<std::uint32_t*>(static_cast<std::uintptr_t>(out.data())), n] {
      for (std::uint32_t i = 0; i < n; ++i) p[i] = 7u;
    });
    return 0;
  };
  std::uint64_t p = out.data();
  std::uint32_t half = n / 2;
  void* args[] = {&p, &half};
  cutlet::Graph g = cutlet::Graph::capture(s, [&] {
    EXPECT_TRUE(cutlet::Graph::is_capturing(s));
    ASSERT_EQ(foreign_fill(), 0);
    cutlet::launch(s, m.function("write42"), {.grid = cutlet::ceil_div(half, 64), .block = 64}, args);
    copy.copy_from(s, out);
  });
  EXPECT_FALSE(cutlet::Graph::is_capturing(s));
  EXPECT_EQ(g.node_count(), 3u);
  EXPECT_EQ(g.kernel_nodes().size(), 1u);
  // Nothing ran during the capture.
  copy.fill_bytes(s, 0);
  s.synchronize();
  cutlet::GraphExec exec = g.instantiate();
  for (int replay = 0; replay < 3; ++replay) {
    copy.fill_bytes(s, 0);
    exec.launch(s);
    const auto host = copy.to_host(s);
    ASSERT_EQ(host[0], 42u) << "replay " << replay;
    ASSERT_EQ(host[half - 1], 42u + half - 1);
    ASSERT_EQ(host[half], 7u);
    ASSERT_EQ(host[n - 1], 7u);
  }
  // A captured kernel node can be updated too.
  half = n;
  exec.update_kernel(g.kernel_nodes().front(), m.function("write42"), {.grid = cutlet::ceil_div(n, 64), .block = 64}, args);
  exec.launch(s);
  EXPECT_EQ(copy.to_host(s)[n - 1], 42u + n - 1);
}

TEST(Graph, ThrowingCaptureIsAbandoned) {
  CUTLET_REQUIRE_GPU();
  cutlet::Stream s(cutlet::Device(0));
  cutlet::Buffer<int> b(10, s.device());
  EXPECT_THROW(cutlet::Graph::capture(s, [&] {
                 b.fill_bytes(s, 1);
                 throw std::runtime_error("stop");
               }),
               std::runtime_error);
  EXPECT_FALSE(cutlet::Graph::is_capturing(s));
  b.fill_bytes(s, 2);  // the stream works normally again
  EXPECT_EQ(b.to_host(s)[0], 0x02020202);
  EXPECT_CONTAINS(cutlet::test::error_message([&] { (void)cutlet::Graph::end_capture(s); }), "cuStreamEndCapture");
  EXPECT_CONTAINS(cutlet::test::error_message(
                      [&] { cutlet::Graph::begin_capture(cutlet::Stream::wrap(nullptr, s.device())); }),
                  "legacy default stream");
}

TEST(Graph, SynchronizingDuringACaptureInvalidatesIt) {
  CUTLET_REQUIRE_GPU();
  cutlet::Stream s(cutlet::Device(0));
  cutlet::Buffer<int> b(10, s.device());
  b.fill_bytes(s, 3);
  s.synchronize();
  cutlet::Graph::begin_capture(s);
  b.fill_bytes(s, 1);
  EXPECT_THROW(s.synchronize(), cutlet::CudaError);  // the fill has not run: it is recorded
  const std::string msg = cutlet::test::error_message([&] { (void)cutlet::Graph::end_capture(s); });
  EXPECT_CONTAINS(msg, "CUDA_ERROR_STREAM_CAPTURE_INVALIDATED");
  EXPECT_CONTAINS(msg, "invalidated it");
  EXPECT_FALSE(cutlet::Graph::is_capturing(s));
  EXPECT_EQ(b.to_host(s)[9], 0x03030303);  // the recorded fill never ran
}

TEST(Graph, DependenciesOrderTheNodesOfAGraph) {
  CUTLET_REQUIRE_GPU();
  cutlet::Stream s(cutlet::Device(0));
  const cutlet::test::TestFunctions m(s.device());
  const std::uint32_t n = 777;
  cutlet::Buffer<std::uint32_t> a(n, s.device()), b(n, s.device()), c(n, s.device());
  c.fill_bytes(s, 0xff);
  s.synchronize();
  // Made in the reverse of the order they must run in: copy b -> c after copy a -> b after the
  // kernel writes a.
  cutlet::Graph g(s.device());
  const cutlet::GraphNode second = g.add_memcpy(c.data(), b.data(), n * 4);
  const cutlet::GraphNode first = g.add_memcpy(b.data(), a.data(), n * 4);
  std::uint64_t p = a.data();
  std::uint32_t count = n;
  void* args[] = {&p, &count};
  const cutlet::GraphNode write = g.add_kernel(m.function("write42"), {.grid = cutlet::ceil_div(n, 64), .block = 64}, args);
  const cutlet::GraphNode join = g.add_empty(std::vector{second});
  g.add_dependency(first, second);
  g.add_dependency(write, first);
  EXPECT_EQ(g.node_count(), 4u);
  cutlet::GraphExec exec = g.instantiate();
  exec.launch(s);
  const auto host = c.to_host(s);
  for (std::uint32_t i = 0; i < n; ++i) ASSERT_EQ(host[i], 42 + i) << i;
  // An edge that closes a cycle is refused, at the latest when the graph is instantiated.
  EXPECT_THROW(
      {
        g.add_dependency(join, write);
        (void)g.instantiate();
      },
      cutlet::Error);
}

}  // namespace
