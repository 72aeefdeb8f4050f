# CUTLET_SANITIZE: sanitizers for a top-level build of cutlet, as a comma-separated list:
# `address,undefined` (AddressSanitizer with UndefinedBehaviorSanitizer) or `thread`
# (ThreadSanitizer). Its default is the environment variable of the same name, so that the
# README's own commands build sanitized when it is set:
#
#   CUTLET_SANITIZE=address,undefined cmake -S . -B build-asan -G Ninja
#
# cutlet's libraries are compiled with the sanitizers (cutlet_library() applies
# CUTLET_SANITIZER_COMPILE_OPTIONS); every program that links them links the sanitizers'
# runtimes (an interface link option, also in cutlet.pc), so the tests, examples and tools run
# sanitized: any invalid access, leak, data race or undefined behaviour in cutlet fails them
# (undefined behaviour is fatal: -fno-sanitize-recover). The programs' own code is not
# instrumented: it is not what the tests test, and instrumenting it would double the tree's
# build time. The `vptr` check is left out: LLVM is built without RTTI, and cutlet's classes
# derived from LLVM's have no type information for it to read. The tree's programs that link
# cutlet::cutlet get the runtimes' default options of cmake/sanitizer_defaults.cpp
# (AddressSanitizer leaves the CUDA driver its shadow gap, LeakSanitizer leaves nvJitLink's
# own allocations alone).
set(CUTLET_SANITIZE "$ENV{CUTLET_SANITIZE}" CACHE STRING
    "Sanitizers for a top-level build: address,undefined or thread (default: $CUTLET_SANITIZE)")
set(CUTLET_SANITIZER_COMPILE_OPTIONS "")
set(CUTLET_SANITIZER_LINK_OPTION "")
set(CUTLET_SANITIZER_DEFAULTS "")
if(CUTLET_SANITIZE AND PROJECT_IS_TOP_LEVEL)
  string(REPLACE "," ";" cutlet_sanitizers "${CUTLET_SANITIZE}")
  foreach(s ${cutlet_sanitizers})
    if(NOT s MATCHES "^(address|undefined|thread)$")
      message(FATAL_ERROR "CUTLET_SANITIZE: '${s}' is not one of address, undefined, thread "
                          "(write for example CUTLET_SANITIZE=address,undefined)")
    endif()
  endforeach()
  if("thread" IN_LIST cutlet_sanitizers AND "address" IN_LIST cutlet_sanitizers)
    message(FATAL_ERROR "CUTLET_SANITIZE: thread and address cannot be combined; build them in two trees")
  endif()
  string(REPLACE ";" "," cutlet_sanitizers "${cutlet_sanitizers}")
  # -O1 -g1 (after the build type's flags, so they win): the level the sanitizers' authors
  # recommend, and with UndefinedBehaviorSanitizer a third of -O2 -g's compile time, which
  # makes a sanitized tree build as fast as a plain one; -g1 keeps the line tables reports use.
  set(CUTLET_SANITIZER_COMPILE_OPTIONS -fsanitize=${cutlet_sanitizers} -fno-omit-frame-pointer -O1 -g1)
  if(cutlet_sanitizers MATCHES "undefined")
    list(APPEND CUTLET_SANITIZER_COMPILE_OPTIONS -fno-sanitize-recover=undefined -fno-sanitize=vptr)
  endif()
  set(CUTLET_SANITIZER_LINK_OPTION "-fsanitize=${cutlet_sanitizers}")
  # dsl/CMakeLists.txt adds the defaults to the programs that link cutlet::cutlet in this tree.
  set(CUTLET_SANITIZER_DEFAULTS "${CMAKE_CURRENT_LIST_DIR}/sanitizer_defaults.cpp")
  message(STATUS "cutlet: sanitizers ${cutlet_sanitizers} in cutlet's libraries")
endif()
