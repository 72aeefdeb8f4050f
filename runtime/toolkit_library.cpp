// Opening toolkit libraries with dlopen on first use (see toolkit_library.h).
#include "toolkit_library.h"

#include <dlfcn.h>

#include "cutlet/error.h"

namespace cutlet::detail {

ToolkitLibrary::ToolkitLibrary(std::string what, std::string needed_for, std::vector<std::string> candidates)
    : what_(std::move(what)), needed_for_(std::move(needed_for)), candidates_(std::move(candidates)) {}

void* ToolkitLibrary::handle() const {
  std::call_once(once_, [this] {
    for (const std::string& c : candidates_) {
      if ((handle_ = ::dlopen(c.c_str(), RTLD_NOW | RTLD_LOCAL))) return;
      const char* e = ::dlerror();
      errors_ += "\n  " + c + ": " + (e ? e : "not found");
    }
  });
  if (!handle_)
    throw Error("cutlet: " + needed_for_ + " needs the CUDA toolkit's " + what_ + " library, which did not open:" + errors_ +
                "\nInstall the CUDA toolkit (or its " + what_ + " package) and put its lib64 folder on LD_LIBRARY_PATH.");
  return handle_;
}

void* ToolkitLibrary::symbol(const char* name) const {
  void* h = handle();
  void* p = ::dlsym(h, name);
  if (!p)
    throw Error("cutlet: the " + what_ + " library that opened has no " + name +
                "; it is older than the toolkit cutlet was built with: put a newer one on LD_LIBRARY_PATH.");
  return p;
}

bool ToolkitLibrary::available() const {
  try {
    handle();
    return true;
  } catch (const Error&) {
    return false;
  }
}

}  // namespace cutlet::detail
