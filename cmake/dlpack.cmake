# DLPack's dlpack.h, version 1.0 or later (DLManagedTensorVersioned and its flags), for
# runtime/dlpack_*.cpp and the tests: CUTLET_DLPACK_INCLUDE_DIR is the folder holding
# dlpack/dlpack.h. A value given for it is used when its header is new enough; otherwise the
# first new enough of CUTLET_DEPS_DIR/dlpack/include (scripts/fetch_headers.sh fetches one
# there when the system's is older: Debian 12's libdlpack-dev is 0.6) and the system's.

# The version of `dir`/dlpack/dlpack.h as "MAJOR.MINOR" into `out`; "" when there is none.
# Headers before 1.0 define only DLPACK_VERSION (60 for 0.6, 80 for 0.8).
function(cutlet_dlpack_header_version dir out)
  set(header "${dir}/dlpack/dlpack.h")
  set(version "")
  unset(DLPACK_MAJOR_VERSION)
  unset(DLPACK_MINOR_VERSION)
  unset(DLPACK_VERSION)
  if(dir AND EXISTS "${header}")
    file(STRINGS "${header}" lines REGEX "^#define DLPACK_(MAJOR_VERSION|MINOR_VERSION|VERSION) +[0-9]+")
    foreach(line ${lines})
      string(REGEX MATCH "^#define (DLPACK_[A-Z_]+) +([0-9]+)" _ "${line}")
      set(${CMAKE_MATCH_1} ${CMAKE_MATCH_2})
    endforeach()
    if(DEFINED DLPACK_MAJOR_VERSION AND DEFINED DLPACK_MINOR_VERSION)
      set(version "${DLPACK_MAJOR_VERSION}.${DLPACK_MINOR_VERSION}")
    elseif(DEFINED DLPACK_VERSION)
      math(EXPR minor "${DLPACK_VERSION} / 10")
      set(version "0.${minor}")
    else()
      set(version "unknown")
    endif()
  endif()
  set(${out} "${version}" PARENT_SCOPE)
endfunction()

find_path(cutlet_dlpack_system_dir dlpack/dlpack.h NO_CACHE)
set(cutlet_dlpack_candidates "")
foreach(dir "${CUTLET_DLPACK_INCLUDE_DIR}" "${CUTLET_DEPS_DIR}/dlpack/include" "${cutlet_dlpack_system_dir}")
  if(dir AND NOT dir MATCHES "-NOTFOUND$")
    list(APPEND cutlet_dlpack_candidates "${dir}")
  endif()
endforeach()
list(REMOVE_DUPLICATES cutlet_dlpack_candidates)

set(cutlet_dlpack_dir "")
set(cutlet_dlpack_too_old "")
foreach(dir ${cutlet_dlpack_candidates})
  cutlet_dlpack_header_version("${dir}" version)
  if(version STREQUAL "")
    continue()
  elseif(NOT version STREQUAL "unknown" AND version VERSION_GREATER_EQUAL 1.0)
    set(cutlet_dlpack_dir "${dir}")
    set(CUTLET_DLPACK_VERSION "${version}")
    break()
  endif()
  list(APPEND cutlet_dlpack_too_old "${dir} (DLPack ${version})")
endforeach()

if(NOT cutlet_dlpack_dir)
  if(cutlet_dlpack_too_old)
    list(JOIN cutlet_dlpack_too_old ", " found)
    set(found " Found only: ${found}.")
  else()
    set(found " None was found.")
  endif()
  message(FATAL_ERROR
    "cutlet needs DLPack 1.0 or later's dlpack/dlpack.h (DLManagedTensorVersioned).${found} "
    "./setup.sh fetches one into CUTLET_DEPS_DIR (${CUTLET_DEPS_DIR}); or pass "
    "-DCUTLET_DLPACK_INCLUDE_DIR=<folder holding dlpack/dlpack.h>.")
endif()
if(CUTLET_DLPACK_INCLUDE_DIR AND NOT CUTLET_DLPACK_INCLUDE_DIR STREQUAL cutlet_dlpack_dir)
  message(STATUS "cutlet: CUTLET_DLPACK_INCLUDE_DIR ${CUTLET_DLPACK_INCLUDE_DIR} holds no DLPack 1.x; using ${cutlet_dlpack_dir}")
endif()
set(CUTLET_DLPACK_INCLUDE_DIR "${cutlet_dlpack_dir}" CACHE PATH "Folder holding dlpack/dlpack.h (DLPack 1.0 or later)" FORCE)
message(STATUS "cutlet: DLPack ${CUTLET_DLPACK_VERSION} from ${CUTLET_DLPACK_INCLUDE_DIR}")
