// Validating the names of kernels and device functions (see symbol_name.h).
#include "cutlet/jit/symbol_name.h"

#include "cutlet/error.h"
#include "cutlet/ir/function.h"

namespace cutlet::detail {
namespace {
bool is_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$'; }
bool is_rest(char c) { return is_start(c) || (c >= '0' && c <= '9'); }
}  // namespace

std::string symbol_name_like(std::string_view name) {
  std::string s;
  for (char c : name) s += is_rest(c) ? c : '_';
  if (s.empty() || !is_start(s[0])) s = "_" + s;
  return s.substr(0, 1024);
}

void check_symbol_name(const std::string& name, const char* what, const std::source_location& defined) {
  if (ir::is_symbol_name(name)) return;
  throw Error(std::string("cutlet: '") + name + "' cannot name a " + what + " (defined at " + defined.file_name() + ":" +
              std::to_string(defined.line()) +
              "): PTX names are a letter, '_' or '$' followed by letters, digits, '_' or '$' (at most 1024); "
              "write for example '" + symbol_name_like(name) + "'");
}

}  // namespace cutlet::detail
