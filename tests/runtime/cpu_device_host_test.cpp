// The CPU device (Device::cpu()): streams, events, buffers and memory resources in host
// memory, and kernels launched on it with the same calls as on a GPU (per-thread kernels
// with shared memory, barriers and shuffles; tile kernels with dots and epilogues), against
// C++ references on random data with the outputs poisoned first.
#include <gtest/gtest.h>

#include <cutlet/cutlet.h>
#include <cutlet/runtime/dlpack.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "kernel_test_support.h"
#include "runtime/bias_gelu_gemm_kernel.h"

using namespace cutlet;

namespace {

/// n random floats in [lo, hi).
std::vector<float> random_floats(std::size_t n, unsigned seed, float lo = -1.0f, float hi = 1.0f) {
  return test::random_vector<float>(n, seed, lo, hi);
}

TEST(CpuDevice, DescribesItselfAndNeedsNoDriver) {
  const Device cpu = Device::cpu();
  EXPECT_TRUE(cpu.is_cpu());
  EXPECT_EQ(cpu.ordinal(), Device::kCpuOrdinal);
  EXPECT_NE(cpu.name().find("CPU"), std::string::npos);
  EXPECT_GE(cpu.sm_count(), 1);
  EXPECT_EQ(cpu.limits().max_threads_per_block, 1024);
  EXPECT_EQ(cpu.limits().warp_size, 32);
  EXPECT_GT(cpu.total_memory(), 0u);
  EXPECT_EQ(cpu.generation(), 0u);
  EXPECT_FALSE(cpu.poisoned());
  cpu.synchronize();
  EXPECT_EQ(cpu.attribute(1), 1024);  // CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, modelled
  EXPECT_THROW(cpu.attribute(108), Error);  // MAX_PERSISTING_L2_CACHE_SIZE: not
}

TEST(CpuDevice, BuffersCopyFillAndFreeInHostMemory) {
  Stream s(Device::cpu());
  EXPECT_TRUE(s.owning());
  EXPECT_TRUE(s.query());
  const auto h = random_floats(1000, 1);
  Buffer<float> a(s, h);
  EXPECT_TRUE(a.device().is_cpu());
  EXPECT_EQ(a.data() % 256, 0u);
  EXPECT_EQ(a.to_host(s), h);
  Buffer<float> b(1000, s);  // stream-ordered, from the CPU device's default pool
  b.copy_from(s, a);
  EXPECT_EQ(b.to_host(s), h);
  EXPECT_EQ(b.host_span()[17], h[17]);
  b.fill_bytes(s, 0);
  EXPECT_EQ(b.to_host(s), std::vector<float>(1000, 0.0f));
  auto pool = std::make_shared<PoolMemoryResource>(Device::cpu());
  {
    Buffer<float> c(256, s, pool);
    EXPECT_EQ(pool->usage().used, 1024u);
  }
  s.synchronize();  // freed on s: back in the pool once s reaches the free, as on a GPU
  EXPECT_EQ(pool->usage().used, 0u);
  EXPECT_EQ(pool->usage().reserved, 0u);  // a new pool's threshold is 0: nothing kept
  EXPECT_EQ(pool->usage().used_high, 1024u);
  a.free();
  EXPECT_THROW(a.to_host(s), Error);
}

TEST(CpuDevice, StreamsRunTheirWorkInOrderOnThreadsOfTheirOwn) {
  Stream s(Device::cpu());
  std::atomic<bool> release{false};
  std::vector<int> order;
  s.launch_host_function([&] {
    while (!release.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    order.push_back(1);
  });
  Buffer<int> b(s, std::vector<int>(1000, 7));
  b.fill_bytes(s, 0);  // queued behind the blocked host function
  s.launch_host_function([&] { order.push_back(2); });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_FALSE(s.query());
  release = true;
  EXPECT_EQ(b.to_host(s), std::vector<int>(1000, 0));
  EXPECT_EQ(order, (std::vector<int>{1, 2}));
  EXPECT_TRUE(s.query());
}

TEST(CpuDevice, EventsCompleteWhenTheirStreamReachesThemAndTime) {
  Stream s(Device::cpu()), other(Device::cpu());
  Event start(Device::cpu()), stop(Device::cpu());
  std::atomic<bool> release{false};
  s.launch_host_function([&] {
    while (!release.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  });
  start.record(s);
  Buffer<float> b(s, std::vector<float>(1 << 20, 1.0f));
  stop.record(s);
  EXPECT_FALSE(stop.query());
  // `other` waits for `stop`: its copy runs after s's fill of b.
  Buffer<float> c(1 << 20, other);
  other.wait(stop);
  c.copy_from(other, b);
  release = true;
  stop.synchronize();
  EXPECT_TRUE(stop.query());
  EXPECT_GE(Event::elapsed_ms(start, stop), 0.0f);
  EXPECT_EQ(c.to_host(other), std::vector<float>(1 << 20, 1.0f));
  Event untimed(Device::cpu(), false);
  untimed.record(s);
  EXPECT_THROW(Event::elapsed_ms(start, untimed), Error);
}

TEST(CpuDevice, SaxpyLaunchesWithTheSameCall) {
  auto saxpy = kernel([](f32 a, Ptr<float> x, Ptr<float> y, i32 n) {
    i32 i = block_idx().x * block_dim().x + thread_idx().x;
    if_(i < n, [&] { y[i] = a * x[i] + y[i]; });
  }, {.name = "cpu_saxpy"});
  Stream s(Device::cpu());
  const int n = 100003;
  const auto hx = random_floats(n, 2), hy = random_floats(n, 3);
  Buffer<float> x(s, hx), y(s, hy);
  saxpy.launch(s, {.grid = ceil_div(n, 256), .block = 256}, 2.5f, x, y, n);
  const auto out = y.to_host(s);
  for (int i = 0; i < n; ++i) ASSERT_NEAR(out[i], 2.5f * hx[i] + hy[i], 1e-5f) << i;
  ASSERT_TRUE(saxpy.last_specialization());
  EXPECT_TRUE(saxpy.last_specialization()->function.device().is_cpu());
}

TEST(CpuDevice, ABlockReductionWithSharedMemoryBarriersAndShufflesIsExact) {
  auto block_sum = kernel([](Ptr<int> out, Ptr<int> in, i32 n) {
    auto partial = shared_array<int>(32);
    i32 i = block_idx().x * block_dim().x + thread_idx().x;
    Var<int> v = select(i < n, in[min(i, n - 1)], 0);
    for (int o = 16; o > 0; o /= 2) v = v + shfl_down_sync(0xffffffffu, v, o);
    if_(thread_idx().x % 32 == 0, [&] { partial[thread_idx().x / 32] = v; });
    syncthreads();
    if_(thread_idx().x < 32, [&] {
      Var<int> w = select(thread_idx().x < block_dim().x / 32, partial[thread_idx().x], 0);
      for (int o = 16; o > 0; o /= 2) w = w + shfl_down_sync(0xffffffffu, w, o);
      if_(thread_idx().x == 0, [&] { out[block_idx().x] = w; });
    });
  }, {.name = "cpu_block_sum"});
  Stream s(Device::cpu());
  const int n = 50001, blocks = ceil_div(n, 512);
  std::vector<int> h(n);
  std::mt19937 rng(4);
  for (int& v : h) v = static_cast<int>(rng() % 2001) - 1000;
  Buffer<int> in(s, h);
  Buffer<int> out(s, std::vector<int>(blocks, -7));
  block_sum.launch(s, {.grid = blocks, .block = 512}, out, in, n);
  const auto got = out.to_host(s);
  for (int b = 0; b < blocks; ++b) {
    int want = 0;
    for (int i = b * 512; i < std::min(n, (b + 1) * 512); ++i) want += h[i];
    ASSERT_EQ(got[b], want) << "block " << b;
  }
}

TEST(CpuDevice, ABf16MatmulWithABiasAndGeluEpilogueMatchesTheCpp) {
  static constexpr int BM = 32, BN = 64, BK = 32;
  auto gemm = test::bias_gelu_gemm_kernel<BM, BN, BK, bfloat16>("cpu_gelu_gemm");
  Stream s(Device::cpu());
  const int M = 77, N = 130, K = 72;
  auto fa = random_floats(std::size_t(M) * K, 5), fb = random_floats(std::size_t(K) * N, 6), fbias = random_floats(N, 7);
  std::vector<bfloat16> ha(fa.begin(), fa.end()), hb(fb.begin(), fb.end());
  Buffer<bfloat16> a(s, ha), b(s, hb), c(s, std::vector<bfloat16>(std::size_t(M) * N, bfloat16(-9.0f)));
  Buffer<float> bias(s, fbias);
  gemm.launch(s, {.grid = {ceil_div(M, BM), ceil_div(N, BN)}}, tensor(c, {M, N}), tensor(a, {M, K}), tensor(b, {K, N}),
              tensor(bias, {N}));
  const auto got = c.to_host(s);
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double x = fbias[j];
      for (int k = 0; k < K; ++k) x += double(float(ha[i * K + k])) * double(float(hb[k * N + j]));
      const double want = 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)));
      ASSERT_NEAR(float(got[i * N + j]), want, 1e-2 * (1.0 + std::fabs(want))) << i << ", " << j;
    }
}

/// Rounds of a stencil over the whole grid, each reading what the others wrote in the last:
/// grid_sync() between them, a block barrier and shared memory inside each.
auto grid_rounds_kernel(const char* name) {
  // ab holds two arrays of n: round r reads the one at (r % 2) * n and writes the other.
  return kernel([](Ptr<float> ab, i32 n, i32 rounds) {
    auto staged = shared_array<float>(128);
    i32 first = block_idx().x * block_dim().x + thread_idx().x;
    i32 stride = grid_dim().x * block_dim().x;
    for_range(0, rounds, [&](i32 r) {
      i32 src = (r % 2) * n, dst = n - src;
      for_range(first, n, stride, [&](i32 i) {
        staged[thread_idx().x] = ab[src + (i + 1 + 7 * r) % n];
        syncthreads();
        ab[dst + i] = ab[src + i] * 0.5f + staged[(thread_idx().x + 1) % block_dim().x];
        syncthreads();
      });
      grid_sync();
    });
  }, {.name = name});
}

TEST(CpuDevice, GridSyncOrdersRoundsOfACooperativeGrid) {
  auto k = grid_rounds_kernel("cpu_grid_rounds");
  Stream s(Device::cpu());
  const int rounds = 5;
  for (int n : {128 * 37, 1000 * 128}) {  // whole blocks' worth per thread-stride step
    const auto h = random_floats(n, 11);
    std::vector<float> both(h);
    both.resize(2 * std::size_t(n), -3.0f);
    Buffer<float> ab(s, both);
    const int grid = 2 * Device::cpu().sm_count() + 1;
    k.launch(s, {.grid = grid, .block = 128, .cooperative = true}, ab, n, rounds);
    // The reference: thread t of block g stages src[(i + 1 + 7r) % n] for its i, and reads
    // the staged value of the next thread of its block (wrapping within the block).
    std::vector<float> src = h, dst(n);
    const int stride = grid * 128;
    for (int r = 0; r < rounds; ++r) {
      for (int base = 0; base < n; base += stride)
        for (int i = base; i < std::min(n, base + stride); ++i) {
          const int t = (i - base) % 128, next = (t + 1) % 128;
          const int j = i - t + next;  // the element the next thread of the block handles
          dst[i] = src[i] * 0.5f + src[(j + 1 + 7 * r) % n];
        }
      src.swap(dst);
    }
    const auto got = ab.to_host(s);
    const std::size_t at = rounds % 2 == 0 ? 0 : n;
    for (int i = 0; i < n; ++i) ASSERT_NEAR(got[at + i], src[i], 1e-5f * (1 + std::fabs(src[i]))) << n << ": " << i;
  }
  // The largest cooperative grid runs; one block more is refused before it could hang.
  const long long most = max_cooperative_blocks(k.last_specialization()->function, 128);
  EXPECT_EQ(most, static_cast<long long>(Device::cpu().sm_count()) * (Device::cpu().properties().max_threads_per_sm / 128));
  const int n = 4099 * 128;
  Buffer<float> ab(s, random_floats(2 * std::size_t(n), 12));
  k.launch(s, {.grid = static_cast<int>(most), .block = 128, .cooperative = true}, ab, n, 2);
  s.synchronize();
  try {
    k.launch(s, {.grid = static_cast<int>(most) + 1, .block = 128, .cooperative = true}, ab, n, 2);
    FAIL() << "a cooperative grid larger than the CPU keeps resident was launched";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("at most " + std::to_string(most)), std::string::npos) << e.what();
  }
}

TEST(CpuDevice, AGridSyncThatSomeBlocksNeverReachIsReportedNotHung) {
  auto k = kernel([](Ptr<int> out) {
    if_(block_idx().x != 0, [&] { grid_sync(); });  // block 0 returns without it
    out[block_idx().x] = 1;
  }, {.name = "cpu_grid_sync_skipped"});
  Stream s(Device::cpu());
  Buffer<int> out(4, s);
  try {
    k.launch(s, {.grid = 4, .block = 64, .cooperative = true}, out);
    s.synchronize();
    FAIL() << "blocks waiting at a grid_sync() block 0 never reaches did not throw";
  } catch (const Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("3 blocks wait at grid_sync()"), std::string::npos) << m;
    EXPECT_NE(m.find("returned without reaching (the first: block (0, 0, 0))"), std::string::npos) << m;
  }
}

TEST(CpuDevice, ThreadsSplitBetweenGridSyncAndABarrierAreReported) {
  auto k = kernel([](Ptr<int> out) {
    if_(thread_idx().x == 0, [&] { grid_sync(); }, [&] { syncthreads(); });
    out[block_idx().x * block_dim().x + thread_idx().x] = 1;
  }, {.name = "cpu_grid_sync_split"});
  Stream s(Device::cpu());
  Buffer<int> out(2 * 64, s);
  try {
    k.launch(s, {.grid = 2, .block = 64, .cooperative = true}, out);
    s.synchronize();
    FAIL() << "threads waiting at different barriers did not throw";
  } catch (const Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("can make no progress"), std::string::npos) << m;
    EXPECT_NE(m.find("1 thread waits at grid_sync()"), std::string::npos) << m;
    EXPECT_NE(m.find("63 threads wait at a barrier"), std::string::npos) << m;
  }
  // A grid of one block synchronizes with itself.
  auto one = kernel([](Ptr<int> a, Ptr<int> b) {
    a[thread_idx().x] = thread_idx().x;
    grid_sync();
    b[thread_idx().x] = a[(thread_idx().x + 1) % 64] + 100;
  }, {.name = "cpu_grid_sync_one_block"});
  Buffer<int> a(s, std::vector<int>(64, -5)), b(s, std::vector<int>(64, -5));
  one.launch(s, {.grid = 1, .block = 64, .cooperative = true}, a, b);
  const auto got = b.to_host(s);
  for (int t = 0; t < 64; ++t) EXPECT_EQ(got[t], (t + 1) % 64 + 100) << t;
}

TEST(CpuDevice, HostArraysPassThroughDLPackWithoutCopies) {
  auto scale = kernel([](Ptr<float> y, f32 a, i32 n) {
    i32 i = block_idx().x * block_dim().x + thread_idx().x;
    if_(i < n, [&] { y[i] = a * y[i]; });
  }, {.name = "cpu_dlpack_scale"});
  Stream s(Device::cpu());
  // A host array as NumPy or a CPU tensor of PyTorch exports it (kDLCPU).
  const int n = 1003;
  std::vector<float> host = random_floats(n, 21), want = host;
  for (float& v : want) v *= -2.0f;
  std::int64_t shape = n;
  bool deleted = false;
  auto* managed = new DLManagedTensor{};
  managed->dl_tensor = DLTensor{host.data(), DLDevice{kDLCPU, 0}, 1, dlpack_dtype<float>(), &shape, nullptr, 0};
  managed->manager_ctx = &deleted;
  managed->deleter = [](DLManagedTensor* m) {
    *static_cast<bool*>(m->manager_ctx) = true;
    delete m;
  };
  {
    DLPackTensor imported(managed);
    EXPECT_TRUE(imported.device().is_cpu());
    scale.launch(s, {.grid = ceil_div(n, 128), .block = 128}, imported.buffer<float>(), -2.0f, n);
    s.synchronize();
  }
  EXPECT_TRUE(deleted);
  EXPECT_EQ(host, want);  // written in place
  // A buffer of the CPU device leaves as host memory, readable where it is.
  Buffer<float> b(s, want);
  s.synchronize();  // the copy into b is queued on s
  const auto* address = reinterpret_cast<const float*>(b.data());
  DLManagedTensorVersioned* exported = to_dlpack_versioned(std::move(b), {n});
  EXPECT_EQ(exported->dl_tensor.device.device_type, kDLCPU);
  EXPECT_EQ(exported->dl_tensor.data, address);
  EXPECT_EQ(std::vector<float>(address, address + n), want);
  exported->deleter(exported);
}

TEST(CpuDevice, GpuOnlyLaunchFeaturesAreRefusedWithAReason) {
  auto k = kernel([](Ptr<float> y) { y[thread_idx().x] = 1.0f; }, {.name = "cpu_refused"});
  Stream s(Device::cpu());
  Buffer<float> y(32, s);
  try {
    k.launch(s, {.grid = 2, .block = 32, .cluster = 2}, y);
    FAIL() << "a cluster launch on the CPU device did not throw";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("cluster"), std::string::npos) << e.what();
  }
  try {
    k.launch(s, {.grid = 1, .block = 2048}, y);
    FAIL() << "a block of 2048 threads did not throw";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("1024"), std::string::npos) << e.what();
  }
}

TEST(CpuDevice, AKernelFailingOnTheCpuIsReportedAtTheNextSynchronize) {
  auto k = kernel([](Ptr<int> y) {
    assert_(thread_idx().x < 5, "thread index too large");
    y[thread_idx().x] = 1;
  }, {.name = "cpu_assert"});
  Stream s(Device::cpu());
  Buffer<int> y(32, s);
  try {
    k.launch(s, {.grid = 1, .block = 32}, y);
    s.synchronize();
    FAIL() << "a failed assert_ did not throw";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("thread index too large"), std::string::npos) << e.what();
  }
}

TEST(CpuDevice, AFailedKernelIsReportedByAnEventRecordedAfterIt) {
  auto k = kernel([](Ptr<int> y) {
    assert_(thread_idx().x < 5, "thread index too large");
    y[thread_idx().x] = 1;
  }, {.name = "cpu_assert_event"});
  Stream s(Device::cpu());
  Buffer<int> y(32, s);
  Event before(Device::cpu()), after(Device::cpu());
  before.record(s);
  k.launch(s, {.grid = 1, .block = 32}, y);
  after.record(s);
  EXPECT_NO_THROW(before.synchronize());  // recorded before the kernel ran
  try {
    after.synchronize();
    FAIL() << "the event recorded after a failed kernel reported nothing";
  } catch (const KernelError& e) {
    EXPECT_EQ(e.name(), "CUDA_ERROR_ASSERT");
    EXPECT_NE(std::string(e.what()).find("cpu_assert_event"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)after.query(), KernelError);
  EXPECT_THROW(s.synchronize(), KernelError);  // the stream reports it too, once
  s.synchronize();
  Event later(Device::cpu());
  later.record(s);
  EXPECT_NO_THROW(later.synchronize());  // work after the report is clean
}

// A hardware fault in a kernel (an integer division by zero, which x86-64 traps; a write
// where nothing is mapped) stops its launch with an error naming it, and the process and the
// device go on. Threads run as fibers (line_info) are caught as well.
TEST(CpuDevice, AHardwareFaultStopsOnlyItsLaunch) {
  auto divide = kernel([](Ptr<int> y, Ptr<int> x, i32 d) {
    i32 i = thread_idx().x;
    y[i] = x[i] / d;
  }, {.name = "cpu_divides"});
  Stream s(Device::cpu());
  Buffer<int> x(s, std::vector<int>(64, 90)), y(s, std::vector<int>(64, -1));
  divide.launch(s, {.grid = 1, .block = 64}, y, x, 0);
  try {
    s.synchronize();
#if defined(__x86_64__)
    FAIL() << "an integer division by zero did not fault";
#endif
  } catch (const KernelError& e) {
    EXPECT_EQ(e.name(), "CUDA_ERROR_LAUNCH_FAILED");
    const std::string m = e.what();
    EXPECT_NE(m.find("kernel 'cpu_divides' on the CPU made an integer division by zero, in block (0, 0, 0)"),
              std::string::npos) << m;
  }
  divide.launch(s, {.grid = 1, .block = 64}, y, x, 9);
  for (int v : y.to_host(s)) ASSERT_EQ(v, 10);

  auto faults = kernel([](Ptr<float> y, i64 at) { y[at] = 1.0f; }, {.name = "cpu_faults_in_fibers", .line_info = true});
  Buffer<float> f(s, std::vector<float>(32, 1.5f));
  const auto at_address_16 = 4 - static_cast<std::int64_t>(f.data() / sizeof(float));
  for (int round = 0; round < 2; ++round) {  // the second launch's fibers start fresh
    faults.launch(s, {.grid = 3, .block = 32}, f, at_address_16);
    try {
      s.synchronize();
      FAIL() << "a write to address 16 did not fault";
    } catch (const KernelError& e) {
      EXPECT_EQ(e.name(), "CUDA_ERROR_ILLEGAL_ADDRESS");
      const std::string m = e.what();
      EXPECT_NE(m.find("cpu_faults_in_fibers' on the CPU made a write to address 0x10, where nothing is mapped"),
                std::string::npos) << m;
    }
  }
  faults.launch(s, {.grid = 1, .block = 32}, f, std::int64_t{3});
  const std::vector<float> out = f.to_host(s);
  for (int i = 0; i < 32; ++i) ASSERT_EQ(out[i], i == 3 ? 1.0f : 1.5f) << i;
}

TEST(CpuDevice, ACaptureFailsOnWhatItCannotRecordAndTheWorkStillRuns) {
  Stream s(Device::cpu());
  Buffer<int> b(16, s);
  b.fill_bytes(s, 0);
  s.synchronize();
  Event e(Device::cpu());
  Graph::begin_capture(s);
  b.fill_bytes(s, 1);  // recorded
  e.record(s);         // not recordable: runs, and fails the capture
  try {
    (void)Graph::end_capture(s);
    FAIL() << "a capture with an event record in it did not fail";
  } catch (const CudaError& err) {
    EXPECT_EQ(err.name(), "CUDA_ERROR_STREAM_CAPTURE_INVALIDATED");
    EXPECT_NE(std::string(err.what()).find("an event record"), std::string::npos) << err.what();
  }
  EXPECT_FALSE(Graph::is_capturing(s));
  e.synchronize();
  EXPECT_EQ(b.to_host(s)[0], 0);  // the recorded fill never ran
  // The kinds of the CPU device's memory, as pointer_info reports them.
  Buffer<int> pinned(8, std::make_shared<PinnedMemoryResource>(Device::cpu()));
  Buffer<int> managed(8, std::make_shared<ManagedMemoryResource>(Device::cpu()));
  EXPECT_EQ(pointer_info(pinned.data()).kind, MemoryKind::pinned_host);
  EXPECT_EQ(pointer_info(managed.data() + 4).kind, MemoryKind::managed);
  EXPECT_EQ(pointer_info(b.data()).kind, MemoryKind::device);
  EXPECT_EQ(pointer_info(b.data()).device, Device::kCpuOrdinal);
  int on_stack = 0;
  EXPECT_FALSE(pointer_info(reinterpret_cast<std::uintptr_t>(&on_stack)).known);
}

}  // namespace
