// Internal: hardware faults of kernel code run on the host (an access to an address nothing is
// mapped at, a bus error, an integer division by zero) turned into errors of the launch,
// instead of signals that end the process.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>

namespace cutlet::backend {

/// A hardware fault that kernel code took on the calling host thread.
struct HostFault {
  int signal = 0;              ///< SIGSEGV, SIGBUS or SIGFPE
  int code = 0;                ///< the signal's si_code
  std::uintptr_t address = 0;  ///< the address accessed (SIGSEGV, SIGBUS), the instruction's (SIGFPE)
  enum class Access { unknown, read, write } access = Access::unknown;

  /// What happened, for messages: "a write to address 0x10, where nothing is mapped",
  /// "an integer division by zero", ...
  std::string describe() const;
  /// Whether the fault is an access to memory (SIGSEGV, SIGBUS), CUDA's illegal address.
  bool illegal_address() const;
};

/// The message of an error for `fault` in kernel `kernel` while it ran `where` ("block (0, 0,
/// 0)"): "cutlet: kernel 'k' on the CPU made a write to address 0x10, where nothing is mapped,
/// in block (0, 0, 0)", and for a bad address what to look for and how checked mode finds it.
std::string fault_message(const std::string& kernel, const HostFault& fault, const std::string& where);

/// Calls `fn(context)` on the calling thread. When code it calls takes a hardware fault
/// (SIGSEGV, SIGBUS, SIGFPE), the call is abandoned where the fault happened and the fault is
/// returned; otherwise std::nullopt (an exception `fn` throws passes through). Abandoning drops
/// the frames between without running their destructors: only kernel code and the block loops
/// may lie between, and what they leave half done (a block's fibers) must be discarded. Calls
/// may nest; the innermost takes the fault. A fault on a thread outside any such call goes to
/// the handler installed before cutlet's (by default it ends the process, as without cutlet).
std::optional<HostFault> catch_faults(void (*fn)(void*), void* context);

/// catch_faults for a callable.
template <class F>
std::optional<HostFault> catch_faults(F&& f) {
  using Callable = std::remove_reference_t<F>;
  return catch_faults([](void* c) { (*static_cast<Callable*>(c))(); }, static_cast<void*>(&f));
}

}  // namespace cutlet::backend
