// The persistent kernel cache's settings from the environment, and the process-wide instance.
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "cutlet/jit/disk_cache.h"
#include "cutlet/runtime/environment.h"

namespace cutlet {
namespace detail {
std::optional<std::uint64_t> parse_byte_size(const char* text) {
  char* end = nullptr;
  errno = 0;
  const unsigned long long n = std::strtoull(text, &end, 10);
  if (errno || end == text || text[0] == '-') return std::nullopt;
  std::uint64_t scale = 1;
  switch (std::toupper(static_cast<unsigned char>(*end))) {
    case 0: break;
    case 'K': scale = 1ull << 10; ++end; break;
    case 'M': scale = 1ull << 20; ++end; break;
    case 'G': scale = 1ull << 30; ++end; break;
    case 'T': scale = 1ull << 40; ++end; break;
    default: return std::nullopt;
  }
  if (*end == 'i' || *end == 'I') ++end;
  if (*end == 'b' || *end == 'B') ++end;
  if (*end) return std::nullopt;
  return n * scale;
}
}  // namespace detail

namespace {

std::mutex& global_mu() {
  static auto* mu = new std::mutex();  // outlives static destructors
  return *mu;
}
std::shared_ptr<DiskCache>& global_cache() {
  static auto* cache = new std::shared_ptr<DiskCache>();
  return *cache;
}

}  // namespace

DiskCacheSettings DiskCacheSettings::from_environment() {
  DiskCacheSettings s;
  if (!detail::env_flag("CUTLET_CACHE", true)) return s;
  if (const char* dir = std::getenv("CUTLET_CACHE_DIR"); dir && *dir) {
    s.dir = dir;
  } else if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && xdg[0] == '/') {
    s.dir = std::filesystem::path(xdg) / "cutlet";
  } else if (const char* home = std::getenv("HOME"); home && *home) {
    s.dir = std::filesystem::path(home) / ".cache" / "cutlet";
  }
  if (const char* max = std::getenv("CUTLET_CACHE_MAX_BYTES"); max && *max) {
    if (auto n = detail::parse_byte_size(max)) {
      s.max_bytes = *n;
    } else {
      static std::once_flag warned;
      std::call_once(warned, [&] {
        std::fprintf(stderr,
                     "cutlet: CUTLET_CACHE_MAX_BYTES='%s' is not a size (write bytes, or a number with K, M or G); "
                     "using the default of 1 GiB\n",
                     max);
      });
    }
  }
  return s;
}

std::shared_ptr<DiskCache> disk_cache() {
  std::lock_guard lock(global_mu());
  auto& c = global_cache();
  if (!c) c = std::make_shared<DiskCache>(DiskCacheSettings::from_environment());
  return c;
}

void set_disk_cache_settings(DiskCacheSettings settings) {
  auto fresh = std::make_shared<DiskCache>(std::move(settings));
  std::lock_guard lock(global_mu());
  global_cache() = std::move(fresh);
}

}  // namespace cutlet
