# CUTLET_DEPS_DIR: the cache folder where scripts/fetch_headers.sh (which setup.sh runs) puts
# headers newer than the distribution's, taken from PyPI wheels: dlpack/include (DLPack 1.x,
# when the system's dlpack.h is older) and cccl/include (a second, newer CCCL that the CCCL
# interop test compiles against). The environment variable of the same name overrides the
# default, $XDG_CACHE_HOME/cutlet-deps or else ~/.cache/cutlet-deps, as it does for the script.
if(NOT "$ENV{CUTLET_DEPS_DIR}" STREQUAL "")
  set(cutlet_default_deps_dir "$ENV{CUTLET_DEPS_DIR}")
elseif(NOT "$ENV{XDG_CACHE_HOME}" STREQUAL "")
  set(cutlet_default_deps_dir "$ENV{XDG_CACHE_HOME}/cutlet-deps")
else()
  set(cutlet_default_deps_dir "$ENV{HOME}/.cache/cutlet-deps")
endif()
set(CUTLET_DEPS_DIR "${cutlet_default_deps_dir}" CACHE PATH
    "Where scripts/fetch_headers.sh puts fetched headers (dlpack/include, cccl/include)")
