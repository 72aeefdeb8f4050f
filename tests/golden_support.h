// Golden-file comparison for tests: expect_golden(name, text), rewritten with CUTLET_UPDATE_GOLDENS=1.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

/// The path of golden file `name` (relative to tests/golden).
inline std::filesystem::path golden_path(const std::string& name) {
  return std::filesystem::path(CUTLET_TEST_GOLDEN_DIR) / name;
}

/// True when the environment asks for goldens to be rewritten (CUTLET_UPDATE_GOLDENS=1).
inline bool updating_goldens() {
  const char* e = std::getenv("CUTLET_UPDATE_GOLDENS");
  return e && std::strcmp(e, "1") == 0;
}

namespace golden_detail {
inline std::vector<std::string> split_lines(const std::string& s) {
  std::vector<std::string> lines;
  std::string line;
  std::istringstream in(s);
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(line);
  }
  return lines;
}

inline std::string normalize_newlines(const std::string& s) {
  std::string r;
  r.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i)
    if (!(s[i] == '\r' && i + 1 < s.size() && s[i + 1] == '\n')) r += s[i];
  return r;
}
}  // namespace golden_detail

/// Compares `actual` with the golden file tests/golden/<name>. With CUTLET_UPDATE_GOLDENS=1
/// the file is (re)written instead and the test says so on stdout and in its properties.
/// On a mismatch the failure names the first differing line and shows both versions.
inline void expect_golden(const std::string& name, const std::string& actual) {
  const auto path = golden_path(name);
  if (updating_goldens()) {
    std::filesystem::create_directories(path.parent_path());
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << actual;
    out.close();
    if (!out) {
      ADD_FAILURE() << "could not write golden file " << path;
      return;
    }
    std::printf("[ GOLDEN   ] wrote %s (review it before committing)\n", path.c_str());
    ::testing::Test::RecordProperty("golden_written", path.string());
    return;
  }

  std::ifstream in(path, std::ios::binary);
  if (!in) {
    ADD_FAILURE() << "golden file " << path << " is missing; run the test with CUTLET_UPDATE_GOLDENS=1 to "
                  << "create it, then review it. Actual text:\n"
                  << actual;
    return;
  }
  std::stringstream buf;
  buf << in.rdbuf();
  const std::string expected = golden_detail::normalize_newlines(buf.str());
  const std::string got = golden_detail::normalize_newlines(actual);
  if (expected == got) return;

  auto el = golden_detail::split_lines(expected);
  auto al = golden_detail::split_lines(got);
  std::size_t n = std::min(el.size(), al.size());
  std::size_t line = 0;
  while (line < n && el[line] == al[line]) ++line;
  std::ostringstream msg;
  msg << "output differs from golden file " << path << " at line " << (line + 1) << ":\n";
  msg << "  expected: " << (line < el.size() ? "\"" + el[line] + "\"" : std::string("<end of file>")) << "\n";
  msg << "  actual:   " << (line < al.size() ? "\"" + al[line] + "\"" : std::string("<end of text>")) << "\n";
  if (line == n && el.size() == al.size()) msg << "  (the texts differ only in a trailing newline)\n";
  msg << "Run with CUTLET_UPDATE_GOLDENS=1 to rewrite the golden if the change is intended.\n"
      << "---- actual ----\n"
      << got << "---- expected ----\n"
      << expected;
  ADD_FAILURE() << msg.str();
}
