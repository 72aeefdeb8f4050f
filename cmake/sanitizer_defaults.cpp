// The sanitizer runtimes' default options for the programs of a sanitized cutlet build
// (CUTLET_SANITIZE: cmake/sanitizers.cmake compiles this file into every program of the tree
// that links cutlet). The runtimes call these functions at start-up; ASAN_OPTIONS,
// UBSAN_OPTIONS, LSAN_OPTIONS and TSAN_OPTIONS still override them.
#define CUTLET_SANITIZER_DEFAULT extern "C" __attribute__((visibility("default"), used))

/// The CUDA driver maps device memory where AddressSanitizer keeps its shadow gap; the CPU
/// device reports an allocation the host cannot serve as a GPU reports one (the tests ask for
/// a petabyte), so malloc must fail rather than stop the program. The dynamic TLS of the
/// libraries cutlet loads with dlopen (NVRTC, nvJitLink) is not tracked: after an LTO link
/// LeakSanitizer's exit-time scan met a dynamic TLS block with a bogus range and crashed
/// ("Tracer caught signal 11"); the static TLS of cutlet and the program is still scanned.
CUTLET_SANITIZER_DEFAULT const char* __asan_default_options() {
  return "protect_shadow_gap=0:allocator_may_return_null=1:intercept_tls_get_addr=0";
}

/// Where undefined behaviour was met, not only that it was.
CUTLET_SANITIZER_DEFAULT const char* __ubsan_default_options() { return "print_stacktrace=1"; }

/// nvJitLink keeps some of its allocations when a link completes or fails, after
/// nvJitLinkDestroy: not cutlet's to free.
CUTLET_SANITIZER_DEFAULT const char* __lsan_default_suppressions() { return "leak:libnvJitLink.so\n"; }

/// A deadlock report shows where both locks were taken.
CUTLET_SANITIZER_DEFAULT const char* __tsan_default_options() { return "second_deadlock_stack=1"; }
