#!/usr/bin/env bash
# Installs what cutlet needs to build on Debian 12 / Ubuntu 24.04 (as root, or with sudo):
# a C++20 compiler, CMake, Ninja, LLVM 19, Boost.Context, GoogleTest, Google Benchmark,
# DLPack, SLEEF (vector math for kernels on the CPU, loaded when they run) and gdb (the test
# of debugging a kernel on the CPU). The CUDA 13
# toolkit is expected at /usr/local/cuda (CUDA_HOME overrides); it is not
# an apt package here.
# Then scripts/fetch_headers.sh fetches, with pip, the headers the distribution has too old or
# not at all (DLPack 1.x when libdlpack-dev is older, a second CCCL for the interop test).
set -euo pipefail

packages=(g++ cmake ninja-build llvm-19-dev llvm-19-tools libzstd-dev zlib1g-dev libgtest-dev libbenchmark-dev libdlpack-dev
          libboost-context-dev libsleef3 gdb)
# pip downloads the wheels those headers come from; any python3 with pip does.
python3 -m pip --version >/dev/null 2>&1 || packages+=(python3-pip)
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if ((${#missing[@]})); then
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  echo "setup.sh: installing ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

cuda="${CUDA_HOME:-/usr/local/cuda}"
if [ ! -f "$cuda/include/nvJitLink.h" ]; then
  echo "setup.sh: the CUDA toolkit (12.x or 13.x, with nvJitLink) was not found at $cuda;" >&2
  echo "          install it from NVIDIA and set CUDA_HOME if it lives elsewhere." >&2
  exit 1
fi
"$(dirname "$0")/scripts/fetch_headers.sh"
echo "setup.sh: ready (LLVM $(llvm-config-19 --version), CUDA at $cuda)"
