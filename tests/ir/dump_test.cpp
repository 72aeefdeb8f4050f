// The dump switch and writer: stage names, the kernel filter, files in CUTLET_DUMP_DIR.
#include "cutlet/dump.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>

#include "cutlet/error.h"
#include "cutlet/ir/pipeline.h"
#include "jit/child_process.h"
#include "scoped_env.h"

namespace cutlet {
namespace {

/// Turns dumping off, and the filter off, at the end of a test.
struct DumpReset {
  ~DumpReset() {
    set_dump_stages("");
    set_dump_filter("");
  }
};

std::string message_of_set(const std::string& stages) {
  try {
    set_dump_stages(stages);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

bool has(const std::string& s, const std::string& what) { return s.find(what) != std::string::npos; }

TEST(Dump, StageNamesFollowTheCompileOrderAndEveryPass) {
  const auto names = dump_stage_names();
  std::vector<std::string> expected = {"ir"};
  for (const auto& p : ir::default_pipeline()) expected.push_back("ir-after-" + std::string(p.name));
  for (const char* s : {"llvm", "llvm-opt", "ptx", "sass", "resources", "recompiles"}) expected.emplace_back(s);
  EXPECT_EQ(names, expected);
}

TEST(Dump, UnknownStagesAreAnErrorListingTheValidOnes) {
  DumpReset reset;
  set_dump_stages("ptx");
  const std::string msg = message_of_set("ir,ptxx, resource");
  EXPECT_TRUE(has(msg, "set_dump_stages names unknown stages 'ptxx', 'resource'")) << msg;
  for (const auto& name : dump_stage_names()) EXPECT_TRUE(has(msg, name)) << name << " not listed: " << msg;
  EXPECT_TRUE(has(msg, "all")) << msg;
  EXPECT_TRUE(dump_enabled("ptx", "k")) << "the setting is unchanged";
  EXPECT_FALSE(dump_enabled("ir", "k"));
}

TEST(Dump, StagesAreTrimmedAndAllSelectsEveryOne) {
  DumpReset reset;
  set_dump_stages(" ir , ptx ,");
  EXPECT_TRUE(dump_enabled("ir", "k"));
  EXPECT_TRUE(dump_enabled("ptx", "k"));
  EXPECT_FALSE(dump_enabled("llvm", "k"));
  set_dump_stages("all");
  for (const auto& name : dump_stage_names()) EXPECT_TRUE(dump_enabled(name, "k")) << name;
  set_dump_stages("");
  EXPECT_FALSE(dump_enabled("ir", "k"));
}

TEST(Dump, FilterTakesSubstringsAndGlobs) {
  DumpReset reset;
  set_dump_stages("ptx");
  set_dump_filter("soft");
  EXPECT_TRUE(dump_enabled("ptx", "tile_softmax"));
  EXPECT_FALSE(dump_enabled("ptx", "saxpy"));
  set_dump_filter("tile_*");
  EXPECT_TRUE(dump_enabled("ptx", "tile_softmax"));
  EXPECT_FALSE(dump_enabled("ptx", "my_tile_softmax")) << "a glob matches the whole name";
  set_dump_filter("saxpy, tile_?atmul");
  EXPECT_TRUE(dump_enabled("ptx", "saxpy_f64"));
  EXPECT_TRUE(dump_enabled("ptx", "tile_matmul"));
  EXPECT_FALSE(dump_enabled("ptx", "tile_softmax"));
  EXPECT_FALSE(dump_enabled("ir", "saxpy")) << "the filter narrows the stages, never widens them";
  set_dump_filter("");
  EXPECT_TRUE(dump_enabled("ptx", "anything"));
}

TEST(Dump, TagIsTheLow32BitsInHex) {
  EXPECT_EQ(dump_tag(0x123456789abcdef0ull), "9abcdef0");
  EXPECT_EQ(dump_tag(0x1f), "0000001f");
}

TEST(Dump, DirectoryIsCreatedAndEachSpecializationHasItsFile) {
  test::ScratchDir scratch;
  const auto dir = scratch.path() / "not" / "there";
  test::ScopedEnv env("CUTLET_DUMP_DIR", dir.string());
  dump("ptx", "axpy", "00000001.sm_90", "first");
  dump("ptx", "axpy", "00000002.sm_90", "second");
  dump("ptx", "axpy", "00000001.sm_90", "first again");
  EXPECT_EQ(test::file_names(dir),
            (std::set<std::string>{"axpy.00000001.sm_90.ptx.txt", "axpy.00000002.sm_90.ptx.txt"}));
  EXPECT_EQ(test::file_text(dir / "axpy.00000001.sm_90.ptx.txt"), "first again") << "a dump replaces its file";
  EXPECT_EQ(test::file_text(dir / "axpy.00000002.sm_90.ptx.txt"), "second");
}

TEST(Dump, KernelWideDumpsAppendWithinAProcess) {
  test::ScratchDir scratch;
  test::ScopedEnv env("CUTLET_DUMP_DIR", scratch.path().string());
  {
    std::ofstream old(scratch.path() / "appended.recompiles.txt");
    old << "from an earlier process\n";
  }
  dump("recompiles", "appended", "one\n");
  dump("recompiles", "appended", "two\n");
  EXPECT_EQ(test::file_text(scratch.path() / "appended.recompiles.txt"), "one\ntwo\n");
}

TEST(Dump, UnwritableDirectoryWarnsAndDumpsToStderr) {
  test::ScratchDir scratch;
  { std::ofstream(scratch.path() / "file") << "x"; }
  test::ScopedEnv env("CUTLET_DUMP_DIR", (scratch.path() / "file" / "dumps").string());
  testing::internal::CaptureStderr();
  dump("ptx", "lost", "0000abcd.sm_90", "the text");
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_TRUE(has(err, "cutlet: could not write the dump file")) << err;
  EXPECT_TRUE(has(err, "// ---- cutlet ptx: lost (0000abcd.sm_90) ----\nthe text\n")) << err;
}

TEST(Dump, WithoutADirectoryDumpsGoToStderr) {
  test::ScopedEnv env("CUTLET_DUMP_DIR", std::nullopt);
  testing::internal::CaptureStderr();
  dump("ir", "shown", "00000007", "text");
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "// ---- cutlet ir: shown (00000007) ----\ntext\n");
}

// The child: asks whether a stage is dumped twice, printing what each call threw.
TEST(DumpChild, DISABLED_AskTwice) {
  for (int i = 0; i < 2; ++i) {
    try {
      std::printf("cutlet-child-answer %d\n", dump_enabled("ir", "k") ? 1 : 0);
    } catch (const Error& e) {
      std::printf("cutlet-child-error %s\n", e.what());
    }
  }
}

TEST(Dump, UnknownStageInTheEnvironmentThrowsAtEveryUse) {
  const auto r = test::run_child("DumpChild.DISABLED_AskTwice", {"CUTLET_DUMP=ir,bogus"});
  ASSERT_EQ(r.status, 0) << r.output;
  const std::string line = "cutlet-child-error cutlet: CUTLET_DUMP names an unknown stage 'bogus'; the stages are all, ir, ";
  std::size_t n = 0;
  for (auto p = r.output.find(line); p != std::string::npos; p = r.output.find(line, p + 1)) ++n;
  EXPECT_EQ(n, 2u) << r.output;
  EXPECT_TRUE(has(r.output, "ir-after-assign-layouts")) << r.output;
  const auto good = test::run_child("DumpChild.DISABLED_AskTwice", {"CUTLET_DUMP=ir"});
  EXPECT_TRUE(has(good.output, "cutlet-child-answer 1")) << good.output;
}

}  // namespace
}  // namespace cutlet
