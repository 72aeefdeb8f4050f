// Runs the test executable again as a child process, to test what several processes share.
#pragma once

#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace cutlet::test {

/// What a child test process printed and how it ended.
struct ChildResult {
  int status = -1;                             ///< exit status (0: the test passed)
  std::string output;                          ///< stdout and stderr together
  std::map<std::string, std::string> values;   ///< key=value pairs of its last "cutlet-child" line
};

/// A child started by start_child, running concurrently with the caller.
class Child {
 public:
  /// Starts this executable with only the test `test` (usually a DISABLED_ test, which runs
  /// only when asked for) and the extra environment `env` ("NAME=value", no quotes needed
  /// for plain paths and numbers).
  Child(const std::string& test, const std::vector<std::string>& env) {
    char exe[4096];
    const ssize_t n = ::readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[n > 0 ? n : 0] = 0;
    std::string cmd = "env";
    for (const auto& e : env) cmd += " '" + e + "'";
    cmd += std::string(" '") + exe + "' --gtest_also_run_disabled_tests --gtest_filter='" + test + "' 2>&1";
    pipe_ = ::popen(cmd.c_str(), "r");
  }
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;
  ~Child() {
    if (pipe_) ::pclose(pipe_);
  }

  /// Waits for the child and returns what it printed.
  ChildResult wait() {
    ChildResult r;
    if (!pipe_) return r;
    char buf[4096];
    std::size_t got;
    while ((got = std::fread(buf, 1, sizeof buf, pipe_)) > 0) r.output.append(buf, got);
    const int status = ::pclose(pipe_);
    pipe_ = nullptr;
    r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    std::istringstream lines(r.output);
    std::string last;
    for (std::string l; std::getline(lines, l);)
      if (l.rfind("cutlet-child ", 0) == 0) last = l;
    std::istringstream tokens(last);
    for (std::string t; tokens >> t;)
      if (auto eq = t.find('='); eq != std::string::npos) r.values[t.substr(0, eq)] = t.substr(eq + 1);
    return r;
  }

 private:
  FILE* pipe_ = nullptr;
};

/// Runs a child (see Child) to completion.
inline ChildResult run_child(const std::string& test, const std::vector<std::string>& env) {
  return Child(test, env).wait();
}

}  // namespace cutlet::test
