# cutlet_aot_export(): kernels compiled ahead of time, as a library of the build.
#
#   cutlet_aot_export(TARGET <exporter> NAME <name>
#                     [LIBRARY <library>] [OUTPUT_DIR <dir>] [ARCHS <arch>...] [NO_PTX])
#
# <exporter> is an executable target of the caller's: a program that defines cutlet kernels, adds
# the specializations to export to a cutlet::aot::Exporter named <name>, and returns
# Exporter::main(argc, argv). At build time it is built and run as
#   <exporter> <dir> --name <name> [--targets <arch>,...] [--no-ptx]
# which compiles the kernels (LLVM and nvJitLink on the build machine; no GPU needed) and writes
# <dir>/<name>.h and <dir>/<name>.cpp (default <dir>: ${CMAKE_CURRENT_BINARY_DIR}/<name>; a
# relative one is taken from there). ARCHS (sm_80 sm_90 ...) replace the Exporter's targets,
# NO_PTX leaves out the PTX it embeds for newer GPUs. They are exported again whenever the
# exporter changes.
#
# <library> (default: <name>) is a static library of <name>.cpp, position-independent so that
# shared libraries can link it too. Linking it gives <name>.h on the include path, C++20 and
# cutlet::runtime, all that the launch functions need: programs that use only them link neither
# LLVM, nor nvJitLink, nor the rest of cutlet. The exporter has to run where it is built, so a
# cross-compiling build runs an exporter built for the build machine instead (see
# CMAKE_CROSSCOMPILING_EMULATOR).
function(cutlet_aot_export)
  cmake_parse_arguments(PARSE_ARGV 0 arg "NO_PTX" "TARGET;NAME;LIBRARY;OUTPUT_DIR" "ARCHS")
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "cutlet_aot_export: unexpected arguments: ${arg_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT arg_TARGET OR NOT TARGET "${arg_TARGET}")
    message(FATAL_ERROR "cutlet_aot_export: TARGET must name an executable target made before this call "
                        "(the program that calls cutlet::aot::Exporter::main), not '${arg_TARGET}'")
  endif()
  get_target_property(type "${arg_TARGET}" TYPE)
  if(NOT type STREQUAL "EXECUTABLE")
    message(FATAL_ERROR "cutlet_aot_export: TARGET ${arg_TARGET} is a ${type}, not an executable")
  endif()
  if(NOT arg_NAME MATCHES "^[A-Za-z][A-Za-z0-9_]*$")
    message(FATAL_ERROR "cutlet_aot_export: NAME must be the Exporter's name, a C++ identifier, not '${arg_NAME}'")
  endif()
  if(NOT arg_LIBRARY)
    set(arg_LIBRARY "${arg_NAME}")
  endif()
  if(NOT arg_OUTPUT_DIR)
    set(arg_OUTPUT_DIR "${CMAKE_CURRENT_BINARY_DIR}/${arg_NAME}")
  elseif(NOT IS_ABSOLUTE "${arg_OUTPUT_DIR}")
    set(arg_OUTPUT_DIR "${CMAKE_CURRENT_BINARY_DIR}/${arg_OUTPUT_DIR}")
  endif()

  set(header "${arg_OUTPUT_DIR}/${arg_NAME}.h")
  set(source "${arg_OUTPUT_DIR}/${arg_NAME}.cpp")
  set(args "${arg_OUTPUT_DIR}" --name "${arg_NAME}")
  if(arg_ARCHS)
    list(JOIN arg_ARCHS "," archs)
    list(APPEND args --targets "${archs}")
  endif()
  if(arg_NO_PTX)
    list(APPEND args --no-ptx)
  endif()
  # An executable target named first in COMMAND is replaced by its file (and built first).
  add_custom_command(OUTPUT "${header}" "${source}"
    COMMAND "${arg_TARGET}" ${args}
    DEPENDS "${arg_TARGET}"
    COMMENT "cutlet: exporting the ${arg_NAME} kernels (${arg_TARGET})"
    VERBATIM)

  add_library("${arg_LIBRARY}" STATIC "${source}" "${header}")
  set_target_properties("${arg_LIBRARY}" PROPERTIES POSITION_INDEPENDENT_CODE ON)
  target_include_directories("${arg_LIBRARY}" PUBLIC "$<BUILD_INTERFACE:${arg_OUTPUT_DIR}>")
  target_compile_features("${arg_LIBRARY}" PUBLIC cxx_std_20)
  target_link_libraries("${arg_LIBRARY}" PUBLIC cutlet::runtime)
endfunction()
