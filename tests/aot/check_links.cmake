# aot.consumer_links_runtime_only: PROGRAM, a program that launches kernels exported ahead of
# time, needs cutlet's runtime (and its IR library) and none of LLVM, nvJitLink, NVRTC or
# cutlet's backend, language and JIT: its own NEEDED entries (READELF -d) name none of them, and
# of all the libraries it loads (LDD) none is LLVM, nvJitLink, NVRTC or another cutlet library
# (libcutlet_runtime opens nvJitLink and NVRTC with dlopen, and only when Linker or Program is
# used, which launches of exported kernels never do).
cmake_minimum_required(VERSION 3.24)

execute_process(COMMAND "${READELF}" -d "${PROGRAM}" RESULT_VARIABLE rc OUTPUT_VARIABLE dynamic ERROR_VARIABLE dynamic)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${READELF} -d ${PROGRAM} failed (${rc}):\n${dynamic}")
endif()
string(REGEX MATCHALL "\\(NEEDED\\)[^\n]*\\[[^\n]*\\]" entries "${dynamic}")
set(needed "")
foreach(entry IN LISTS entries)
  string(REGEX REPLACE ".*\\[(.*)\\]" "\\1" library "${entry}")
  list(APPEND needed "${library}")
endforeach()
message(STATUS "${PROGRAM} needs: ${needed}")
if(NOT needed MATCHES "libcutlet_runtime")
  message(FATAL_ERROR "the program does not link libcutlet_runtime: ${needed}")
endif()
foreach(library IN LISTS needed)
  if(library MATCHES "LLVM|nvJitLink|nvrtc|libcutlet_backend|libcutlet_language|libcutlet_jit")
    message(FATAL_ERROR "the program links ${library}; launching exported kernels needs cutlet's runtime alone")
  endif()
endforeach()

execute_process(COMMAND "${LDD}" "${PROGRAM}" RESULT_VARIABLE rc OUTPUT_VARIABLE loaded ERROR_VARIABLE loaded)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${LDD} ${PROGRAM} failed (${rc}):\n${loaded}")
endif()
message(STATUS "${LDD} ${PROGRAM}:\n${loaded}")
string(REGEX MATCHALL "[^\n\t ]*(libLLVM|libnvJitLink|libnvrtc|libcutlet_backend|libcutlet_language|libcutlet_jit)[^\n\t ]*" unwanted "${loaded}")
if(unwanted)
  message(FATAL_ERROR "the program loads ${unwanted}; launching exported kernels needs cutlet's runtime alone")
endif()
if(loaded MATCHES "not found")
  message(FATAL_ERROR "the program cannot find all of its libraries:\n${loaded}")
endif()
