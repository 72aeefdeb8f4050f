# Install rules: the shared libraries, the public headers, the cutlet-cache tool, and the files
# other projects find cutlet by: the CMake package (find_package(cutlet 0.2) gives
# cutlet::cutlet) and cutlet.pc for pkg-config. Paths are GNUInstallDirs', relative to the
# prefix, so `cmake --install <build> --prefix <dir>` may put the tree anywhere.
include(CMakePackageConfigHelpers)

set(cutlet_package_dir "${CMAKE_INSTALL_LIBDIR}/cmake/cutlet")

# The libraries and the umbrella, exported as cutlet::ir ... cutlet::jit, cutlet::algorithms and
# cutlet::cutlet.
# Their private dependencies (LLVM, NVRTC, nvJitLink, libbacktrace) stay out of the exported
# link interface: users link cutlet's libraries alone, which find the rest by their run paths.
install(TARGETS cutlet_ir cutlet_runtime cutlet_backend cutlet_language cutlet_jit cutlet_algorithms cutlet
  EXPORT cutletTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(EXPORT cutletTargets NAMESPACE cutlet:: DESTINATION ${cutlet_package_dir})
# The same targets for the build tree, beside the cutletConfig.cmake written below: a project
# configured with -Dcutlet_DIR=<this build> uses the libraries where they were built and the
# headers in the source tree, without an install (examples/pytorch's test does).
export(EXPORT cutletTargets NAMESPACE cutlet:: FILE ${PROJECT_BINARY_DIR}/cutletTargets.cmake)

# Each library's include/ holds only its public headers (private ones sit beside the sources).
foreach(library_dir ir runtime backend dsl/language dsl/jit dsl algorithms)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/${library_dir}/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
endforeach()
install(FILES ${CUTLET_GENERATED_INCLUDE_DIR}/cutlet/version.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/cutlet)

if(TARGET cutlet-cache)
  file(RELATIVE_PATH cutlet_bin_to_lib ${CMAKE_INSTALL_FULL_BINDIR} ${CMAKE_INSTALL_FULL_LIBDIR})
  set_target_properties(cutlet-cache PROPERTIES
    INSTALL_RPATH "$ORIGIN/${cutlet_bin_to_lib}"
    INSTALL_RPATH_USE_LINK_PATH ON)
  install(TARGETS cutlet-cache RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()

# The CMake package. SameMinorVersion: before 1.0 a minor version may break the API and ABI
# (the sonames are libcutlet_*.so.MAJOR.MINOR), so find_package(cutlet 0.2) accepts 0.2.x
# alone, the newest patch first; AnyNewerVersion or SameMajorVersion would accept 0.3.
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/cutletConfig.cmake.in
  ${PROJECT_BINARY_DIR}/cutletConfig.cmake
  INSTALL_DESTINATION ${cutlet_package_dir})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/cutletConfigVersion.cmake
  VERSION ${PROJECT_VERSION}
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/cutletConfig.cmake ${PROJECT_BINARY_DIR}/cutletConfigVersion.cmake
  ${CMAKE_CURRENT_LIST_DIR}/cutlet_aot_export.cmake
  DESTINATION ${cutlet_package_dir})

# cutlet.pc. Its prefix is found from the file's own place (${pcfiledir}), as the CMake
# package's is, so the tree stays usable wherever `cmake --install --prefix` puts it. A
# sanitized build's libraries need their programs linked with the same sanitizers.
set(cutlet_pc_sanitize "")
if(CUTLET_SANITIZER_LINK_OPTION)
  set(cutlet_pc_sanitize " ${CUTLET_SANITIZER_LINK_OPTION}")
endif()
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  set(cutlet_pc_prefix "${CMAKE_INSTALL_PREFIX}")
  set(cutlet_pc_libdir "${CMAKE_INSTALL_LIBDIR}")
else()
  file(RELATIVE_PATH cutlet_pc_to_prefix /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
  string(REGEX REPLACE "/$" "" cutlet_pc_to_prefix "${cutlet_pc_to_prefix}")
  set(cutlet_pc_prefix "\${pcfiledir}/${cutlet_pc_to_prefix}")
  set(cutlet_pc_libdir "\${prefix}/${CMAKE_INSTALL_LIBDIR}")
endif()
if(IS_ABSOLUTE "${CMAKE_INSTALL_INCLUDEDIR}")
  set(cutlet_pc_includedir "${CMAKE_INSTALL_INCLUDEDIR}")
else()
  set(cutlet_pc_includedir "\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}")
endif()
configure_file(${CMAKE_CURRENT_LIST_DIR}/cutlet.pc.in ${PROJECT_BINARY_DIR}/cutlet.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/cutlet.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
