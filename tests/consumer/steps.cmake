# The steps of the package tests' scripts (find_package.cmake, fetch_content.cmake, run with
# cmake -P). Inputs, from tests/consumer/CMakeLists.txt: GENERATOR, MAKE_PROGRAM, C_COMPILER and
# CXX_COMPILER of the cutlet build under test, and CONFIG, the configuration ctest runs (empty
# for a single-configuration build).

# consumer_run(<what> <command>...): runs the command, echoing it; stops the test with the
# command's output when it fails. The output (stdout and stderr) is left in consumer_output.
function(consumer_run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out COMMAND_ECHO STDOUT)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}):\n${out}")
  endif()
  set(consumer_output "${out}" PARENT_SCOPE)
endfunction()

# consumer_configure(<source> <build> <cache arguments>...): configures the consumer project in
# <source> into a new folder <build> with the generator and compilers of the cutlet build.
function(consumer_configure source build)
  file(REMOVE_RECURSE "${build}")
  set(args -S "${source}" -B "${build}" -G "${GENERATOR}")
  foreach(setting MAKE_PROGRAM C_COMPILER CXX_COMPILER)
    if(${setting})
      list(APPEND args "-DCMAKE_${setting}=${${setting}}")
    endif()
  endforeach()
  consumer_run("configuring ${source}" "${CMAKE_COMMAND}" ${args} ${ARGN})
  message(STATUS "${consumer_output}")
endfunction()

# consumer_build(<build>): builds its `all` (the configuration CONFIG, if any).
function(consumer_build build)
  set(args --build "${build}")
  if(CONFIG)
    list(APPEND args --config "${CONFIG}")
  endif()
  consumer_run("building ${build}" "${CMAKE_COMMAND}" ${args})
endfunction()

# consumer_check_program(<program>): runs a consumer program, which must print
# "cutlet consumer: ok" and exit 0.
function(consumer_check_program program)
  consumer_run("running ${program}" "${program}")
  message(STATUS "${consumer_output}")
  if(NOT consumer_output MATCHES "cutlet consumer: ok")
    message(FATAL_ERROR "${program} did not say 'cutlet consumer: ok'")
  endif()
endfunction()

# consumer_program(<build> <variable>): the path of the consumer program built in <build>.
function(consumer_program build variable)
  set(program "${build}/cutlet_consumer")
  if(CONFIG AND EXISTS "${build}/${CONFIG}/cutlet_consumer")
    set(program "${build}/${CONFIG}/cutlet_consumer")
  endif()
  set(${variable} "${program}" PARENT_SCOPE)
endfunction()

# consumer_cache_value(<build> <entry> <variable>): an entry of <build>'s CMakeCache.txt.
function(consumer_cache_value build entry variable)
  load_cache("${build}" READ_WITH_PREFIX consumer_cache_ ${entry})
  set(${variable} "${consumer_cache_${entry}}" PARENT_SCOPE)
endfunction()
