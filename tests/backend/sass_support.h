// The SASS of a cubin, read with the toolkit's cuobjdump, for tests that check which
// instructions ptxas chose.
#pragma once

#include <cstdio>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace cutlet::test {

/// The toolkit's cuobjdump, when it is installed there.
inline std::optional<std::string> cuobjdump_path() {
  const char* path = "/usr/local/cuda/bin/cuobjdump";
  if (!std::ifstream(path)) return std::nullopt;
  return std::string(path);
}

/// `cuobjdump -sass` of `cubin` (written to the test's temporary folder as `name`.cubin first).
inline std::string sass_of(const std::string& cuobjdump, const std::vector<char>& cubin, const std::string& name) {
  const std::string path = ::testing::TempDir() + name + ".cubin";
  std::ofstream(path, std::ios::binary).write(cubin.data(), static_cast<std::streamsize>(cubin.size()));
  const std::string cmd = cuobjdump + " -sass " + path;
  std::string sass;
  if (FILE* p = popen(cmd.c_str(), "r")) {
    char buf[4096];
    for (std::size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) sass.append(buf, n);
    pclose(p);
  }
  return sass;
}

}  // namespace cutlet::test
