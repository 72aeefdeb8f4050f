// Runs LLVM's FileCheck on generated text from a test: expect_filecheck(input, checks).
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

/// The outcome of one FileCheck run: its exit status (0 when every CHECK matched) and
/// everything it printed.
struct FileCheckResult {
  int status = -1;
  std::string output;
  bool ok() const { return status == 0; }
};

namespace filecheck_detail {
inline std::filesystem::path temp_file(const char* suffix) {
  static std::atomic<unsigned> counter{0};
  auto dir = std::filesystem::temp_directory_path();
  return dir / ("cutlet-filecheck-" + std::to_string(::getpid()) + "-" + std::to_string(counter++) + suffix);
}

inline bool write_file(const std::filesystem::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << text;
  return static_cast<bool>(out);
}
}  // namespace filecheck_detail

/// Writes `input` and `checks` to temporary files and runs
/// `FileCheck --input-file=<input> <checks>`, capturing its output.
inline FileCheckResult run_filecheck(const std::string& input, const std::string& checks) {
  FileCheckResult r;
  auto in = filecheck_detail::temp_file(".txt");
  auto chk = filecheck_detail::temp_file(".check");
  if (!filecheck_detail::write_file(in, input) || !filecheck_detail::write_file(chk, checks)) {
    r.output = "could not write FileCheck's temporary files in " + in.parent_path().string();
    return r;
  }
  std::string cmd = std::string("'") + CUTLET_FILECHECK + "' --dump-input=fail --input-file='" + in.string() +
                    "' '" + chk.string() + "' 2>&1";
  if (FILE* p = ::popen(cmd.c_str(), "r")) {
    char buf[4096];
    std::size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) r.output.append(buf, n);
    int st = ::pclose(p);
    r.status = (st != -1 && WIFEXITED(st)) ? WEXITSTATUS(st) : -1;
  } else {
    r.output = "could not run " + cmd;
  }
  std::error_code ec;
  std::filesystem::remove(in, ec);
  std::filesystem::remove(chk, ec);
  return r;
}

/// Fails the current test, with FileCheck's report, unless `input` matches `checks`
/// (FileCheck directives: CHECK, CHECK-NEXT, CHECK-NOT, ...).
inline void expect_filecheck(const std::string& input, const std::string& checks) {
  FileCheckResult r = run_filecheck(input, checks);
  if (!r.ok())
    ADD_FAILURE() << "FileCheck failed (status " << r.status << ")\n---- checks ----\n"
                  << checks << "\n---- FileCheck output ----\n"
                  << r.output;
}
