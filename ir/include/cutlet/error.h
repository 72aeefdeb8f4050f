// Exceptions shared by every cutlet layer, and the assertion macro for internal invariants.
#pragma once

#include <source_location>
#include <stdexcept>
#include <string>

namespace cutlet {

/// Base class of every exception cutlet throws for a user-visible failure: bad kernel
/// code found while tracing, a compile or link failure, a driver error, a bad launch.
/// what() is a complete message: what went wrong, where, and what to do instead.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A broken internal invariant of cutlet itself (a bug to report), never bad user input.
class InternalError : public Error {
 public:
  using Error::Error;
};

/// A kernel run on the host CPU (HostKernel::run, the CPU device) that took a hardware fault
/// (SIGSEGV, SIGBUS, SIGFPE), which would have ended the process: what() names the kernel,
/// the fault, its address and the block, and for a bad address how checked mode finds the
/// access and its source line.
class HostKernelFault : public Error {
 public:
  /// `illegal_address`: the fault was a memory access (CUDA's illegal address).
  HostKernelFault(const std::string& what, bool illegal_address) : Error(what), illegal_address_(illegal_address) {}
  bool illegal_address() const noexcept { return illegal_address_; }

 private:
  bool illegal_address_;
};

/// Formats a source location as "file:line" for messages.
inline std::string to_string(const std::source_location& loc) {
  return std::string(loc.file_name()) + ":" + std::to_string(loc.line());
}

namespace detail {
[[noreturn]] inline void assertion_failed(const char* cond, const char* msg,
                                          std::source_location loc) {
  throw InternalError(std::string("cutlet internal error: ") + msg + " (" + cond + ") at " +
                      to_string(loc) + "; this is a bug in cutlet, please report it");
}
}  // namespace detail

}  // namespace cutlet

/// Checks an internal invariant; throws cutlet::InternalError (a cutlet bug) when it fails.
#define CUTLET_ASSERT(cond, msg)                                                       \
  do {                                                                                 \
    if (!(cond)) ::cutlet::detail::assertion_failed(#cond, msg, std::source_location::current()); \
  } while (0)
