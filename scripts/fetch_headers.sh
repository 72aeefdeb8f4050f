#!/usr/bin/env bash
# Fetches headers newer than the distribution's into the cache folder CUTLET_DEPS_DIR (default
# $XDG_CACHE_HOME/cutlet-deps, else ~/.cache/cutlet-deps), where cmake/deps_dir.cmake looks for
# them, from PyPI wheels that pip downloads (nothing is installed):
#   cccl/include    CCCL 3.5.0, from nvidia-cuda-cccl: a second CCCL, newer than the toolkit's,
#                   that the test cccl.concepts_of_second_cccl compiles cutlet/runtime/cccl.h
#                   against.
#   dlpack/include  DLPack 1.3's dlpack/dlpack.h, from apache-tvm-ffi (the DLPack maintainers'
#                   FFI, which ships the header unchanged): only when the system's dlpack.h is
#                   older than 1.0, as Debian 12's libdlpack-dev (0.6) is.
# Each is fetched once per pinned version (a stamp file records it). Needs python3 with pip and
# the network; without them it says what is missing and exits 0, so that setup.sh goes on (CMake
# then stops if no DLPack 1.x header is found, and the second-CCCL test reports itself skipped).
# Environment: CUTLET_DEPS_DIR; CUTLET_CCCL_WHEEL (another nvidia-cuda-cccl 13.x, whose headers
# lie under nvidia/cu13/include/cccl) and CUTLET_DLPACK_WHEEL (another apache-tvm-ffi) override
# the pins.
set -uo pipefail

deps="${CUTLET_DEPS_DIR:-${XDG_CACHE_HOME:-${HOME:-}/.cache}/cutlet-deps}"
cccl_wheel="${CUTLET_CCCL_WHEEL:-nvidia-cuda-cccl==13.3.5.0.6}"
dlpack_wheel="${CUTLET_DLPACK_WHEEL:-apache-tvm-ffi==0.1.15.post2}"

say() { echo "fetch_headers.sh: $*"; }

# True when the system's dlpack/dlpack.h is DLPack 1.0 or later.
system_dlpack_is_new() {
  local h
  for h in /usr/include/dlpack/dlpack.h /usr/local/include/dlpack/dlpack.h; do
    [ -f "$h" ] && grep -Eq '^#define DLPACK_MAJOR_VERSION +[1-9]' "$h" && return 0
  done
  return 1
}

# fetch NAME WHEEL PREFIX: unpacks the files under PREFIX in the wheel WHEEL (a pip requirement,
# name==version) into $deps/NAME/include, unless the stamp says that is done already.
fetch() {
  local name="$1" wheel="$2" prefix="$3"
  local dest="$deps/$name" stamp="$deps/$name/fetched-from"
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$wheel" ] && [ -d "$dest/include" ]; then
    say "$name: $wheel already in $dest"
    return 0
  fi
  local tmp
  tmp="$(mktemp -d)" || return 1
  # Headers are the same in every wheel of a release: ask for one platform's, whatever this
  # machine is, so that the pins hold everywhere.
  if ! python3 -m pip download --quiet --disable-pip-version-check --no-deps --only-binary=:all: \
      --platform manylinux2014_x86_64 --platform manylinux_2_28_x86_64 --python-version 3.12 \
      --implementation cp -d "$tmp" "$wheel" >"$tmp/pip.log" 2>&1; then
    say "$name: pip download $wheel failed; skipped ($(tail -n 1 "$tmp/pip.log"))"
    rm -rf "$tmp"
    return 1
  fi
  rm -rf "$dest.new"
  if ! python3 - "$tmp"/*.whl "$prefix" "$dest.new/include" <<'EOF'
import os, sys, zipfile
wheel, prefix, out = sys.argv[1:]
count = 0
with zipfile.ZipFile(wheel) as z:
    for info in z.infolist():
        rel = info.filename[len(prefix):]
        if info.is_dir() or not info.filename.startswith(prefix) or ".." in rel.split("/"):
            continue
        path = os.path.join(out, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with z.open(info) as src, open(path, "wb") as dst:
            dst.write(src.read())
        count += 1
if count == 0:
    sys.exit(f"no files under {prefix} in {os.path.basename(wheel)}")
EOF
  then
    say "$name: unpacking $wheel failed; skipped"
    rm -rf "$tmp" "$dest.new"
    return 1
  fi
  echo "$wheel" >"$dest.new/fetched-from"
  rm -rf "$dest" && mv "$dest.new" "$dest"
  rm -rf "$tmp"
  say "$name: $wheel unpacked into $dest/include"
}

if ! python3 -m pip --version >/dev/null 2>&1; then
  say "python3 with pip is missing, so no headers were fetched (install python3-pip);"
  say "  the second-CCCL test will be skipped, and CMake needs a DLPack 1.x dlpack.h from elsewhere"
  exit 0
fi
mkdir -p "$deps" || { say "cannot create $deps; no headers were fetched"; exit 0; }

fetch cccl "$cccl_wheel" "nvidia/cu13/include/cccl/" || true
if system_dlpack_is_new; then
  say "dlpack: the system's dlpack.h is DLPack 1.x; nothing to fetch"
else
  fetch dlpack "$dlpack_wheel" "tvm_ffi/3rdparty/dlpack/include/" ||
    say "dlpack: CMake will stop unless CUTLET_DLPACK_INCLUDE_DIR names a DLPack 1.x dlpack.h"
fi
exit 0
