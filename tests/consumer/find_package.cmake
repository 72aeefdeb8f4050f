# package.find_package: installs the cutlet build CUTLET_BUILD_DIR to a prefix in WORK_DIR, checks
# what was installed, then builds and runs find_package/ against that prefix, and links the same
# program again with the flags of the installed cutlet.pc (when PKG_CONFIG names pkg-config).
# Other inputs: INSTALL_LIBDIR and INSTALL_INCLUDEDIR (relative to the prefix), VERSION, and
# those of steps.cmake.
cmake_minimum_required(VERSION 3.24)
include(${CMAKE_CURRENT_LIST_DIR}/steps.cmake)

set(prefix "${WORK_DIR}/prefix")
set(build "${WORK_DIR}/build")
file(REMOVE_RECURSE "${WORK_DIR}")

set(install_args --install "${CUTLET_BUILD_DIR}" --prefix "${prefix}")
if(CONFIG)
  list(APPEND install_args --config "${CONFIG}")
endif()
consumer_run("installing cutlet" "${CMAKE_COMMAND}" ${install_args})

# The installed tree: the generated version header, and each library under its soname.
file(READ "${prefix}/${INSTALL_INCLUDEDIR}/cutlet/version.h" version_header)
if(NOT version_header MATCHES "#define CUTLET_VERSION_STRING \"${VERSION}\"")
  message(FATAL_ERROR "the installed cutlet/version.h does not say ${VERSION}")
endif()
string(REGEX MATCH "^[0-9]+\\.[0-9]+" soversion "${VERSION}")
foreach(library ir runtime backend language jit algorithms)
  if(NOT EXISTS "${prefix}/${INSTALL_LIBDIR}/libcutlet_${library}.so.${soversion}")
    message(FATAL_ERROR "libcutlet_${library}.so.${soversion} was not installed")
  endif()
endforeach()
# What users of the package link: cutlet's libraries and Threads alone, never LLVM or CUDA.
file(READ "${prefix}/${INSTALL_LIBDIR}/cmake/cutlet/cutletTargets.cmake" targets)
string(REGEX MATCHALL "INTERFACE_LINK_LIBRARIES \"[^\"]*\"" interfaces "${targets}")
foreach(interface IN LISTS interfaces)
  if(interface MATCHES "LLVM|CUDA|nvrtc|nvJitLink|backtrace")
    message(FATAL_ERROR "the exported targets make users link a private dependency: ${interface}")
  endif()
endforeach()

consumer_configure("${CMAKE_CURRENT_LIST_DIR}/find_package" "${build}"
  "-DCMAKE_PREFIX_PATH=${prefix}" -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF)
consumer_cache_value("${build}" cutlet_DIR found_dir)
file(REAL_PATH "${found_dir}" found_dir)
file(REAL_PATH "${prefix}" real_prefix)
string(FIND "${found_dir}" "${real_prefix}/" at)
if(NOT at EQUAL 0)
  message(FATAL_ERROR "find_package(cutlet) found ${found_dir}, not the package installed in ${prefix}")
endif()
consumer_build("${build}")
consumer_program("${build}" program)
consumer_check_program("${program}")

# cutlet.pc: its version, its include directory, and its Libs line alone linking the consumer's
# object into a program that runs without LD_LIBRARY_PATH (the line carries the run path).
if(PKG_CONFIG)
  set(ENV{PKG_CONFIG_PATH} "${prefix}/${INSTALL_LIBDIR}/pkgconfig")
  consumer_run("pkg-config --modversion cutlet" "${PKG_CONFIG}" --modversion cutlet)
  string(STRIP "${consumer_output}" pc_version)
  if(NOT pc_version STREQUAL VERSION)
    message(FATAL_ERROR "cutlet.pc says version '${pc_version}', not ${VERSION}")
  endif()
  consumer_run("pkg-config --cflags cutlet" "${PKG_CONFIG}" --cflags cutlet)
  string(REGEX MATCH "-I[^ \n]+" include_flag "${consumer_output}")
  string(SUBSTRING "${include_flag}" 2 -1 include_dir)
  if(NOT EXISTS "${include_dir}/cutlet/cutlet.h" OR NOT EXISTS "${include_dir}/cutlet/version.h")
    message(FATAL_ERROR "cutlet.pc's Cflags (${consumer_output}) do not name the installed headers")
  endif()
  consumer_run("pkg-config --libs cutlet" "${PKG_CONFIG}" --libs cutlet)
  separate_arguments(libs UNIX_COMMAND "${consumer_output}")
  file(GLOB_RECURSE objects "${build}/CMakeFiles/cutlet_consumer.dir/*.o")
  list(LENGTH objects count)
  if(NOT count EQUAL 1)
    message(FATAL_ERROR "expected one object file of cutlet_consumer, found: ${objects}")
  endif()
  set(pc_program "${WORK_DIR}/cutlet_consumer_pkg_config")
  consumer_run("linking with cutlet.pc's Libs" "${CXX_COMPILER}" ${objects} ${libs} -o "${pc_program}")
  consumer_check_program("${pc_program}")
endif()
