// nvJitLink and NVRTC are opened when first used, not when cutlet_runtime loads: a program
// that never links or compiles CUDA C++ (one launching kernels exported ahead of time) runs
// without them.
#include <gtest/gtest.h>

#include <cutlet/cutlet.h>

#include <fstream>
#include <sstream>
#include <string>

#include "jit/child_process.h"

using namespace cutlet;

namespace {

/// Whether a library whose file name starts with `prefix` is mapped into this process.
bool mapped(const std::string& prefix) {
  std::ifstream maps("/proc/self/maps");
  std::stringstream all;
  all << maps.rdbuf();
  return all.str().find("/" + prefix) != std::string::npos;
}

// The child process: prints what is mapped before and after the first use of each library.
TEST(ToolkitLibraryChild, DISABLED_OpenedOnFirstUse) {
  const bool jit_before = mapped("libnvJitLink"), rtc_before = mapped("libnvrtc");
  const std::string linker = Linker::version();
  const bool jit_after = mapped("libnvJitLink");
  const std::string nvrtc = Program::nvrtc_version();
  const bool rtc_after = mapped("libnvrtc");
  std::printf("cutlet-child jit_before=%d jit_after=%d rtc_before=%d rtc_after=%d\n", jit_before, jit_after, rtc_before,
              rtc_after);
  std::printf("versions %s %s\n", linker.c_str(), nvrtc.c_str());
  std::fflush(stdout);
}

TEST(ToolkitLibrary, NvJitLinkAndNvrtcAreOpenedOnFirstUse) {
  const auto r = test::run_child("ToolkitLibraryChild.DISABLED_OpenedOnFirstUse", {});
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(r.values.at("jit_before"), "0") << "nvJitLink was loaded before anything linked:\n" << r.output;
  EXPECT_EQ(r.values.at("rtc_before"), "0") << "NVRTC was loaded before anything compiled:\n" << r.output;
  EXPECT_EQ(r.values.at("jit_after"), "1") << r.output;
  EXPECT_EQ(r.values.at("rtc_after"), "1") << r.output;
}

TEST(ToolkitLibrary, VersionsComeFromTheOpenedLibraries) {
  // This toolkit's libraries open here: versions are numbers, not "unavailable".
  EXPECT_NE(Linker::version().find('.'), std::string::npos) << Linker::version();
  EXPECT_NE(Program::nvrtc_version().find('.'), std::string::npos) << Program::nvrtc_version();
  const std::string build = Linker::library_build_id();
  EXPECT_TRUE(build.rfind("gnu-build-id:", 0) == 0 || build.rfind("file:", 0) == 0) << build;
}

}  // namespace
