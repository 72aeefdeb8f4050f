// Loading PTX into a module, looking up kernels and reading their attributes (needs a GPU).
#include <gtest/gtest.h>

#include <string>
#include <utility>

#include "../gpu_test_support.h"
#include "cutlet/runtime/cuda_error.h"
#include "cutlet/runtime/module.h"
#include "runtime_test_support.h"
#include "test_kernels.h"

namespace {

std::span<const char> text(std::string_view s) { return {s.data(), s.size()}; }

TEST(Module, LoadsPtxAndFindsKernels) {
  CUTLET_REQUIRE_CUDA("modules of PTX and cubin images");
  cutlet::Device d(0);
  // A view without the terminating NUL: load() must add one itself.
  cutlet::Module m = cutlet::Module::load(d, text(cutlet::test::kTestPtx));
  EXPECT_NE(m.handle(), nullptr);
  EXPECT_EQ(m.device(), d);
  cutlet::Function f = m.function("write42");
  EXPECT_NE(f.handle(), nullptr);
  EXPECT_EQ(f.name(), "write42");
  EXPECT_EQ(f.device(), d);
  cutlet::Function copy = f;  // a copyable handle
  EXPECT_EQ(copy.handle(), f.handle());
  EXPECT_NE(m.function("reverse_through_shared").handle(), f.handle());
}

TEST(Module, FunctionAttributes) {
  CUTLET_REQUIRE_CUDA("modules of PTX and cubin images");
  cutlet::Device d(0);
  cutlet::Module m = cutlet::Module::load(d, text(cutlet::test::kTestPtx));
  const cutlet::FunctionAttributes a = m.function("write42").attributes();
  EXPECT_GT(a.num_regs, 0);
  EXPECT_LE(a.num_regs, 255);
  EXPECT_EQ(a.shared_size_bytes, 0);
  EXPECT_EQ(a.local_size_bytes, 0);
  EXPECT_EQ(a.max_threads_per_block, 1024);
  EXPECT_EQ(a.ptx_version, 80);
  EXPECT_EQ(a.binary_version, d.compute_capability().sm());
}

TEST(Module, MissingKernelIsNamed) {
  CUTLET_REQUIRE_CUDA("modules of PTX and cubin images");
  cutlet::Module m = cutlet::Module::load(cutlet::Device(0), text(cutlet::test::kTestPtx));
  try {
    (void)m.function("no_such_kernel");
    FAIL() << "function() of a missing kernel did not throw";
  } catch (const cutlet::CudaError& e) {
    EXPECT_EQ(e.name(), "CUDA_ERROR_NOT_FOUND");
    EXPECT_CONTAINS(e.what(), "no_such_kernel");
  }
}

TEST(Module, BadPtxReportsTheDriverLog) {
  CUTLET_REQUIRE_CUDA("modules of PTX and cubin images");
  const std::string bad =
      ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k() { bogus.instruction; }\n";
  try {
    (void)cutlet::Module::load(cutlet::Device(0), text(bad));
    FAIL() << "loading bad PTX did not throw";
  } catch (const cutlet::CudaError& e) {
    EXPECT_EQ(e.name(), "CUDA_ERROR_INVALID_PTX");
    EXPECT_CONTAINS(e.what(), "driver log");
    EXPECT_CONTAINS(e.what(), "bogus");
  }
}

TEST(Module, PtxForANewerArchitectureSuggestsTheDevicesOwn) {
  CUTLET_REQUIRE_CUDA("modules of PTX and cubin images");
  cutlet::Device d(0);
  if (d.compute_capability().sm() >= 120) GTEST_SKIP() << "device is sm_120 or newer";
  const std::string ptx =
      ".version 8.7\n.target sm_120\n.address_size 64\n.visible .entry k() { ret; }\n";
  try {
    (void)cutlet::Module::load(d, text(ptx));
    FAIL() << "loading sm_120 PTX on sm_" << d.compute_capability().sm() << " did not throw";
  } catch (const cutlet::CudaError& e) {
    EXPECT_CONTAINS(e.what(), "sm_" + std::to_string(d.compute_capability().sm()));
  }
}

TEST(Module, GarbageImageThrows) {
  CUTLET_REQUIRE_CUDA("modules of PTX and cubin images");
  // A truncated ELF header is caught before the driver could read past the end.
  const std::string cut = std::string(1, '\x7f') + "ELF this is not a real cubin";
  EXPECT_CONTAINS(cutlet::test::error_message(
                      [&] { (void)cutlet::Module::load(cutlet::Device(0), text(cut)); }),
                  "truncated");
  // A whole header that makes no sense reaches the driver, which rejects it.
  std::string garbage(4096, 'x');
  garbage.replace(0, 4, std::string(1, '\x7f') + "ELF");
  for (std::size_t i = 0x20; i < 0x40; ++i) garbage[i] = '\0';  // no section/program headers
  EXPECT_THROW((void)cutlet::Module::load(cutlet::Device(0), text(garbage)), cutlet::CudaError);
  EXPECT_THROW((void)cutlet::Module::load(cutlet::Device(0), {}), cutlet::Error);
}

TEST(Module, MoveKeepsFunctionsValid) {
  CUTLET_REQUIRE_CUDA("modules of PTX and cubin images");
  cutlet::Module a = cutlet::Module::load(cutlet::Device(0), text(cutlet::test::kTestPtx));
  cutlet::Function f = a.function("write42");
  cutlet::Module b(std::move(a));
  EXPECT_EQ(a.handle(), nullptr);
  EXPECT_THROW((void)a.function("write42"), cutlet::Error);
  EXPECT_EQ(b.function("write42").handle(), f.handle());
  EXPECT_GT(f.attributes().num_regs, 0);
}

}  // namespace
