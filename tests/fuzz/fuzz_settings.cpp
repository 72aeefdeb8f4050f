#include "fuzz/fuzz_settings.h"

#include <charconv>
#include <cstdlib>
#include <string>
#include <string_view>

#include "cutlet/error.h"

namespace cutlet::fuzz {

std::uint64_t env_count(const char* name, std::uint64_t fallback) {
  const char* raw = std::getenv(name);
  if (!raw) return fallback;
  std::string_view v(raw);
  while (!v.empty() && v.front() == ' ') v.remove_prefix(1);
  while (!v.empty() && v.back() == ' ') v.remove_suffix(1);
  if (v.empty()) return fallback;
  std::uint64_t out = 0;
  const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
  if (ec != std::errc{} || end != v.data() + v.size())
    throw Error(std::string(name) + "='" + raw + "' is not an unsigned decimal number (e.g. " + name + "=1000)");
  return out;
}

SeedRange seed_range_from_environment(std::uint64_t default_count) {
  return {env_count("CUTLET_FUZZ_START", 0), env_count("CUTLET_FUZZ_COUNT", default_count)};
}

}  // namespace cutlet::fuzz
