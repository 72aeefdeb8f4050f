# cutlet_library(<target> <name>): what every cutlet library shares, applied after its
# add_library(<target> SHARED ...):
#  - cutlet::<name>, the name users link (the installed package exports <target> as
#    cutlet::<name> too, so add_subdirectory/FetchContent builds and find_package() users
#    write the same);
#  - VERSION 0.2.0 and SOVERSION 0.2 (libcutlet_ir.so.0.2): before 1.0 every minor version
#    may break the ABI, so major.minor is the compatibility the soname promises;
#  - installed run paths: $ORIGIN for the other cutlet libraries beside it, and the
#    directories of the libraries it was linked with outside the build (NVRTC, nvJitLink, a
#    shared LLVM), so an installed cutlet runs without LD_LIBRARY_PATH;
#  - in a sanitized build (cmake/sanitizers.cmake), the sanitizers' compile options, and their
#    link option for the library and whatever links it.
function(cutlet_library target name)
  add_library(cutlet::${name} ALIAS ${target})
  set_target_properties(${target} PROPERTIES
    EXPORT_NAME ${name}
    VERSION ${PROJECT_VERSION}
    SOVERSION ${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR}
    INSTALL_RPATH "$ORIGIN"
    INSTALL_RPATH_USE_LINK_PATH ON)
  # A sanitized build (CUTLET_SANITIZE): the library is instrumented, and whatever links it
  # links the sanitizers' runtimes too.
  if(CUTLET_SANITIZER_LINK_OPTION)
    target_compile_options(${target} PRIVATE ${CUTLET_SANITIZER_COMPILE_OPTIONS})
    target_link_options(${target} PUBLIC ${CUTLET_SANITIZER_LINK_OPTION})
  endif()
endfunction()
