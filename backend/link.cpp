// Linking a kernel's PTX to a cubin (through the runtime's Linker, the one nvJitLink wrapper)
// and parsing the linker's resource report.
#include <cctype>
#include <optional>
#include <string_view>

#include "cutlet/backend/compiler.h"
#include "cutlet/runtime/linker.h"
#include "cutlet/scoped_range.h"

namespace cutlet {

std::string nvjitlink_version() { return Linker::version(); }
std::string nvjitlink_build_id() { return Linker::library_build_id(); }

std::vector<char> link_ptx(const std::string& ptx, const Target& target, const std::string& name,
                           std::string* info_log, bool line_info) {
  detail::ScopedRange range{"nvJitLink", name, target.arch()};
  LinkerOptions o;
  o.arch = target.arch();
  o.verbose = true;     // the resource report parse_resource_usage reads
  o.opt_level = -1;     // nvJitLink's default: ptxas optimizes, and accepts line tables
  if (line_info) o.options.push_back("-lineinfo");
  Linker linker(o);
  linker.add_ptx(ptx, name + ".ptx");
  try {
    ObjectCode cubin = linker.link();
    if (info_log) *info_log = std::move(cubin.log);
    return std::move(cubin.data);
  } catch (const LinkError& e) {
    throw CompileError("cutlet: nvJitLink failed to link kernel '" + name + "' for " + target.arch() + ": " + e.what());
  }
}

namespace {

/// The decimal number that ends right before the first `suffix` in `text` ("41" for " bytes
/// smem" in "41 bytes smem"), or nothing. Plain searching, not std::regex: constructing a
/// regex per compile costs more than the search, and std::regex's locale caches race between
/// threads compiling at once.
std::optional<int> number_before(std::string_view text, std::string_view suffix) {
  const std::size_t at = text.find(suffix);
  if (at == std::string_view::npos) return std::nullopt;
  std::size_t begin = at;
  while (begin > 0 && std::isdigit(static_cast<unsigned char>(text[begin - 1]))) --begin;
  if (begin == at) return std::nullopt;
  return std::stoi(std::string(text.substr(begin, at - begin)));
}

/// The decimal number N of the first "<prefix>N<suffix>" in `text`, or nothing.
std::optional<int> number_between(std::string_view text, std::string_view prefix, std::string_view suffix) {
  for (std::size_t at = text.find(prefix); at != std::string_view::npos; at = text.find(prefix, at + 1)) {
    const std::size_t begin = at + prefix.size();
    std::size_t end = begin;
    while (end < text.size() && std::isdigit(static_cast<unsigned char>(text[end]))) ++end;
    if (end > begin && text.substr(end, suffix.size()) == suffix)
      return std::stoi(std::string(text.substr(begin, end - begin)));
  }
  return std::nullopt;
}

}  // namespace

ResourceUsage parse_resource_usage(const std::string& log, const std::string& kernel) {
  ResourceUsage u;
  // ptxas reports, per function:
  //   ptxas info    : Function properties for NAME
  //       N bytes stack frame, N bytes spill stores, N bytes spill loads
  //   ptxas info    : Used N registers, used N barriers, N bytes smem, N bytes cmem[0]
  std::size_t at = log.find("Function properties for " + kernel);
  if (at == std::string::npos) at = log.find("Compiling entry function '" + kernel + "'");
  if (at == std::string::npos) at = 0;
  const std::string_view rest = std::string_view(log).substr(at);
  const auto stack = number_before(rest, " bytes stack frame, ");
  const auto stores = number_before(rest, " bytes spill stores, ");
  const auto loads = number_before(rest, " bytes spill loads");
  if (stack && stores && loads) {
    u.stack_bytes = *stack;
    u.spill_store_bytes = *stores;
    u.spill_load_bytes = *loads;
  }
  if (auto r = number_between(rest, "Used ", " registers")) u.registers = *r;
  if (auto s = number_before(rest, " bytes smem")) u.shared_bytes = *s;
  if (auto c = number_before(rest, " bytes cmem[0]")) u.constant_bytes = *c;
  return u;
}

}  // namespace cutlet
