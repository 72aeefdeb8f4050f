// Kernels that fault: the error names the kernel and the line that launched it, later calls
// on the poisoned context are refused with the same cause, and Device::reset() says that only
// a new process can use the device (the CUDA driver makes no new context after a sticky
// fault). Each scenario poisons its process's context, so it runs in a child process; the
// parent goes on using the GPU. On the CPU device the same faults are reported and poison
// nothing.
#include <gtest/gtest.h>

#include <cutlet/cutlet.h>

#include <cstdint>
#include <string>
#include <vector>

#include "child_process.h"
#include "gpu_test_support.h"
#include "runtime/runtime_test_support.h"

using namespace cutlet;

namespace {

constexpr const char* kFile = "fault_isolation_gpu_test.cpp:";

/// The index of `y` whose element lies at device address 16, which no allocation covers: a
/// store there is an illegal address.
std::int64_t index_of_address_16(const Buffer<float>& y) {
  return 4 - static_cast<std::int64_t>(y.data() / sizeof(float));
}

auto make_scale() {
  return kernel(
      [](Ptr<float> y, f32 a, i32 n) {
        i32 i = block_idx().x * block_dim().x + thread_idx().x;
        if_(i < n, [&] { y[i] = a * y[i]; });
      },
      {.name = "scale_after_reset"});
}

/// A normal kernel on a fresh stream gives the right answer.
void expect_device_works() {
  auto scale = make_scale();
  Stream s;
  const int n = 1000;
  std::vector<float> host(n);
  for (int i = 0; i < n; ++i) host[i] = static_cast<float>(i);
  Buffer<float> y(s, host);
  scale.launch(s, {.grid = ceil_div(n, 128), .block = 128}, y, 3.0f, n);
  const auto out = y.to_host(s);
  for (int i = 0; i < n; ++i) ASSERT_EQ(out[i], 3.0f * i) << i;
}

/// Expects that `f` is refused as a repeat of the fault `first`.
template <class F>
void expect_refused(const ContextFaultError& first, F&& f) {
  try {
    f();
    ADD_FAILURE() << "a call on the poisoned context was not refused";
  } catch (const ContextFaultError& e) {
    EXPECT_TRUE(e.repeated());
    EXPECT_EQ(e.code(), first.code());
    EXPECT_EQ(e.cause(), first.what());
    EXPECT_EQ(e.kernel(), first.kernel());
    EXPECT_EQ(e.launched_at(), first.launched_at());
    EXPECT_CONTAINS(e.what(), "poisoned");
  }
}

/// Expects Device::reset() to be refused after a sticky fault, naming the way out, with the
/// device left poisoned.
void expect_reset_refused(const Device& device) {
  try {
    device.reset();
    ADD_FAILURE() << "the driver made a new context after a sticky fault";
  } catch (const CudaError& e) {
    EXPECT_CONTAINS(e.what(), "the process must exit");
  }
  EXPECT_TRUE(device.poisoned());
  ASSERT_TRUE(device.fault());
}

// The child scenarios: run only by the tests below, in a process of their own.

TEST(FaultIsolationChild, DISABLED_OutOfBoundsWrite) {
  auto oob = kernel(
      [](Ptr<float> y, i64 at) { if_(thread_idx().x == 0, [&] { y[at] = 1.0f; }); },
      {.name = "writes_out_of_bounds"});
  Device device(0);
  Stream s(device);
  Buffer<float> y(s, std::vector<float>(256, 0.0f));
  const int line = __LINE__; oob.launch(s, {.grid = 1, .block = 32}, y, index_of_address_16(y));
  std::shared_ptr<ContextFaultError> first;
  try {
    s.synchronize();
    FAIL() << "writing to address 16 did not fault";
  } catch (const ContextFaultError& e) {
    first = std::make_shared<ContextFaultError>(e);
  }
  SCOPED_TRACE(first->what());
  EXPECT_FALSE(first->repeated());
  EXPECT_EQ(first->device(), 0);
  EXPECT_EQ(first->kernel(), "writes_out_of_bounds");
  EXPECT_CONTAINS(first->launched_at(), kFile + std::to_string(line));
  EXPECT_CONTAINS(first->what(), "cuStreamSynchronize");
  EXPECT_CONTAINS(first->what(), "'writes_out_of_bounds' (launched at ");
  EXPECT_CONTAINS(first->what(), kFile + std::to_string(line));
  EXPECT_CONTAINS(first->what(), "the process must exit");
  EXPECT_TRUE(device.poisoned());
  ASSERT_TRUE(device.fault());
  EXPECT_EQ(device.fault()->what(), std::string(first->what()));

  // Everything on the context now fails fast with the same cause.
  expect_refused(*first, [&] { s.synchronize(); });
  expect_refused(*first, [&] { Buffer<float> more(16, device); });
  expect_refused(*first, [&] { oob.launch(s, {.grid = 1, .block = 32}, y, std::int64_t{0}); });
  expect_refused(*first, [&] { Stream another(device); });
  expect_refused(*first, [&] { device.synchronize(); });

  expect_reset_refused(device);
}

TEST(FaultIsolationChild, DISABLED_FailedAssertSeenByDeviceSynchronize) {
  auto traps = kernel([](Ptr<int> x) { assert_(x[0] == 12345, "x[0] is 12345"); }, {.name = "traps"});
  Device device(0);
  Stream a(device), b(device);
  Buffer<int> x(a, std::vector<int>{0});
  a.synchronize();
  expect_device_works();  // another kernel launched earlier, on other streams
  const int line = __LINE__; traps.launch(b, {.grid = 1, .block = 1}, x);
  std::shared_ptr<ContextFaultError> first;
  try {
    device.synchronize();
    FAIL() << "a failed assert_ raised nothing";
  } catch (const ContextFaultError& e) {
    first = std::make_shared<ContextFaultError>(e);
  }
  SCOPED_TRACE(first->what());
  EXPECT_EQ(first->name(), "CUDA_ERROR_ASSERT");
  // cuCtxSynchronize belongs to no stream: the most recent launch on the device is named.
  EXPECT_EQ(first->kernel(), "traps");
  EXPECT_CONTAINS(first->what(), kFile + std::to_string(line));
  EXPECT_CONTAINS(first->what(), "assertion");
  expect_refused(*first, [&] { Event e(device); });
  expect_refused(*first, [&] { a.query(); });
  expect_refused(*first, [&] { (void)x.to_host(a); });

  expect_reset_refused(device);
}

TEST(FaultIsolationChild, DISABLED_FaultSurfacesAtTheNextLaunchOnTheStream) {
  auto oob = kernel([](Ptr<float> y, i64 at) { y[at] = 2.0f; }, {.name = "faults_first"});
  auto scale = make_scale();
  Device device(0);
  Stream s(device);
  Buffer<float> y(s, std::vector<float>(64, 1.0f));
  scale.launch(s, {.grid = 1, .block = 64}, y, 1.0f, 64);  // loaded before the fault
  s.synchronize();
  const int line = __LINE__; oob.launch(s, {.grid = 1, .block = 1}, y, index_of_address_16(y));
  // Launches keep being queued until the fault is noticed; the error, when it comes, names
  // the faulting kernel if it is still the stream's last, else the one launched after it.
  std::string what;
  for (int i = 0; i < 100000 && what.empty(); ++i) {
    try {
      scale.launch(s, {.grid = 1, .block = 64}, y, 1.0f, 64);
      if (i % 64 == 63) s.synchronize();
    } catch (const ContextFaultError& e) {
      what = e.what();
      EXPECT_FALSE(e.repeated());
      EXPECT_TRUE(e.kernel() == "faults_first" || e.kernel() == "scale_after_reset") << e.kernel();
      if (e.kernel() == "faults_first") {
        EXPECT_CONTAINS(e.launched_at(), kFile + std::to_string(line));
      }
    }
  }
  ASSERT_FALSE(what.empty()) << "the fault never surfaced";
  EXPECT_CONTAINS(what, "the last kernel launched on this stream was");
  expect_reset_refused(device);
}

// The same scenarios on the CPU device, where a fault poisons nothing: the hardware's fault (a
// write where nothing is mapped) or the failed assert_ is reported once, as a KernelError
// naming the kernel and the line that launched it, and the device goes on. They too run in a
// child process, so that a fault cutlet failed to catch would end the child, not the suite.

/// Expects `synchronize` to throw KernelError `name` for kernel `kernel` launched at `line` of
/// this file, and returns its what().
template <class F>
std::string expect_kernel_error(F&& synchronize, const char* name, const std::string& kernel, int line) {
  try {
    synchronize();
  } catch (const KernelError& e) {
    EXPECT_EQ(e.name(), name) << e.what();
    EXPECT_CONTAINS(e.what(), "kernel '" + kernel + "' (launched at ");
    EXPECT_CONTAINS(e.what(), kFile + std::to_string(line));
    return e.what();
  }
  ADD_FAILURE() << "kernel '" << kernel << "' raised no " << name;
  return {};
}

TEST(FaultIsolationChild, DISABLED_OutOfBoundsWriteOnTheCpu) {
  auto oob = kernel(
      [](Ptr<float> y, i64 at) { if_(thread_idx().x == 0, [&] { y[at] = 1.0f; }); },
      {.name = "writes_out_of_bounds"});
  Device device(0);
  ASSERT_TRUE(device.is_cpu());
  Stream s(device);
  Buffer<float> y(s, std::vector<float>(256, 7.0f));
  const int line = __LINE__; oob.launch(s, {.grid = 1, .block = 32}, y, index_of_address_16(y));
  const std::string what =
      expect_kernel_error([&] { s.synchronize(); }, "CUDA_ERROR_ILLEGAL_ADDRESS", "writes_out_of_bounds", line);
  EXPECT_CONTAINS(what, "a write to address 0x10, where nothing is mapped, in block (0, 0, 0)");
  EXPECT_CONTAINS(what, "CUTLET_CHECK=1");
  EXPECT_FALSE(device.poisoned());
  EXPECT_NO_THROW(s.synchronize());  // reported once
  for (float v : y.to_host(s)) ASSERT_EQ(v, 7.0f);
  expect_device_works();
}

TEST(FaultIsolationChild, DISABLED_FailedAssertOnTheCpuSeenByDeviceSynchronize) {
  auto traps = kernel([](Ptr<int> x) { assert_(x[0] == 12345, "x[0] is 12345"); }, {.name = "traps"});
  Device device(0);
  ASSERT_TRUE(device.is_cpu());
  Stream a(device), b(device);
  Buffer<int> x(a, std::vector<int>{3});
  a.synchronize();
  expect_device_works();
  const int line = __LINE__; traps.launch(b, {.grid = 1, .block = 1}, x);
  EXPECT_CONTAINS(expect_kernel_error([&] { device.synchronize(); }, "CUDA_ERROR_ASSERT", "traps", line),
                  "x[0] is 12345");
  EXPECT_NO_THROW(b.synchronize());  // the device reported it for the stream
  EXPECT_NO_THROW(device.synchronize());
  EXPECT_FALSE(device.poisoned());
  EXPECT_EQ(x.to_host(a)[0], 3);
  expect_device_works();
}

TEST(FaultIsolationChild, DISABLED_FaultOnTheCpuSurfacesAtTheNextSynchronizeAndLaterWorkRuns) {
  auto oob = kernel([](Ptr<float> y, i64 at) { y[at] = 2.0f; }, {.name = "faults_first"});
  auto scale = make_scale();
  Device device(0);
  ASSERT_TRUE(device.is_cpu());
  Stream s(device);
  Buffer<float> y(s, std::vector<float>(64, 1.5f));
  const int line = __LINE__; oob.launch(s, {.grid = 1, .block = 1}, y, index_of_address_16(y));
  for (int i = 0; i < 3; ++i) scale.launch(s, {.grid = 1, .block = 64}, y, 2.0f, 64);  // queued behind it
  expect_kernel_error([&] { s.synchronize(); }, "CUDA_ERROR_ILLEGAL_ADDRESS", "faults_first", line);
  for (float v : y.to_host(s)) ASSERT_EQ(v, 12.0f);  // the launches after the fault ran
}

// The tests: each runs one scenario in a child process and expects it to pass.

void expect_child_passes(const std::string& test) {
  const auto r = cutlet::test::run_child(test, {});
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_CONTAINS(r.output, "[  PASSED  ] 1 test");
  expect_device_works();  // this process was not touched by the child's fault
}

TEST(FaultIsolationGpu, OutOfBoundsWriteNamesKernelAndLineAndHarmsOnlyItsProcess) {
  CUTLET_REQUIRE_GPU();
  expect_child_passes(Device::cpu_selected() ? "FaultIsolationChild.DISABLED_OutOfBoundsWriteOnTheCpu"
                                             : "FaultIsolationChild.DISABLED_OutOfBoundsWrite");
}

TEST(FaultIsolationGpu, FailedAssertNamesKernelAndLineAndHarmsOnlyItsProcess) {
  CUTLET_REQUIRE_GPU();
  expect_child_passes(Device::cpu_selected() ? "FaultIsolationChild.DISABLED_FailedAssertOnTheCpuSeenByDeviceSynchronize"
                                             : "FaultIsolationChild.DISABLED_FailedAssertSeenByDeviceSynchronize");
}

TEST(FaultIsolationGpu, FaultSurfacingLaterNamesTheKernelThatFaulted) {
  CUTLET_REQUIRE_GPU();
  expect_child_passes(Device::cpu_selected()
                          ? "FaultIsolationChild.DISABLED_FaultOnTheCpuSurfacesAtTheNextSynchronizeAndLaterWorkRuns"
                          : "FaultIsolationChild.DISABLED_FaultSurfacesAtTheNextLaunchOnTheStream");
}

}  // namespace
