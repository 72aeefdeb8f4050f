// Gives a test process its own empty persistent kernel cache, so that tests never read or fill
// the user's cache and cache statistics start from nothing in every run.
#pragma once

#include <stdlib.h>

#include <cstdlib>
#include <filesystem>
#include <string>

namespace cutlet::test {

/// Points CUTLET_CACHE_DIR at a new empty temporary directory for this process and the
/// processes it starts, unless a parent test process already did (CUTLET_TEST_CACHE_ISOLATED
/// is set); the process that made the directory removes it at exit. Tests that want another
/// directory pass their own CUTLET_CACHE_DIR to their children or use
/// cutlet::set_disk_cache_settings. Call it from one static initializer per test executable.
///
/// In the GPU suite (built with CUTLET_TEST_KERNEL_CACHE_DIR, a directory of the build tree),
/// the directory's kernels/ is that one, shared by the suite's processes (ctest runs each test
/// as one, on a GPU and again on the CPU device): a kernel is compiled once per build of the
/// compiler (the entries' keys hold its build id), and the tuning results stay private.
inline bool isolate_kernel_cache() {
  if (std::getenv("CUTLET_TEST_CACHE_ISOLATED")) return false;
  static std::string dir = (std::filesystem::temp_directory_path() / "cutlet-test-cache-XXXXXX").string();
  if (!::mkdtemp(dir.data())) return false;
#ifdef CUTLET_TEST_KERNEL_CACHE_DIR
  std::error_code ec;
  std::filesystem::create_directories(CUTLET_TEST_KERNEL_CACHE_DIR, ec);
  if (!ec) std::filesystem::create_directory_symlink(CUTLET_TEST_KERNEL_CACHE_DIR, std::filesystem::path(dir) / "kernels", ec);
#endif
  ::setenv("CUTLET_CACHE_DIR", dir.c_str(), 1);
  ::setenv("CUTLET_TEST_CACHE_ISOLATED", "1", 1);
  std::atexit([] {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  });
  return true;
}

}  // namespace cutlet::test
