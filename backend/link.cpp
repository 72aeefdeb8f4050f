// Linking a kernel's PTX to a cubin (through the runtime's Linker, the one nvJitLink wrapper)
// and parsing the linker's resource report.
#include <regex>

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

ResourceUsage parse_resource_usage(const std::string& log, const std::string& kernel) {
  ResourceUsage u;
  // ptxas reports, per function:
  //   ptxas info    : Function properties for NAME
  //       N bytes stack frame, N bytes spill stores, N bytes spill loads
  //   ptxas info    : Used N registers, used N barriers, N bytes smem, N bytes cmem[0]
  std::size_t at = log.find("Function properties for " + kernel);
  if (at == std::string::npos) at = log.find("Compiling entry function '" + kernel + "'");
  if (at == std::string::npos) at = 0;
  std::string rest = log.substr(at);
  std::smatch m;
  if (std::regex_search(rest, m, std::regex(R"((\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads)"))) {
    u.stack_bytes = std::stoi(m[1]);
    u.spill_store_bytes = std::stoi(m[2]);
    u.spill_load_bytes = std::stoi(m[3]);
  }
  if (std::regex_search(rest, m, std::regex(R"(Used (\d+) registers)"))) u.registers = std::stoi(m[1]);
  if (std::regex_search(rest, m, std::regex(R"((\d+) bytes smem)"))) u.shared_bytes = std::stoi(m[1]);
  if (std::regex_search(rest, m, std::regex(R"((\d+) bytes cmem\[0\])"))) u.constant_bytes = std::stoi(m[1]);
  return u;
}

}  // namespace cutlet
