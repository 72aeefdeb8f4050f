// Stack walking with libbacktrace (shipped with GCC) to attribute traced ops to user lines.
#include "source_lines.h"

#include <backtrace.h>

#include <cstring>
#include <mutex>

#include "cutlet/language/trace.h"
#include "cutlet/runtime/environment.h"

namespace cutlet::detail {
namespace {

backtrace_state* state() {
  static std::once_flag once;
  static backtrace_state* s = nullptr;
  std::call_once(once, [] { s = backtrace_create_state(nullptr, /*threaded=*/1, nullptr, nullptr); });
  return s;
}

/// Frames of cutlet itself (its headers and sources), of the standard library and of the C
/// library's program start (where a program without debug info is first seen: its frames
/// have no lines, and the start's are nobody's kernel).
bool is_library_frame(const char* file) {
  static const char* markers[] = {"/include/cutlet/", "/c++/", "/bits/", "/dsl/language/trace.cpp",
                                  "/dsl/jit/specialization.cpp", "/dsl/language/source_lines.cpp",
                                  "sysdeps/", "/csu/", "libc-start", "libc_start"};
  for (const char* m : markers)
    if (std::strstr(file, m)) return true;
  return false;
}

struct Search {
  ir::Location found;
};

int on_frame(void* data, std::uintptr_t, const char* file, int line, const char*) {
  auto* s = static_cast<Search*>(data);
  if (!file || line <= 0 || is_library_frame(file)) return 0;
  s->found = {file, static_cast<std::uint32_t>(line)};  // libbacktrace keeps names for the process
  return 1;
}

void on_error(void*, const char*, int) {}

}  // namespace

ir::Location caller_location() {
  Search s;
  if (backtrace_state* st = state()) backtrace_full(st, 1, on_frame, on_error, &s);
  return s.found;
}

bool line_info_from_environment() {
  static const bool on = env_flag("CUTLET_LINEINFO", false);
  return on;
}

}  // namespace cutlet::detail
