// Internal: the toolkit libraries the runtime opens with dlopen on first use (nvJitLink for
// Linker, NVRTC for Program), so that a program linked with cutlet_runtime starts, and runs
// kernels compiled ahead of time, on machines that have neither.
#pragma once

#include <mutex>
#include <string>
#include <vector>

namespace cutlet::detail {

/// A shared library opened on the first symbol() call: the first of `candidates` (file names
/// searched as dlopen searches, then absolute paths) that opens. Thread-safe.
class ToolkitLibrary {
 public:
  /// `what` names the library in messages ("nvJitLink"), `needed_for` what it serves
  /// ("linking PTX into cubins").
  ToolkitLibrary(std::string what, std::string needed_for, std::vector<std::string> candidates);
  /// The address of `name`. Throws cutlet::Error saying which library is missing (or lacks the
  /// symbol), where it was looked for, and what to install or set.
  void* symbol(const char* name) const;
  /// Whether the library opens (opening it if it has not been).
  bool available() const;

 private:
  void* handle() const;
  std::string what_, needed_for_;
  std::vector<std::string> candidates_;
  // Opened once: a library that is missing stays missing for the process, as the driver does.
  mutable std::once_flag once_;
  mutable void* handle_ = nullptr;
  mutable std::string errors_;  ///< why each candidate did not open
};

}  // namespace cutlet::detail
