# <cutlet/version.h>, generated from project(VERSION) into the build tree's include/ (which
# cutlet_ir puts on every user's include path) and installed with the other headers.
set(CUTLET_GENERATED_INCLUDE_DIR "${PROJECT_BINARY_DIR}/include")
configure_file(${CMAKE_CURRENT_LIST_DIR}/version.h.in ${CUTLET_GENERATED_INCLUDE_DIR}/cutlet/version.h @ONLY)
