# example.pytorch: builds examples/pytorch (the cutlet_torch extension) in WORK_DIR against the
# cutlet build CUTLET_BUILD_DIR (its cutletConfig.cmake and cutletTargets.cmake describe the
# build tree) with PYTHON (empty: python3 on the PATH), then runs its test and its launch
# benchmark, which fails when a call costs more than 1.2 times torch.add's host time. Reports
# itself skipped ("example.pytorch skipped: " and why) when that Python cannot import torch and
# nanobind, or, once the extension is built, when torch sees no GPU. Other inputs:
# DLPACK_INCLUDE_DIR (the dlpack.h folder of cutlet's build) and those of steps.cmake.
cmake_minimum_required(VERSION 3.24)
include(${CMAKE_CURRENT_LIST_DIR}/steps.cmake)

# Ends the script with a line that the test's SKIP_REGULAR_EXPRESSION matches.
macro(example_skip why)
  message(STATUS "example.pytorch skipped: ${why}")
  return()
endmacro()

if(NOT PYTHON)
  find_program(path_python NAMES python3 python NO_CACHE)
  if(path_python)
    set(PYTHON "${path_python}")
  endif()
endif()
if(NOT PYTHON)
  example_skip("no python3 on the PATH (CUTLET_EXAMPLE_PYTHON names another)")
endif()
execute_process(
  COMMAND "${PYTHON}" -c "import torch, nanobind; print(torch.__version__); print(int(torch.cuda.is_available()))"
  RESULT_VARIABLE rc OUTPUT_VARIABLE facts ERROR_VARIABLE error OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT rc EQUAL 0)
  string(STRIP "${error}" error)
  string(REGEX MATCH "[^\n]*$" error "${error}")
  example_skip("${PYTHON} cannot import torch and nanobind (${error})")
endif()
string(REPLACE "\n" ";" facts "${facts}")
list(GET facts 0 torch_version)
list(GET facts 1 cuda_available)

set(example "${CUTLET_SOURCE_DIR}/examples/pytorch")
set(build "${WORK_DIR}/build")
file(REMOVE_RECURSE "${WORK_DIR}")
consumer_configure("${example}" "${build}" "-Dcutlet_DIR=${CUTLET_BUILD_DIR}" "-DPython_EXECUTABLE=${PYTHON}"
  "-DCUTLET_DLPACK_INCLUDE_DIR=${DLPACK_INCLUDE_DIR}" -DCMAKE_BUILD_TYPE=Release -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF)
consumer_build("${build}")

if(NOT cuda_available)
  example_skip("built cutlet_torch against torch ${torch_version}, but torch sees no CUDA device to run it on")
endif()
# The module lies in the build folder (in its CONFIG folder for a multi-configuration generator).
set(pythonpath "${build}")
if(CONFIG)
  string(PREPEND pythonpath "${build}/${CONFIG}:")
endif()
if(NOT "$ENV{PYTHONPATH}" STREQUAL "")
  string(APPEND pythonpath ":$ENV{PYTHONPATH}")
endif()
consumer_run("test_cutlet_torch.py" "${CMAKE_COMMAND}" -E env "PYTHONPATH=${pythonpath}" PYTHONUNBUFFERED=1
  "${PYTHON}" "${example}/test_cutlet_torch.py")
message(STATUS "${consumer_output}")
consumer_run("bench_launch.py" "${CMAKE_COMMAND}" -E env "PYTHONPATH=${pythonpath}" PYTHONUNBUFFERED=1
  "${PYTHON}" "${example}/bench_launch.py" --max-ratio 1.2)
message(STATUS "${consumer_output}")
