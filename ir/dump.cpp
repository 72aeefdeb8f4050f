// The stage dump switch (CUTLET_DUMP) and writer (stderr or CUTLET_DUMP_DIR).
#include "cutlet/dump.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <mutex>

namespace cutlet {
namespace {
struct DumpSettings {
  std::mutex mu;
  std::string stages;
  DumpSettings() {
    if (const char* e = std::getenv("CUTLET_DUMP")) stages = e;
  }
};
DumpSettings& settings() {
  static DumpSettings s;
  return s;
}
}  // namespace

bool dump_enabled(std::string_view stage) {
  auto& s = settings();
  std::lock_guard lock(s.mu);
  if (s.stages.empty()) return false;
  std::string_view all = s.stages;
  while (!all.empty()) {
    auto comma = all.find(',');
    auto item = all.substr(0, comma);
    if (item == "all" || item == stage) return true;
    if (comma == std::string_view::npos) break;
    all.remove_prefix(comma + 1);
  }
  return false;
}

void set_dump_stages(std::string stages) {
  auto& s = settings();
  std::lock_guard lock(s.mu);
  s.stages = std::move(stages);
}

void dump(std::string_view stage, std::string_view kernel, std::string_view text) {
  static std::mutex write_mu;
  std::lock_guard lock(write_mu);
  if (const char* dir = std::getenv("CUTLET_DUMP_DIR"); dir && *dir) {
    std::string path = std::string(dir) + "/" + std::string(kernel) + "." + std::string(stage) + ".txt";
    std::ofstream out(path, std::ios::binary);
    out << text;
    if (out) return;
    std::fprintf(stderr, "cutlet: could not write dump file %s; dumping to stderr\n", path.c_str());
  }
  std::fprintf(stderr, "// ---- cutlet %.*s: %.*s ----\n%.*s\n", static_cast<int>(stage.size()), stage.data(),
               static_cast<int>(kernel.size()), kernel.data(), static_cast<int>(text.size()), text.data());
}

}  // namespace cutlet
