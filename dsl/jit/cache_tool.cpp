// The cutlet-cache command line, as a library function so that it can be tested in-process.
#include "cutlet/jit/cache_tool.h"

#include <cstdio>
#include <ctime>

#include "cutlet/error.h"
#include "cutlet/jit/disk_cache.h"
#include "cutlet/jit/tuning_store.h"

namespace cutlet {
namespace {

constexpr const char* kUsage =
    "usage: cutlet-cache [--dir DIR] COMMAND\n"
    "  list        entries, least recently used first: id, kernel, arch, size, age, last use, hits, compile time\n"
    "  ptx ID      the PTX of the entry whose id starts with ID\n"
    "  info ID     an entry's full key, resource use and link log\n"
    "  tuning      the persisted autotuning results\n"
    "  clear       remove every entry and tuning result\n"
    "  trim SIZE   remove least recently used entries until the cache holds at most SIZE (bytes, or K, M, G, T)\n"
    "  path        print the cache directory\n"
    "Without --dir: CUTLET_CACHE_DIR, else $XDG_CACHE_HOME/cutlet, else ~/.cache/cutlet.\n";

std::string size_text(std::uint64_t bytes) {
  char buf[32];
  if (bytes < 1024) std::snprintf(buf, sizeof buf, "%llu B", static_cast<unsigned long long>(bytes));
  else if (bytes < (1u << 20)) std::snprintf(buf, sizeof buf, "%.1f KiB", bytes / 1024.0);
  else if (bytes < (1u << 30)) std::snprintf(buf, sizeof buf, "%.1f MiB", bytes / 1048576.0);
  else std::snprintf(buf, sizeof buf, "%.2f GiB", bytes / 1073741824.0);
  return buf;
}

std::string age_text(std::int64_t unix_time) {
  if (unix_time <= 0) return "?";
  const std::int64_t s = std::max<std::int64_t>(0, static_cast<std::int64_t>(std::time(nullptr)) - unix_time);
  if (s < 120) return std::to_string(s) + "s";
  if (s < 7200) return std::to_string(s / 60) + "m";
  if (s < 172800) return std::to_string(s / 3600) + "h";
  return std::to_string(s / 86400) + "d";
}

std::string pad(std::string s, std::size_t width) {
  if (s.size() < width) s.append(width - s.size(), ' ');
  return s;
}

int list(const DiskCache& cache, std::ostream& out) {
  const auto entries = cache.list();
  std::size_t name_width = 6;
  for (const auto& e : entries) name_width = std::max(name_width, e.kernel_name.size());
  out << pad("id", 12) << "  " << pad("kernel", name_width) << "  " << pad("arch", 6) << "  " << pad("size", 10)
      << "  " << pad("age", 5) << "  " << pad("used", 5) << "  " << pad("hits", 6) << "  compile\n";
  std::uint64_t total = 0;
  for (const auto& e : entries) {
    total += e.bytes;
    char compile[32];
    std::snprintf(compile, sizeof compile, "%.1f ms", e.compile_ms);
    out << pad(e.id.substr(0, 12), 12) << "  " << pad(e.kernel_name.empty() ? "?" : e.kernel_name, name_width)
        << "  " << pad(e.arch.empty() ? "?" : e.arch, 6) << "  " << pad(size_text(e.bytes), 10) << "  "
        << pad(age_text(e.created_unix), 5) << "  " << pad(age_text(e.last_used_unix), 5) << "  "
        << pad(std::to_string(e.hits), 6) << "  " << (e.problem.empty() ? compile : "UNUSABLE: " + e.problem)
        << "\n";
  }
  const std::uint64_t cap = cache.settings().max_bytes;
  out << entries.size() << " entr" << (entries.size() == 1 ? "y" : "ies") << ", " << size_text(total)
      << (cap ? " of " + size_text(cap) : std::string(" (no size cap)")) << " in " << cache.kernels_dir().string()
      << "\n";
  return 0;
}

int info(const DiskCache& cache, const std::string& id, std::ostream& out) {
  const auto e = cache.read(id);
  const ResourceUsage& r = e.kernel.resources;
  out << "id: " << e.info.id << "\n"
      << "size: " << size_text(e.info.bytes) << ", created " << age_text(e.info.created_unix) << " ago, last used "
      << age_text(e.info.last_used_unix) << " ago, " << e.info.hits << " hits\n"
      << "compile time: " << e.info.compile_ms << " ms\n"
      << "resources: " << r.registers << " registers, " << r.shared_bytes << " B shared, " << r.stack_bytes
      << " B stack, spills " << r.spill_store_bytes << "/" << r.spill_load_bytes << " B\n"
      << "key:\n"
      << e.key.text() << "link log:\n"
      << e.kernel.link_log << (e.kernel.link_log.empty() || e.kernel.link_log.back() == '\n' ? "" : "\n");
  return 0;
}

int tuning(const DiskCache& cache, std::ostream& out) {
  TuningStore store(cache.settings().dir / "tuning");
  const auto records = store.list();
  for (const auto& r : records) {
    char ms[32];
    std::snprintf(ms, sizeof ms, "%.4f ms", r.best_ms);
    out << "best " << r.best.str() << " (" << ms << ", " << r.timed << " timed, " << age_text(r.created_unix)
        << " ago)\n";
    std::string key = r.key;
    for (std::size_t p = 0; (p = key.find('\n', p)) != std::string::npos && p + 1 < key.size(); p += 3)
      key.replace(p, 1, "\n   ");
    out << "   " << key << (key.empty() || key.back() == '\n' ? "" : "\n");
  }
  out << records.size() << " tuning result" << (records.size() == 1 ? "" : "s") << " in " << store.dir().string()
      << "\n";
  return 0;
}

}  // namespace

int run_cache_tool(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  DiskCacheSettings settings;
  try {
    settings = DiskCacheSettings::from_environment();
  } catch (const Error& e) {
    err << e.what() << "\n";
    return 2;
  }
  std::size_t i = 0;
  if (i < args.size() && (args[i] == "-h" || args[i] == "--help")) {
    out << kUsage;
    return 0;
  }
  if (i + 1 < args.size() && args[i] == "--dir") {
    settings.dir = args[i + 1];
    i += 2;
  }
  if (i >= args.size()) {
    err << kUsage;
    return 2;
  }
  if (settings.dir.empty()) {
    err << "cutlet-cache: no cache directory: the cache is off (CUTLET_CACHE=0) or neither CUTLET_CACHE_DIR, "
           "XDG_CACHE_HOME nor HOME is set; pass --dir DIR\n";
    return 2;
  }
  const std::string cmd = args[i];
  const std::vector<std::string> rest(args.begin() + static_cast<std::ptrdiff_t>(i) + 1, args.end());
  auto want = [&](std::size_t n) {
    if (rest.size() == n) return true;
    err << "cutlet-cache: '" << cmd << "' takes " << n << " argument" << (n == 1 ? "" : "s") << "\n" << kUsage;
    return false;
  };
  DiskCache cache(settings);
  try {
    if (cmd == "list") return want(0) ? list(cache, out) : 2;
    if (cmd == "ptx") {
      if (!want(1)) return 2;
      out << cache.read(rest[0]).kernel.ptx;
      return 0;
    }
    if (cmd == "info") return want(1) ? info(cache, rest[0], out) : 2;
    if (cmd == "tuning") return want(0) ? tuning(cache, out) : 2;
    if (cmd == "path") {
      if (!want(0)) return 2;
      out << settings.dir.string() << "\n";
      return 0;
    }
    if (cmd == "clear") {
      if (!want(0)) return 2;
      const std::size_t entries = cache.clear();
      const std::size_t records = TuningStore(settings.dir / "tuning").clear();
      out << "removed " << entries << " entr" << (entries == 1 ? "y" : "ies") << " and " << records
          << " tuning result" << (records == 1 ? "" : "s") << " from " << settings.dir.string() << "\n";
      return 0;
    }
    if (cmd == "trim") {
      if (!want(1)) return 2;
      std::string problem;
      const auto max = detail::parse_byte_size(rest[0].c_str(), &problem);
      if (!max) {
        err << "cutlet-cache: trim: '" << rest[0] << "' " << problem
            << "; nothing was removed (SIZE is bytes, or a number with K, M, G or T)\n";
        return 2;
      }
      const std::uint64_t removed = cache.trim(*max);
      out << "removed " << size_text(removed) << "; " << size_text(cache.total_bytes()) << " left in "
          << cache.kernels_dir().string() << "\n";
      return 0;
    }
    err << "cutlet-cache: unknown command '" << cmd << "'\n" << kUsage;
    return 2;
  } catch (const Error& e) {
    err << e.what() << "\n";
    return 1;
  }
}

}  // namespace cutlet
