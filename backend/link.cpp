// nvJitLink: PTX to cubin, with the linker's logs, and parsing its resource report.
#include <nvJitLink.h>

#include <cstdio>
#include <regex>

#include "cutlet/backend/compiler.h"

namespace cutlet {
namespace {

std::string result_name(nvJitLinkResult r) {
  static const char* names[] = {"NVJITLINK_SUCCESS",
                                "NVJITLINK_ERROR_UNRECOGNIZED_OPTION",
                                "NVJITLINK_ERROR_MISSING_ARCH",
                                "NVJITLINK_ERROR_INVALID_INPUT",
                                "NVJITLINK_ERROR_PTX_COMPILE",
                                "NVJITLINK_ERROR_NVVM_COMPILE",
                                "NVJITLINK_ERROR_INTERNAL",
                                "NVJITLINK_ERROR_THREADPOOL",
                                "NVJITLINK_ERROR_UNRECOGNIZED_INPUT",
                                "NVJITLINK_ERROR_FINALIZE",
                                "NVJITLINK_ERROR_NULL_INPUT",
                                "NVJITLINK_ERROR_INCOMPATIBLE_OPTIONS",
                                "NVJITLINK_ERROR_INCORRECT_INPUT_TYPE",
                                "NVJITLINK_ERROR_ARCH_MISMATCH",
                                "NVJITLINK_ERROR_OUTDATED_LIBRARY",
                                "NVJITLINK_ERROR_MISSING_FATBIN",
                                "NVJITLINK_ERROR_UNRECOGNIZED_ARCH",
                                "NVJITLINK_ERROR_UNSUPPORTED_ARCH",
                                "NVJITLINK_ERROR_LTO_NOT_ENABLED"};
  auto i = static_cast<std::size_t>(r);
  if (i < std::size(names)) return names[i];
  return "nvJitLink error " + std::to_string(i);
}

std::string error_log(nvJitLinkHandle h) {
  std::size_t n = 0;
  if (nvJitLinkGetErrorLogSize(h, &n) != NVJITLINK_SUCCESS || n <= 1) return {};
  std::string log(n, '\0');
  nvJitLinkGetErrorLog(h, log.data());
  log.resize(n - 1);
  return log;
}

std::string info_log_of(nvJitLinkHandle h) {
  std::size_t n = 0;
  if (nvJitLinkGetInfoLogSize(h, &n) != NVJITLINK_SUCCESS || n <= 1) return {};
  std::string log(n, '\0');
  nvJitLinkGetInfoLog(h, log.data());
  log.resize(n - 1);
  return log;
}

struct Handle {
  nvJitLinkHandle h = nullptr;
  ~Handle() {
    if (h) nvJitLinkDestroy(&h);
  }
};

}  // namespace

std::string nvjitlink_version() {
  unsigned major = 0, minor = 0;
  if (nvJitLinkVersion(&major, &minor) != NVJITLINK_SUCCESS) return "unknown";
  return std::to_string(major) + "." + std::to_string(minor);
}

std::vector<char> link_ptx(const std::string& ptx, const Target& target, const std::string& name,
                           std::string* info_log, bool line_info) {
  std::string arch = "-arch=" + target.arch();
  const char* opts[] = {arch.c_str(), "-verbose", "-lineinfo"};
  Handle h;
  auto fail = [&](const char* call, nvJitLinkResult r) {
    std::string msg = "cutlet: nvJitLink failed to link kernel '" + name + "' for " + target.arch() + ": " +
                      call + " returned " + result_name(r);
    std::string log = h.h ? error_log(h.h) : std::string();
    if (!log.empty()) msg += "\nnvJitLink error log:\n" + log;
    if (r == NVJITLINK_ERROR_MISSING_ARCH || r == NVJITLINK_ERROR_UNRECOGNIZED_OPTION ||
        r == NVJITLINK_ERROR_UNRECOGNIZED_ARCH || r == NVJITLINK_ERROR_UNSUPPORTED_ARCH)
      msg += "\nCheck that this nvJitLink (" + nvjitlink_version() + ") supports " + target.arch() + ".";
    throw CompileError(msg);
  };
  if (auto r = nvJitLinkCreate(&h.h, line_info ? 3 : 2, opts); r != NVJITLINK_SUCCESS) fail("nvJitLinkCreate", r);
  std::string input = name + ".ptx";
  if (auto r = nvJitLinkAddData(h.h, NVJITLINK_INPUT_PTX, ptx.data(), ptx.size(), input.c_str());
      r != NVJITLINK_SUCCESS)
    fail("nvJitLinkAddData", r);
  if (auto r = nvJitLinkComplete(h.h); r != NVJITLINK_SUCCESS) fail("nvJitLinkComplete", r);
  std::size_t size = 0;
  if (auto r = nvJitLinkGetLinkedCubinSize(h.h, &size); r != NVJITLINK_SUCCESS) fail("nvJitLinkGetLinkedCubinSize", r);
  std::vector<char> cubin(size);
  if (auto r = nvJitLinkGetLinkedCubin(h.h, cubin.data()); r != NVJITLINK_SUCCESS) fail("nvJitLinkGetLinkedCubin", r);
  if (info_log) *info_log = info_log_of(h.h);
  return cubin;
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
