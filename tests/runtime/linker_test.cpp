// nvJitLink through Linker: PTX, NVRTC output and LTO-IR linked together (no GPU needed).
#include "cutlet/runtime/linker.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <string>

#include "cutlet/cutlet.h"
#include "cutlet/runtime/program.h"
#include "runtime_test_support.h"
#include "test_kernels.h"

namespace {

cutlet::ProgramOptions relocatable_sm90() {
  cutlet::ProgramOptions o;
  o.arch = "sm_90";
  o.relocatable = true;
  return o;
}

bool is_elf(const cutlet::ObjectCode& c) {
  return c.data.size() > 4 && std::memcmp(c.data.data(), "\x7f" "ELF", 4) == 0;
}

TEST(LinkerNoGpu, LibraryBuildIdNamesTheLoadedBuild) {
  const std::string id = cutlet::Linker::library_build_id();
  EXPECT_EQ(id, cutlet::Linker::library_build_id()) << "found once, the same all along";
  const std::string gnu = "gnu-build-id:";
  if (id.rfind(gnu, 0) == 0) {
    // NVIDIA's libraries carry a GNU build id (a 160-bit hash): hex digits, a whole number of bytes.
    const std::string hex = id.substr(gnu.size());
    EXPECT_GE(hex.size(), 16u) << id;
    EXPECT_EQ(hex.size() % 2, 0u) << id;
    EXPECT_EQ(hex.find_first_not_of("0123456789abcdef"), std::string::npos) << id;
  } else {
    // Without one: the file's path, size and modification time.
    EXPECT_EQ(id.rfind("file:/", 0), 0u) << id;
  }
}

TEST(LinkerNoGpu, PtxCallerWithNvrtcDeviceFunction) {
  const cutlet::ObjectCode callee =
      cutlet::Program(cutlet::test::kAddSevenCu, relocatable_sm90(), "add_seven.cu").compile(cutlet::CodeKind::ptx);
  cutlet::Linker linker({.arch = "sm_90"});
  linker.add_ptx(cutlet::test::kCallerPtx, "caller.ptx").add(callee);
  EXPECT_EQ(linker.input_count(), 2u);
  const cutlet::ObjectCode cubin = linker.link();
  EXPECT_EQ(cubin.kind, cutlet::CodeKind::cubin);
  EXPECT_TRUE(is_elf(cubin));
}

TEST(LinkerNoGpu, NvrtcKernelWithPtxDeviceFunction) {
  const cutlet::ObjectCode kernel =
      cutlet::Program(cutlet::test::kTriplePlusCu, relocatable_sm90(), "triple.cu").compile(cutlet::CodeKind::cubin);
  const cutlet::ObjectCode cubin =
      cutlet::Linker({.arch = "sm_90"}).add(kernel).add_ptx(cutlet::test::kTimesThreePtx, "times_three.ptx").link();
  EXPECT_TRUE(is_elf(cubin));
}

TEST(LinkerNoGpu, LtoIrWithPtx) {
  const cutlet::ObjectCode lto =
      cutlet::Program(cutlet::test::kAddSevenCu, relocatable_sm90(), "add_seven.cu").compile(cutlet::CodeKind::ltoir);
  cutlet::Linker linker({.arch = "sm_90"});
  linker.add_ltoir(lto.bytes(), "add_seven.ltoir").add_ptx(cutlet::test::kCallerPtx, "caller.ptx");
  const auto opts = linker.nvjitlink_options();
  EXPECT_NE(std::find(opts.begin(), opts.end(), "-lto"), opts.end());  // turned on by the LTO-IR input
  EXPECT_TRUE(is_elf(linker.link()));
}

TEST(LinkerNoGpu, CutletGeneratedPtxLinksWithNvrtcCode) {
  using namespace cutlet;
  auto scale = kernel([](f32 a, Ptr<float> x, i32 n) {
    i32 i = block_idx().x * block_dim().x + thread_idx().x;
    if_(i < n, [&] { x[i] = a * x[i]; });
  }, {.name = "cutlet_scale"});
  const auto compiled = scale.compile<f32, Ptr<float>, i32>();
  const ObjectCode callee = Program(test::kAddSevenCu, relocatable_sm90(), "add_seven.cu").compile(CodeKind::ptx);
  Linker linker({.arch = "sm_90"});
  linker.add_ptx(compiled->ptx, "cutlet_scale.ptx").add(callee).add_ptx(test::kCallerPtx, "caller.ptx");
  const ObjectCode cubin = linker.link();
  EXPECT_TRUE(is_elf(cubin));
  const std::string bytes(cubin.data.begin(), cubin.data.end());
  EXPECT_CONTAINS(bytes, "cutlet_scale");    // the cutlet kernel's entry
  EXPECT_CONTAINS(bytes, "call_add_seven");  // and the PTX caller's, in one cubin
}

TEST(LinkerNoGpu, UndefinedFunctionIsNamed) {
  try {
    (void)cutlet::Linker({.arch = "sm_90"}).add_ptx(cutlet::test::kCallerPtx, "caller.ptx").link();
    FAIL() << "linking with an undefined function did not throw";
  } catch (const cutlet::LinkError& e) {
    EXPECT_CONTAINS(e.what(), "add_seven");
    EXPECT_CONTAINS(e.what(), "caller.ptx");
  }
  EXPECT_CONTAINS(cutlet::test::error_message([] { (void)cutlet::Linker().link(); }), "nothing to link");
}

}  // namespace
