#!/usr/bin/env bash
# Runs kernel_under_gdb ($1) under gdb: a breakpoint on a line of its kernel stops first where
# the lambda is traced, then in the kernel's threads on the CPU device, where gdb must show the
# thread's indices, the kernel's parameters and its variable. Exit 77 (skipped) without gdb.
set -uo pipefail
program=$1
source=$(dirname "$0")/kernel_under_gdb.cpp
if ! command -v gdb > /dev/null; then echo "gdb is not installed: skipped"; exit 77; fi
break_line=$(grep -n "gdb: break here" "$source" | cut -d: -f1)
var_line=$(grep -n "gdb: var_L" "$source" | cut -d: -f1)
out=$(gdb -nx -batch \
  -ex "set pagination off" -ex "set breakpoint pending on" -ex "set debuginfod enabled off" \
  -ex "break kernel_under_gdb.cpp:$break_line" -ex run \
  -ex continue -ex "print threadIdx" -ex "print blockDim" -ex "print arg2" -ex "print var_L$var_line" \
  -ex continue -ex "print threadIdx.x" -ex "print var_L$var_line" \
  -ex "delete" -ex continue --args "$program" 2>&1)
echo "$out"
if echo "$out" | grep -q "ptrace: Operation not permitted\|Couldn't get registers"; then
  echo "gdb may not trace programs here: skipped"; exit 77
fi
fail=0
expect() {
  if ! echo "$out" | grep -qE "$1"; then echo "MISSING: $1"; fail=1; fi
}
expect '= \{x = 0, y = 0, z = 0\}'        # threadIdx of the first thread
expect '= \{x = 64, y = 1, z = 1\}'       # blockDim
expect '^\$[0-9]+ = 3$'                   # arg2, the scale
expect '^\$[0-9]+ = 1$'                   # threadIdx.x of the second thread
expect "kernel_under_gdb: results right"
# var_L<line> is 0 in thread 0 and 3 in thread 1: both printed.
[ "$(echo "$out" | grep -cE '^\$[0-9]+ = (0|3)$')" -ge 3 ] || { echo "MISSING: the variable's values"; fail=1; }
exit $fail
