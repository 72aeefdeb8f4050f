# package.fetch_content: configures fetch_content/, which adds CUTLET_SOURCE_DIR as a FetchContent
# subproject, in WORK_DIR with an empty build type, and checks what a parent project gets: its
# build type left empty (fetch_content/ checks that too), its build system holding cutlet's
# libraries and its own program alone (no cutlet tests, examples, benchmarks or tools), and the
# program compiled as C++20 against cutlet's headers. With BUILD (CUTLET_TEST_FETCH_CONTENT_BUILD)
# it also builds everything, cutlet's libraries again included, and runs the program.
# DLPACK_INCLUDE_DIR: the dlpack.h folder the outer build found, passed on to cutlet's.
# Other inputs: those of steps.cmake.
cmake_minimum_required(VERSION 3.24)
include(${CMAKE_CURRENT_LIST_DIR}/steps.cmake)

set(build "${WORK_DIR}/build")
file(REMOVE_RECURSE "${WORK_DIR}")
consumer_configure("${CMAKE_CURRENT_LIST_DIR}/fetch_content" "${build}"
  "-DCUTLET_SOURCE_DIR=${CUTLET_SOURCE_DIR}" -DCMAKE_BUILD_TYPE= -DCMAKE_EXPORT_COMPILE_COMMANDS=ON
  "-DCUTLET_DLPACK_INCLUDE_DIR=${DLPACK_INCLUDE_DIR}")

consumer_cache_value("${build}" CMAKE_BUILD_TYPE build_type)
if(NOT build_type STREQUAL "")
  message(FATAL_ERROR "cutlet set the parent's CMAKE_BUILD_TYPE cache entry to '${build_type}'")
endif()

# Every target of the parent's build system, but for CMake's own (install, edit_cache, ...) and
# the empty custom targets that LLVMConfig.cmake defines for builds inside LLVM's tree
# (intrinsics_gen, omp_gen, ...TableGen; in no `all`).
set(expected cutlet_ir cutlet_runtime cutlet_backend cutlet_language cutlet_jit cutlet_algorithms cutlet_consumer)
set(cmake_utilities edit_cache rebuild_cache install local strip list_install_components test package
  package_source)
file(STRINGS "${build}/CMakeFiles/TargetDirectories.txt" target_dirs)
set(found "")
foreach(dir IN LISTS target_dirs)
  get_filename_component(name "${dir}" NAME)
  string(REGEX REPLACE "\\.dir$" "" name "${name}")
  if(NOT name IN_LIST cmake_utilities AND NOT name MATCHES "^(intrinsics_gen|omp_gen|acc_gen|.*TableGen)$")
    list(APPEND found ${name})
  endif()
endforeach()
foreach(name IN LISTS found)
  if(NOT name IN_LIST expected)
    message(FATAL_ERROR "the parent's build has target ${name}; as a subproject cutlet should add its "
                        "libraries alone (targets: ${found})")
  endif()
endforeach()
foreach(name IN LISTS expected)
  if(NOT name IN_LIST found)
    message(FATAL_ERROR "the parent's build lacks target ${name} (targets: ${found})")
  endif()
endforeach()

# How the parent's program is compiled, where the generator writes compile_commands.json
# (Ninja and Makefiles): C++20 from cutlet::cutlet, and cutlet's include directories.
if(EXISTS "${build}/compile_commands.json")
  file(READ "${build}/compile_commands.json" commands)
  string(JSON count LENGTH "${commands}")
  math(EXPR last "${count} - 1")
  set(consumer_command "")
  foreach(i RANGE ${last})
    string(JSON file GET "${commands}" ${i} file)
    if(file MATCHES "consumer/main\\.cpp$")
      string(JSON consumer_command GET "${commands}" ${i} command)
    endif()
  endforeach()
  if(NOT consumer_command MATCHES "-std=(c|gnu)\\+\\+20")
    message(FATAL_ERROR "cutlet::cutlet did not make the parent's program C++20: ${consumer_command}")
  endif()
  foreach(include_dir dsl/include dsl/jit/include algorithms/include ir/include runtime/include _deps/cutlet-build/include)
    string(FIND "${consumer_command}" "${include_dir}" at)
    if(at EQUAL -1)
      message(FATAL_ERROR "cutlet::cutlet did not put ${include_dir} on the include path: ${consumer_command}")
    endif()
  endforeach()
endif()

if(BUILD)
  consumer_build("${build}")
  consumer_program("${build}" program)
  consumer_check_program("${program}")
endif()
