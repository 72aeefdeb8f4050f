// CUTLET_DUMP=sass: nvdisasm run on the linked cubin, through a temporary file.
#include "sass.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>

#include "cutlet/log.h"

namespace cutlet::backend {
namespace {

/// `s` in single quotes for /bin/sh.
std::string shell_quoted(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

/// Removes a temporary file when the scope ends.
struct TempFile {
  std::string path;
  ~TempFile() {
    if (!path.empty()) ::unlink(path.c_str());
  }
};

}  // namespace

std::filesystem::path find_on_path(std::string_view program) {
  const char* path = std::getenv("PATH");
  if (!path) return {};
  std::string_view dirs = path;
  while (true) {
    const auto colon = dirs.find(':');
    const std::string_view dir = dirs.substr(0, colon);
    if (!dir.empty()) {
      const std::filesystem::path candidate = std::filesystem::path(dir) / program;
      std::error_code ec;
      if (std::filesystem::is_regular_file(candidate, ec) && ::access(candidate.c_str(), X_OK) == 0) return candidate;
    }
    if (colon == std::string_view::npos) return {};
    dirs.remove_prefix(colon + 1);
  }
}

std::optional<std::string> disassemble_for_dump(const std::vector<char>& cubin, const std::string& kernel) {
  static const std::filesystem::path nvdisasm = find_on_path("nvdisasm");
  if (nvdisasm.empty()) {
    static std::once_flag noted;
    std::call_once(noted, [] {
      log_message(LogLevel::Warn,
                  "CUTLET_DUMP=sass: nvdisasm is not on the PATH (it is in the CUDA toolkit's bin directory); "
                  "the sass stage is skipped");
    });
    return std::nullopt;
  }
  TempFile temp;
  std::string name = (std::filesystem::temp_directory_path() / "cutlet-sass-XXXXXX").string();
  const int fd = ::mkstemp(name.data());
  if (fd < 0) {
    log_message(LogLevel::Warn, "CUTLET_DUMP=sass: cannot create a temporary file for kernel '" + kernel + "'");
    return std::nullopt;
  }
  temp.path = name;
  std::size_t done = 0;
  while (done < cubin.size()) {
    const ssize_t n = ::write(fd, cubin.data() + done, cubin.size() - done);
    if (n <= 0) break;
    done += static_cast<std::size_t>(n);
  }
  ::close(fd);
  if (done != cubin.size()) {
    log_message(LogLevel::Warn, "CUTLET_DUMP=sass: cannot write the cubin of kernel '" + kernel + "' to " + name);
    return std::nullopt;
  }
  const std::string command = shell_quoted(nvdisasm.string()) + " -c " + shell_quoted(name) + " 2>&1";
  FILE* pipe = ::popen(command.c_str(), "r");
  if (!pipe) {
    log_message(LogLevel::Warn, "CUTLET_DUMP=sass: cannot run " + nvdisasm.string());
    return std::nullopt;
  }
  std::string out;
  char buf[4096];
  std::size_t got;
  while ((got = std::fread(buf, 1, sizeof buf, pipe)) > 0) out.append(buf, got);
  const int status = ::pclose(pipe);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    log_message(LogLevel::Warn, "CUTLET_DUMP=sass: " + nvdisasm.string() + " failed on kernel '" + kernel +
                                    "': " + out.substr(0, out.find('\n')));
    return std::nullopt;
  }
  return out;
}

}  // namespace cutlet::backend
