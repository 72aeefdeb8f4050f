// The persistent kernel cache's settings from the environment, and the process-wide instance.
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <mutex>

#include "cutlet/jit/disk_cache.h"
#include "cutlet/log.h"
#include "cutlet/runtime/environment.h"

namespace cutlet {
namespace detail {
namespace {

/// The power of 1024 that suffix letter `c` stands for; -1 for no such letter.
int suffix_power(char c) {
  switch (std::toupper(static_cast<unsigned char>(c))) {
    case 'K': return 1;
    case 'M': return 2;
    case 'G': return 3;
    case 'T': return 4;
    default: return -1;
  }
}

std::optional<std::uint64_t> refuse(std::string* problem, const std::string& why) {
  if (problem) *problem = why;
  return std::nullopt;
}

}  // namespace

std::optional<std::uint64_t> parse_byte_size(const char* text, std::string* problem) {
  const char* p = text;
  if (!std::isdigit(static_cast<unsigned char>(*p))) return refuse(problem, "is not a size");
  constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
  const std::string too_large = "is too large: a size is at most 2^64 - 1 bytes (16 EiB)";
  bool overflow = false;
  std::uint64_t n = 0;
  for (; std::isdigit(static_cast<unsigned char>(*p)); ++p) {
    const auto digit = static_cast<std::uint64_t>(*p - '0');
    if (n > (kMax - digit) / 10) overflow = true;
    else n = n * 10 + digit;
  }
  const int power = suffix_power(*p);
  if (power > 0) {
    ++p;
    if (*p == 'i' || *p == 'I') ++p;
  }
  if (*p == 'b' || *p == 'B') ++p;
  if (*p) return refuse(problem, "is not a size");
  if (overflow) return refuse(problem, too_large);
  for (int i = 0; i < power; ++i) {
    if (n > kMax / 1024) return refuse(problem, too_large);
    n *= 1024;
  }
  return n;
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
    std::string problem;
    if (auto n = detail::parse_byte_size(max, &problem)) {
      s.max_bytes = *n;
    } else {
      static std::once_flag warned;
      std::call_once(warned, [&] {
        log_message(LogLevel::Warn, std::string("CUTLET_CACHE_MAX_BYTES='") + max + "' " + problem +
                                        "; using the default of 1 GiB (write bytes, or a number with K, M, G or T; "
                                        "0 for no cap)");
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
