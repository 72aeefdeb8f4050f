// Dumps of the compiler's stages: PTX, resources and SASS files per specialization, named by
// the same hash as its IR stages plus the target and the options that are not the defaults.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <string>

#include <cutlet/cutlet.h>

#include "jit/child_process.h"
#include "cutlet/ir/structural_hash.h"
#include "scoped_env.h"

using namespace cutlet;

namespace {

struct DumpReset {
  ~DumpReset() {
    set_dump_stages("");
    set_dump_filter("");
  }
};

/// True when an executable `program` is in a directory of the PATH.
bool on_path(const std::string& program) {
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "";
  for (std::size_t start = 0; start <= dirs.size();) {
    const std::size_t colon = std::min(dirs.find(':', start), dirs.size());
    const std::string dir = dirs.substr(start, colon - start);
    if (!dir.empty() && ::access((dir + "/" + program).c_str(), X_OK) == 0) return true;
    start = colon + 1;
  }
  return false;
}

TEST(CompilerDump, CompilerStagesShareTheHashOfTheIrStages) {
  DumpReset reset;
  test::ScratchDir scratch;
  test::ScopedEnv env("CUTLET_DUMP_DIR", scratch.path().string());
  auto k = kernel([](Ptr<float> y, Const<int> K) { y[thread_idx().x] = cast<float>(thread_idx().x * K); },
                  {.name = "dumped_compiled"});
  const std::string t1 = dump_tag(ir::structural_hash(k.trace_ir(1)));
  const std::string t2 = dump_tag(ir::structural_hash(k.trace_ir(2)));
  set_dump_stages("ir-after-dce-after-layouts,ptx,resources");
  k.compile(1);
  k.compile(2);
  auto fast = k.with_options({.fma_contraction = false, .approx_math = true});
  fast.compile(1);
  const std::string p = "dumped_compiled.";
  EXPECT_EQ(test::file_names(scratch.path()),
            (std::set<std::string>{p + t1 + ".ir-after-dce-after-layouts.txt", p + t1 + ".sm_90.ptx.txt",
                                   p + t1 + ".sm_90.resources.txt", p + t2 + ".ir-after-dce-after-layouts.txt",
                                   p + t2 + ".sm_90.ptx.txt", p + t2 + ".sm_90.resources.txt",
                                   p + t1 + ".sm_90-nofma-approx.ptx.txt",
                                   p + t1 + ".sm_90-nofma-approx.resources.txt"}));
  const std::string ptx = test::file_text(scratch.path() / (p + t2 + ".sm_90.ptx.txt"));
  EXPECT_NE(ptx.find(".entry dumped_compiled"), std::string::npos) << ptx;
}

TEST(CompilerDump, SassStageUsesNvdisasmWhenOnThePath) {
  DumpReset reset;
  test::ScratchDir scratch;
  test::ScopedEnv env("CUTLET_DUMP_DIR", scratch.path().string());
  set_dump_stages("sass");
  auto k = kernel([](Ptr<int> y) { y[thread_idx().x] = 5; }, {.name = "dumped_sass"});
  testing::internal::CaptureStderr();
  k.compile();
  const std::string err = testing::internal::GetCapturedStderr();
  const auto files = test::file_names(scratch.path());
  if (!on_path("nvdisasm")) {
    EXPECT_TRUE(files.empty());
    EXPECT_NE(err.find("nvdisasm is not on the PATH"), std::string::npos) << err;
    GTEST_SKIP() << "nvdisasm is not on the PATH: checked that the sass stage says so";
  }
  ASSERT_EQ(files.size(), 1u) << err;
  const std::string name = *files.begin();
  EXPECT_TRUE(name.starts_with("dumped_sass.") && name.ends_with(".sm_90.sass.txt")) << name;
  const std::string sass = test::file_text(scratch.path() / name);
  EXPECT_NE(sass.find("dumped_sass"), std::string::npos) << sass;
  EXPECT_NE(sass.find("EXIT"), std::string::npos) << sass;
}

// The child: a compile with the sass stage dumped, on whatever PATH the parent gives.
TEST(CompilerDumpChild, DISABLED_CompileWithSass) {
  set_dump_stages("sass,ptx");
  auto k = kernel([](Ptr<int> y) { y[0] = 6; }, {.name = "dumped_without_nvdisasm"});
  k.compile();
  k.with_options({.opt_level = 2}).compile();
}

TEST(CompilerDump, WithoutNvdisasmTheSassStageIsSkippedWithOneNote) {
  const auto r = test::run_child("CompilerDumpChild.DISABLED_CompileWithSass", {"PATH=", "CUTLET_CACHE=0"});
  ASSERT_EQ(r.status, 0) << r.output;
  const std::string note = "cutlet: CUTLET_DUMP=sass: nvdisasm is not on the PATH";
  const auto first = r.output.find(note);
  EXPECT_NE(first, std::string::npos) << r.output;
  EXPECT_EQ(r.output.find(note, first + 1), std::string::npos) << "said once: " << r.output;
  EXPECT_NE(r.output.find("// ---- cutlet ptx: dumped_without_nvdisasm"), std::string::npos)
      << "the other stages are dumped: " << r.output;
}

}  // namespace
