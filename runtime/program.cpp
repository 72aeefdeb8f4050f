// NVRTC: CUDA C++ source to PTX, cubin or LTO-IR, with the toolkit's and CCCL's headers.
#include "cutlet/runtime/program.h"

#include <cstdlib>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "cutlet/runtime/device.h"
#include "cutlet/runtime/driver.h"
#include "nvrtc_api.h"

namespace cutlet {
namespace {

/// Owns an nvrtcProgram.
struct NvrtcProgram {
  nvrtcProgram p = nullptr;
  ~NvrtcProgram() {
    if (p) detail::nvrtc().nvrtcDestroyProgram(&p);
  }
};

std::string program_log(nvrtcProgram p) {
  std::size_t n = 0;
  if (detail::nvrtc().nvrtcGetProgramLogSize(p, &n) != NVRTC_SUCCESS || n <= 1) return {};
  std::string log(n, '\0');
  detail::nvrtc().nvrtcGetProgramLog(p, log.data());
  log.resize(n - 1);
  return log;
}

}  // namespace

const char* to_string(CodeKind kind) noexcept {
  switch (kind) {
    case CodeKind::ptx: return "PTX";
    case CodeKind::cubin: return "cubin";
    case CodeKind::ltoir: return "LTO-IR";
    case CodeKind::fatbin: return "fatbin";
    case CodeKind::object: return "object";
    case CodeKind::library: return "library";
  }
  return "unknown code";
}

const std::string& ObjectCode::lowered_name(const std::string& expression) const {
  auto it = lowered_names.find(expression);
  if (it != lowered_names.end()) return it->second;
  std::string known;
  for (const auto& [k, v] : lowered_names) known += (known.empty() ? "" : ", ") + k;
  throw Error("ObjectCode::lowered_name: '" + expression + "' was not among the name expressions of '" +
              name + "' (" + (known.empty() ? std::string("none were given") : "known: " + known) +
              "); list it in ProgramOptions::name_expressions");
}

/// The first GPU's architecture, or sm_90 where none is the current device (no driver, or
/// CUTLET_DEVICE=cpu: CUDA C++ is for GPUs whatever device runs the rest).
std::string default_arch() {
  if (driver_available()) {
    try {
      const Device d(0);
      if (!d.is_cpu()) return "sm_" + std::to_string(d.compute_capability().sm());
    } catch (const Error&) {
    }
  }
  return "sm_90";
}

Program::Program(std::string source, ProgramOptions options, std::string name)
    : source_(std::move(source)), options_(std::move(options)), name_(std::move(name)) {}

std::string Program::nvrtc_version() {
  int major = 0, minor = 0;
  if (detail::nvrtc().nvrtcVersion(&major, &minor) != NVRTC_SUCCESS) return "unknown";
  return std::to_string(major) + "." + std::to_string(minor);
}

std::vector<std::string> Program::toolkit_include_dirs() {
  namespace fs = std::filesystem;
  std::string root;
  for (const char* var : {"CUDA_HOME", "CUDA_PATH"})
    if (const char* v = std::getenv(var); v && *v && fs::exists(fs::path(v) / "include" / "cuda.h")) {
      root = (fs::path(v) / "include").string();
      break;
    }
  if (root.empty()) root = CUTLET_CUDA_INCLUDE_DIR;
  std::vector<std::string> dirs;
  if (fs::exists(fs::path(root) / "cccl")) dirs.push_back((fs::path(root) / "cccl").string());
  dirs.push_back(root);
  return dirs;
}

std::vector<std::string> Program::nvrtc_options(CodeKind kind) const {
  std::string arch = options_.arch.empty() ? default_arch() : options_.arch;
  // NVRTC emits cubin for a real architecture (sm_XY) and PTX for either; PTX from
  // "compute_XY" is the same as from "sm_XY" here.
  std::vector<std::string> o = {"-arch=" + arch, "-std=" + options_.std, "-default-device"};
  if (kind == CodeKind::ltoir) o.push_back("-dlto");
  if (options_.relocatable || kind == CodeKind::ltoir) o.push_back("-rdc=true");
  if (options_.debug) o.push_back("-G");
  if (options_.line_info) o.push_back("-lineinfo");
  if (options_.fast_math) o.push_back("--use_fast_math");
  for (const std::string& d : toolkit_include_dirs()) o.push_back("-I" + d);
  for (const std::string& d : options_.include_dirs) o.push_back("-I" + d);
  for (const std::string& d : options_.defines) o.push_back("-D" + d);
  for (const std::string& x : options_.options) o.push_back(x);
  return o;
}

ObjectCode Program::compile(CodeKind kind) const {
  if (kind != CodeKind::ptx && kind != CodeKind::cubin && kind != CodeKind::ltoir)
    throw Error(std::string("Program::compile: NVRTC makes PTX, cubin or LTO-IR, not ") + to_string(kind) +
                "; link the result with a Linker for other forms");
  const std::vector<std::string> opts = nvrtc_options(kind);
  const std::string arch = opts.front().substr(6);
  auto fail = [&](const std::string& what, nvrtcResult r, const std::string& log) -> void {
    std::string msg = "Program '" + name_ + "' (" + arch + ", " + to_string(kind) + "): " + what +
                      " failed: " + detail::nvrtc().nvrtcGetErrorString(r);
    if (!log.empty()) msg += "\nNVRTC log:\n" + log;
    if (r == NVRTC_ERROR_INVALID_OPTION)
      msg += "\nCheck the options (" + std::to_string(opts.size()) + " given, NVRTC " + nvrtc_version() + ")";
    throw ProgramError(msg);
  };
  NvrtcProgram prog;
  nvrtcResult r = detail::nvrtc().nvrtcCreateProgram(&prog.p, source_.c_str(), name_.c_str(), 0, nullptr, nullptr);
  if (r != NVRTC_SUCCESS) fail("nvrtcCreateProgram", r, {});
  for (const std::string& e : options_.name_expressions)
    if ((r = detail::nvrtc().nvrtcAddNameExpression(prog.p, e.c_str())) != NVRTC_SUCCESS)
      fail("nvrtcAddNameExpression('" + e + "')", r, {});
  std::vector<const char*> argv;
  for (const std::string& o : opts) argv.push_back(o.c_str());
  r = detail::nvrtc().nvrtcCompileProgram(prog.p, static_cast<int>(argv.size()), argv.data());
  std::string log = program_log(prog.p);
  if (r != NVRTC_SUCCESS) fail("compiling", r, log);

  ObjectCode out;
  out.kind = kind;
  out.name = name_;
  out.log = std::move(log);
  std::size_t size = 0;
  switch (kind) {
    case CodeKind::ptx:
      if ((r = detail::nvrtc().nvrtcGetPTXSize(prog.p, &size)) != NVRTC_SUCCESS) fail("nvrtcGetPTXSize", r, {});
      out.data.resize(size);
      if ((r = detail::nvrtc().nvrtcGetPTX(prog.p, out.data.data())) != NVRTC_SUCCESS) fail("nvrtcGetPTX", r, {});
      while (!out.data.empty() && out.data.back() == '\0') out.data.pop_back();
      break;
    case CodeKind::cubin:
      if ((r = detail::nvrtc().nvrtcGetCUBINSize(prog.p, &size)) != NVRTC_SUCCESS) fail("nvrtcGetCUBINSize", r, {});
      if (size == 0)
        throw ProgramError("Program '" + name_ + "': NVRTC made no cubin for " + arch +
                           "; a cubin needs a real architecture such as sm_90, not compute_90");
      out.data.resize(size);
      if ((r = detail::nvrtc().nvrtcGetCUBIN(prog.p, out.data.data())) != NVRTC_SUCCESS) fail("nvrtcGetCUBIN", r, {});
      break;
    default:
      if ((r = detail::nvrtc().nvrtcGetLTOIRSize(prog.p, &size)) != NVRTC_SUCCESS) fail("nvrtcGetLTOIRSize", r, {});
      out.data.resize(size);
      if ((r = detail::nvrtc().nvrtcGetLTOIR(prog.p, out.data.data())) != NVRTC_SUCCESS) fail("nvrtcGetLTOIR", r, {});
      break;
  }
  for (const std::string& e : options_.name_expressions) {
    const char* lowered = nullptr;
    if ((r = detail::nvrtc().nvrtcGetLoweredName(prog.p, e.c_str(), &lowered)) != NVRTC_SUCCESS)
      fail("nvrtcGetLoweredName('" + e + "')", r, {});
    out.lowered_names[e] = lowered;
  }
  return out;
}

}  // namespace cutlet
