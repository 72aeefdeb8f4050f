// Helpers for the persistent kernel cache tests: temporary directories, fake compiled kernels
// and their keys, whole-file reads and writes.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "cutlet/jit/disk_cache_key.h"

namespace cutlet::test {

/// A new empty directory, removed (with its contents) at the end of the test.
class TempDir {
 public:
  TempDir() {
    std::string t = (std::filesystem::temp_directory_path() / "cutlet-disk-cache-test-XXXXXX").string();
    if (!::mkdtemp(t.data())) ADD_FAILURE() << "mkdtemp failed";
    path_ = t;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::permissions(path_, std::filesystem::perms::owner_all, std::filesystem::perm_options::add, ec);
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

/// How many of the kernel cache's warnings ("cutlet: the kernel cache ...") `s` holds.
inline std::size_t warnings_in(const std::string& s) {
  const std::string w = "cutlet: the kernel cache";
  std::size_t n = 0;
  for (auto p = s.find(w); p != std::string::npos; p = s.find(w, p + 1)) ++n;
  return n;
}

/// A compiled kernel called `name` with `cubin_bytes` bytes of made-up cubin: what the cache
/// stores, without compiling anything.
inline CompiledKernel fake_kernel(const std::string& name, std::size_t cubin_bytes = 1000) {
  CompiledKernel k;
  k.name = name;
  k.ptx = "// PTX of " + name + "\n.visible .entry " + name + "()\n{\n\tret;\n}\n";
  k.cubin.assign(cubin_bytes, 'c');
  k.cubin[0] = 0x7f;
  k.link_log = "info: Function properties for " + name;
  k.resources.registers = 12;
  k.resources.stack_bytes = 8;
  return k;
}

/// The key of a fake kernel: IR hash `ir_hash`, entry point `name`, default options.
inline DiskCacheKey key_for(std::uint64_t ir_hash, const std::string& name = "fake") {
  return DiskCacheKey::make(ir_hash, name, CompileOptions{});
}

/// The whole of file `p` ("" when it cannot be read).
inline std::string read_bytes(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// Makes file `p` hold exactly `bytes`.
inline void write_bytes(const std::filesystem::path& p, const std::string& bytes) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << bytes;
}

}  // namespace cutlet::test
