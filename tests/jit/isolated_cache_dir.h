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
inline bool isolate_kernel_cache() {
  if (std::getenv("CUTLET_TEST_CACHE_ISOLATED")) return false;
  static std::string dir = (std::filesystem::temp_directory_path() / "cutlet-test-cache-XXXXXX").string();
  if (!::mkdtemp(dir.data())) return false;
  ::setenv("CUTLET_CACHE_DIR", dir.c_str(), 1);
  ::setenv("CUTLET_TEST_CACHE_ISOLATED", "1", 1);
  std::atexit([] {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  });
  return true;
}

}  // namespace cutlet::test
