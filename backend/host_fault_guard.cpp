// Hardware faults of kernel code on the host: a handler for SIGSEGV, SIGBUS and SIGFPE that
// jumps back to the innermost catch_faults of the faulting thread, or passes the signal on.
#include "host_fault_guard.h"

#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <ucontext.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#endif

namespace cutlet::backend {
namespace {

constexpr int kSignals[] = {SIGSEGV, SIGBUS, SIGFPE};

/// One catch_faults call in progress on a thread.
struct Guard {
  sigjmp_buf jump;
  HostFault fault;
  Guard* outer = nullptr;
};

thread_local Guard* t_guard = nullptr;

/// The handlers installed before cutlet's, in kSignals' order.
struct sigaction g_previous[3];

int slot_of(int signal) {
  for (int i = 0; i < 3; ++i)
    if (kSignals[i] == signal) return i;
  return 0;
}

/// Passes a fault that no catch_faults awaits to the handler installed before ours; when that
/// is the default action, restores it, so that the instruction faults again and the process
/// ends as it would have without cutlet.
void pass_on(int signal, siginfo_t* info, void* ucontext) {
  const struct sigaction& p = g_previous[slot_of(signal)];
  if ((p.sa_flags & SA_SIGINFO) != 0 && p.sa_sigaction != nullptr) return p.sa_sigaction(signal, info, ucontext);
  if ((p.sa_flags & SA_SIGINFO) == 0 && p.sa_handler != SIG_DFL && p.sa_handler != SIG_IGN) return p.sa_handler(signal);
  struct sigaction fallback = {};
  fallback.sa_handler = SIG_DFL;
  sigemptyset(&fallback.sa_mask);
  sigaction(signal, &fallback, nullptr);
}

HostFault::Access access_of([[maybe_unused]] void* ucontext) {
#if defined(__x86_64__) && defined(REG_ERR)
  // The page fault's error code: bit 1 set for a write.
  const auto err = static_cast<const ucontext_t*>(ucontext)->uc_mcontext.gregs[REG_ERR];
  return (err & 2) != 0 ? HostFault::Access::write : HostFault::Access::read;
#else
  return HostFault::Access::unknown;
#endif
}

void on_fault(int signal, siginfo_t* info, void* ucontext) {
  Guard* g = t_guard;
  if (g == nullptr) return pass_on(signal, info, ucontext);
  g->fault.signal = signal;
  g->fault.code = info->si_code;
  g->fault.address = reinterpret_cast<std::uintptr_t>(info->si_addr);
  g->fault.access = signal == SIGFPE ? HostFault::Access::unknown : access_of(ucontext);
  t_guard = g->outer;
  siglongjmp(g->jump, 1);
}

void install_handlers() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction action = {};
    action.sa_sigaction = on_fault;
    action.sa_flags = SA_SIGINFO | SA_ONSTACK;  // a fiber that overflowed its stack still gets here
    sigemptyset(&action.sa_mask);
    for (int i = 0; i < 3; ++i) sigaction(kSignals[i], &action, &g_previous[i]);
  });
}

/// A stack for the handler on each thread that runs kernels, unless the thread has one.
class AlternateStack {
 public:
  AlternateStack() {
    stack_t current = {};
    if (sigaltstack(nullptr, &current) != 0 || (current.ss_flags & SS_DISABLE) == 0) return;
    memory_ = std::malloc(kBytes);
    if (memory_ == nullptr) return;
    stack_t mine = {};
    mine.ss_sp = memory_;
    mine.ss_size = kBytes;
    if (sigaltstack(&mine, nullptr) != 0) {
      std::free(memory_);
      memory_ = nullptr;
    }
  }
  ~AlternateStack() {
    if (memory_ == nullptr) return;
    stack_t off = {};
    off.ss_flags = SS_DISABLE;
    sigaltstack(&off, nullptr);
    std::free(memory_);
  }
  AlternateStack(const AlternateStack&) = delete;
  AlternateStack& operator=(const AlternateStack&) = delete;

 private:
  static constexpr std::size_t kBytes = 64 * 1024;
  void* memory_ = nullptr;
};

/// After the jump out of the handler: the frames dropped below this one left their
/// AddressSanitizer redzones poisoned in the thread's stack, where later calls would meet them.
void forget_dropped_frames() {
#if defined(__SANITIZE_ADDRESS__)
  pthread_attr_t attributes;
  if (pthread_getattr_np(pthread_self(), &attributes) != 0) return;
  void* low = nullptr;
  std::size_t size = 0;
  pthread_attr_getstack(&attributes, &low, &size);
  pthread_attr_destroy(&attributes);
  char* here = static_cast<char*>(__builtin_frame_address(0)) - 1024;
  if (low != nullptr && here > static_cast<char*>(low))
    __asan_unpoison_memory_region(low, static_cast<std::size_t>(here - static_cast<char*>(low)));
#endif
}

}  // namespace

std::optional<HostFault> catch_faults(void (*fn)(void*), void* context) {
  install_handlers();
  thread_local AlternateStack alternate_stack;
  Guard guard;
  guard.outer = t_guard;
  // No signal mask is saved (that would be a system call per call): the jump back leaves the
  // fault's signal blocked, and it is unblocked below.
  if (sigsetjmp(guard.jump, 0) == 0) {
    t_guard = &guard;
    struct Restore {
      Guard* outer;
      ~Restore() { t_guard = outer; }
    } restore{guard.outer};
    fn(context);
    return std::nullopt;
  }
  sigset_t blocked;
  sigemptyset(&blocked);
  sigaddset(&blocked, guard.fault.signal);
  pthread_sigmask(SIG_UNBLOCK, &blocked, nullptr);
  forget_dropped_frames();
  return guard.fault;
}

std::string HostFault::describe() const {
  char address_text[32];
  std::snprintf(address_text, sizeof address_text, "0x%llx", static_cast<unsigned long long>(address));
  if (signal == SIGFPE) {
    if (code == FPE_INTDIV) return "an integer division by zero";
    if (code == FPE_INTOVF) return "an integer division overflow (the most negative value divided by -1)";
    return std::string("an arithmetic fault at instruction ") + address_text;
  }
  const char* what = access == Access::write ? "a write to" : access == Access::read ? "a read of" : "an access to";
  if (signal == SIGBUS) return std::string(what) + " address " + address_text + " that its memory cannot back (bus error)";
  if (code == SEGV_ACCERR) return std::string(what) + " address " + address_text + ", which that access may not touch";
  return std::string(what) + " address " + address_text + ", where nothing is mapped";
}

bool HostFault::illegal_address() const { return signal == SIGSEGV || signal == SIGBUS; }

std::string fault_message(const std::string& kernel, const HostFault& fault, const std::string& where) {
  std::string text = "cutlet: kernel '" + kernel + "' on the CPU made " + fault.describe() + ", in " + where;
  if (fault.illegal_address())
    text += " (an index past the end of a buffer, or a pointer this device cannot use?). With CUTLET_CHECK=1 (or "
            "KernelOptions::checked) the kernel names an access that misses a buffer by less than 1 MiB, with its "
            "thread and source line; under gdb, with KernelOptions::line_info, the fault stops at its source line. "
            "Memory the kernel wrote before the fault keeps what it wrote";
  else
    text += " (on a GPU its result is undefined, and no error is raised)";
  return text;
}

}  // namespace cutlet::backend
