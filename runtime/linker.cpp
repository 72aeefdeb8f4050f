// Linking PTX, cubins, fatbins, LTO-IR and objects into one cubin with nvJitLink.
#include "cutlet/runtime/linker.h"

#include <string>
#include <utility>

#include "cutlet/runtime/program.h"
#include "nvjitlink_api.h"

namespace cutlet {
namespace {

struct LinkHandle {
  nvJitLinkHandle h = nullptr;
  ~LinkHandle() {
    if (h) detail::nvjitlink().nvJitLinkDestroy(&h);
  }
};

std::string result_name(nvJitLinkResult r) {
  // In the order of nvJitLinkResult's values (CUDA 12.x and 13.x).
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
  const auto i = static_cast<std::size_t>(r);
  return i < std::size(names) ? names[i] : "nvJitLink error " + std::to_string(i);
}

std::string read_log(nvJitLinkHandle h, bool error) {
  std::size_t n = 0;
  const detail::NvJitLinkApi& nv = detail::nvjitlink();
  if ((error ? nv.nvJitLinkGetErrorLogSize(h, &n) : nv.nvJitLinkGetInfoLogSize(h, &n)) != NVJITLINK_SUCCESS || n <= 1)
    return {};
  std::string log(n, '\0');
  if (error)
    nv.nvJitLinkGetErrorLog(h, log.data());
  else
    nv.nvJitLinkGetInfoLog(h, log.data());
  log.resize(n - 1);
  return log;
}

nvJitLinkInputType input_type(CodeKind kind) {
  switch (kind) {
    case CodeKind::ptx: return NVJITLINK_INPUT_PTX;
    case CodeKind::cubin: return NVJITLINK_INPUT_CUBIN;
    case CodeKind::ltoir: return NVJITLINK_INPUT_LTOIR;
    case CodeKind::fatbin: return NVJITLINK_INPUT_FATBIN;
    case CodeKind::object: return NVJITLINK_INPUT_OBJECT;
    case CodeKind::library: return NVJITLINK_INPUT_LIBRARY;
  }
  return NVJITLINK_INPUT_ANY;
}

ObjectCode make(CodeKind kind, std::span<const char> bytes, std::string name) {
  ObjectCode c;
  c.kind = kind;
  c.data.assign(bytes.begin(), bytes.end());
  c.name = std::move(name);
  return c;
}

}  // namespace

Linker::Linker(LinkerOptions options) : options_(std::move(options)) {}

std::string Linker::version() {
  unsigned major = 0, minor = 0;
  if (!detail::nvjitlink_available()) return "unavailable";
  if (detail::nvjitlink().nvJitLinkVersion(&major, &minor) != NVJITLINK_SUCCESS) return "unknown";
  return std::to_string(major) + "." + std::to_string(minor);
}

Linker& Linker::add(const ObjectCode& code) {
  if (code.data.empty())
    throw Error("Linker::add: the " + std::string(to_string(code.kind)) + " input '" + code.name +
                "' is empty");
  if (code.kind == CodeKind::ltoir) options_.lto = true;
  inputs_.push_back(code);
  return *this;
}

Linker& Linker::add_ptx(std::string_view ptx, std::string name) {
  return add(make(CodeKind::ptx, {ptx.data(), ptx.size()}, std::move(name)));
}

Linker& Linker::add_cubin(std::span<const char> cubin, std::string name) {
  return add(make(CodeKind::cubin, cubin, std::move(name)));
}

Linker& Linker::add_fatbin(std::span<const char> fatbin, std::string name) {
  return add(make(CodeKind::fatbin, fatbin, std::move(name)));
}

Linker& Linker::add_ltoir(std::span<const char> ltoir, std::string name) {
  return add(make(CodeKind::ltoir, ltoir, std::move(name)));
}

std::vector<std::string> Linker::nvjitlink_options() const {
  std::vector<std::string> o = {"-arch=" + (options_.arch.empty() ? default_arch() : options_.arch)};
  if (options_.opt_level >= 0) o.push_back("-O" + std::to_string(options_.opt_level));
  if (options_.lto) o.push_back("-lto");
  if (options_.verbose) o.push_back("-verbose");
  for (const std::string& x : options_.options) o.push_back(x);
  return o;
}

ObjectCode Linker::link() const {
  if (inputs_.empty()) throw Error("Linker::link: nothing to link; add PTX, cubins, fatbins or LTO-IR first");
  const std::vector<std::string> opts = nvjitlink_options();
  std::vector<const char*> argv;
  for (const std::string& o : opts) argv.push_back(o.c_str());
  LinkHandle h;
  auto fail = [&](const std::string& call, nvJitLinkResult r) {
    std::string names;
    for (const ObjectCode& c : inputs_) names += (names.empty() ? "" : ", ") + c.name + " (" + to_string(c.kind) + ")";
    std::string msg = "Linker (" + opts.front().substr(6) + "): " + call + " returned " + result_name(r) +
                      " while linking " + names;
    const std::string log = h.h ? read_log(h.h, true) : std::string();
    if (!log.empty()) msg += "\nnvJitLink error log:\n" + log;
    if (r == NVJITLINK_ERROR_MISSING_ARCH || r == NVJITLINK_ERROR_UNRECOGNIZED_OPTION ||
        static_cast<int>(r) == 16 || static_cast<int>(r) == 17)  // UNRECOGNIZED_ARCH, UNSUPPORTED_ARCH
      msg += "\nCheck the architecture and options, that every input is for that architecture, and that this "
             "nvJitLink (" + version() + ") supports it";
    throw LinkError(msg);
  };
  if (auto r = detail::nvjitlink().nvJitLinkCreate(&h.h, static_cast<uint32_t>(argv.size()), argv.data()); r != NVJITLINK_SUCCESS)
    fail("nvJitLinkCreate", r);
  for (const ObjectCode& c : inputs_) {
    // PTX must be passed with its terminating NUL.
    std::string text;
    const void* data = c.data.data();
    std::size_t size = c.data.size();
    if (c.kind == CodeKind::ptx && c.data.back() != '\0') {
      text.assign(c.data.data(), c.data.size());
      data = text.c_str();
      size = text.size() + 1;
    }
    if (auto r = detail::nvjitlink().nvJitLinkAddData(h.h, input_type(c.kind), data, size, c.name.c_str()); r != NVJITLINK_SUCCESS)
      fail("nvJitLinkAddData('" + c.name + "')", r);
  }
  if (auto r = detail::nvjitlink().nvJitLinkComplete(h.h); r != NVJITLINK_SUCCESS) fail("nvJitLinkComplete", r);
  ObjectCode out;
  out.kind = CodeKind::cubin;
  out.name = "linked.cubin";
  std::size_t size = 0;
  if (auto r = detail::nvjitlink().nvJitLinkGetLinkedCubinSize(h.h, &size); r != NVJITLINK_SUCCESS) fail("nvJitLinkGetLinkedCubinSize", r);
  out.data.resize(size);
  if (auto r = detail::nvjitlink().nvJitLinkGetLinkedCubin(h.h, out.data.data()); r != NVJITLINK_SUCCESS) fail("nvJitLinkGetLinkedCubin", r);
  out.log = read_log(h.h, false);
  return out;
}

}  // namespace cutlet
