// The stage dump switch (CUTLET_DUMP, CUTLET_DUMP_FILTER) and writer (stderr or CUTLET_DUMP_DIR).
#include "cutlet/dump.h"

#include <fnmatch.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <set>

#include "cutlet/error.h"
#include "cutlet/ir/pipeline.h"
#include "cutlet/log.h"

namespace cutlet {
namespace {

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

/// The non-empty items of a comma-separated list, without the spaces around them.
std::vector<std::string> split_list(std::string_view list) {
  std::vector<std::string> out;
  while (true) {
    const auto comma = list.find(',');
    const std::string_view item = trimmed(list.substr(0, comma));
    if (!item.empty()) out.emplace_back(item);
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
  return out;
}

/// A parsed stage list: "all", or the stages named; `error` when it names unknown ones.
struct StageSet {
  bool all = false;
  std::set<std::string, std::less<>> stages;
  std::string error;
};

StageSet parse_stages(std::string_view list, const char* source) {
  StageSet s;
  const std::vector<std::string> valid = dump_stage_names();
  std::vector<std::string> unknown;
  for (std::string& item : split_list(list)) {
    if (item == "all") s.all = true;
    else if (std::find(valid.begin(), valid.end(), item) != valid.end()) s.stages.insert(std::move(item));
    else unknown.push_back("'" + item + "'");
  }
  if (!unknown.empty()) {
    std::string names = "all";
    for (const auto& v : valid) names += ", " + v;
    std::string what;
    for (const auto& u : unknown) what += (what.empty() ? "" : ", ") + u;
    s.error = std::string("cutlet: ") + source + " names " + (unknown.size() == 1 ? "an unknown stage " : "unknown stages ") +
              what + "; the stages are " + names + " (comma-separated)";
  }
  return s;
}

struct DumpSettings {
  std::mutex mu;
  StageSet stages;
  std::vector<std::string> filter;
  DumpSettings() {
    if (const char* e = std::getenv("CUTLET_DUMP")) stages = parse_stages(e, "CUTLET_DUMP");
    if (const char* f = std::getenv("CUTLET_DUMP_FILTER")) filter = split_list(f);
  }
};
DumpSettings& settings() {
  static DumpSettings s;
  return s;
}

bool is_glob(std::string_view pattern) { return pattern.find_first_of("*?[") != std::string_view::npos; }

bool passes_filter(const std::vector<std::string>& filter, std::string_view kernel) {
  if (filter.empty()) return true;
  const std::string name(kernel);
  for (const auto& pattern : filter) {
    if (is_glob(pattern) ? ::fnmatch(pattern.c_str(), name.c_str(), 0) == 0 : name.find(pattern) != std::string::npos)
      return true;
  }
  return false;
}

/// Writes a dump to CUTLET_DUMP_DIR (replacing the file, or appending to it after the
/// process's first write when `append`), or to stderr when the variable is unset or the
/// file cannot be written.
void write_dump(std::string_view stage, std::string_view kernel, std::string_view specialization,
                std::string_view text, bool append) {
  namespace fs = std::filesystem;
  static std::mutex write_mu;
  static std::set<std::string> appended;  // files this process has started
  std::lock_guard lock(write_mu);
  if (const char* dir = std::getenv("CUTLET_DUMP_DIR"); dir && *dir) {
    std::string file(kernel);
    if (!specialization.empty()) file += "." + std::string(specialization);
    file += "." + std::string(stage) + ".txt";
    const fs::path path = fs::path(dir) / file;
    std::error_code ec;
    fs::create_directories(dir, ec);
    std::string problem;
    if (ec) {
      problem = "cannot create the directory: " + ec.message();
    } else {
      const bool fresh = !append || appended.insert(path.string()).second;
      errno = 0;
      std::ofstream out(path, std::ios::binary | (fresh ? std::ios::trunc : std::ios::app));
      out << text;
      out.close();
      if (out) return;
      problem = errno ? std::strerror(errno) : "write failed";
    }
    log_message(LogLevel::Warn, "could not write the dump file " + path.string() + " (" + problem +
                                    "); dumping to stderr");
  }
  std::string header = "// ---- cutlet " + std::string(stage) + ": " + std::string(kernel);
  if (!specialization.empty()) header += " (" + std::string(specialization) + ")";
  header += " ----\n";
  std::fprintf(stderr, "%s%.*s\n", header.c_str(), static_cast<int>(text.size()), text.data());
}

}  // namespace

std::vector<std::string> dump_stage_names() {
  std::vector<std::string> names = {"ir"};
  for (const ir::Pass& p : ir::default_pipeline()) names.push_back("ir-after-" + std::string(p.name));
  for (const char* s : {"llvm", "llvm-opt", "ptx", "sass", "resources", "recompiles"}) names.emplace_back(s);
  return names;
}

bool dump_enabled(std::string_view stage, std::string_view kernel) {
  auto& s = settings();
  std::lock_guard lock(s.mu);
  if (!s.stages.error.empty()) throw Error(s.stages.error);
  if (!s.stages.all && s.stages.stages.find(stage) == s.stages.stages.end()) return false;
  return passes_filter(s.filter, kernel);
}

void set_dump_stages(std::string stages) {
  StageSet parsed = parse_stages(stages, "set_dump_stages");
  if (!parsed.error.empty()) throw Error(parsed.error);
  auto& s = settings();
  std::lock_guard lock(s.mu);
  s.stages = std::move(parsed);
}

void set_dump_filter(std::string filter) {
  auto& s = settings();
  std::lock_guard lock(s.mu);
  s.filter = split_list(filter);
}

std::string dump_tag(std::uint64_t specialization) {
  char buf[9];
  std::snprintf(buf, sizeof buf, "%08x", static_cast<unsigned>(specialization & 0xffffffffu));
  return buf;
}

void dump(std::string_view stage, std::string_view kernel, std::string_view specialization, std::string_view text) {
  write_dump(stage, kernel, specialization, text, false);
}

void dump(std::string_view stage, std::string_view kernel, std::string_view text) {
  write_dump(stage, kernel, {}, text, true);
}

}  // namespace cutlet
