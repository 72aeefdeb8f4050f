// Boolean environment variables (see environment.h).
#include "cutlet/runtime/environment.h"

#include <cctype>
#include <cstdlib>
#include <string>
#include <string_view>

#include "cutlet/error.h"

namespace cutlet::detail {
namespace {

bool is_space(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }

/// `text` without the spaces around it, in lower case.
std::string normalized(std::string_view text) {
  while (!text.empty() && is_space(text.front())) text.remove_prefix(1);
  while (!text.empty() && is_space(text.back())) text.remove_suffix(1);
  std::string s(text);
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

bool parse_env_flag(const char* name, const char* value, bool fallback) {
  if (!value) return fallback;
  const std::string v = normalized(value);
  if (v.empty()) return fallback;
  if (v == "1" || v == "on" || v == "true" || v == "yes") return true;
  if (v == "0" || v == "off" || v == "false" || v == "no") return false;
  throw Error(std::string("cutlet: the environment variable ") + name + "='" + value +
              "' is not a boolean; write 1, on, true or yes to turn it on, 0, off, false or no to turn it off "
              "(in any case), or leave it unset or empty for the default (" + (fallback ? "on" : "off") + ")");
}

bool env_flag(const char* name, bool fallback) { return parse_env_flag(name, std::getenv(name), fallback); }

}  // namespace cutlet::detail
