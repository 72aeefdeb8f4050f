#!/usr/bin/env bash
# Runs the GPU test suite under compute-sanitizer's four tools, one group of test suites at a
# time (the whole suite under memcheck takes longer than one sitting should), and prints one
# line per tool and group. Exits non-zero if any run reports an error or a test fails.
#
#   scripts/gpu_sanitize.sh <cutlet_gpu_tests> [tool ...]     (tools: memcheck racecheck synccheck initcheck)
#
# CAP (seconds per run, default 600) bounds each run; a run cut off counts as a failure. The
# tests that fault on purpose (fault isolation, asserts, out-of-memory) are left out.
set -uo pipefail
tests="${1:?usage: scripts/gpu_sanitize.sh <cutlet_gpu_tests> [tool ...]}"
shift
tools=("$@")
[ ${#tools[@]} -eq 0 ] && tools=(memcheck racecheck synccheck initcheck)
sanitizer="${COMPUTE_SANITIZER:-/usr/local/cuda/bin/compute-sanitizer}"
cap="${CAP:-600}"
# Tests whose kernels trap, assert or fault on purpose (what the sanitizer would report).
faulting="FaultIsolation*:AutotuneFault*:DiagnosticsGpu.*:OutOfMemoryGpu.*"
groups=("Algorithms*" "Tile*" "KernelGpu.*:MemoryGpu.*:AtomicGpu.*:WarpGpu.*:MathGpu.*:VectorGpu.*:ViewGpu.*:HalfCastGpu.*"
        "-Algorithms*:Tile*:KernelGpu.*:MemoryGpu.*:AtomicGpu.*:WarpGpu.*:MathGpu.*:VectorGpu.*:ViewGpu.*:HalfCastGpu.*:$faulting")
status=0
for tool in "${tools[@]}"; do
  for filter in "${groups[@]}"; do
    log=$(mktemp)
    start=$(date +%s)
    timeout "$cap" "$sanitizer" --tool "$tool" --error-exitcode 99 "$tests" --gtest_filter="$filter" --gtest_brief=1 \
      > "$log" 2>&1
    rc=$?
    summary=$(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$log" | tail -1 | sed 's/=* *//')
    tests_line=$(grep -E '^\[  (PASSED|FAILED) ' "$log" | tr '\n' ' ')
    echo "$tool '$filter': exit $rc, $(( $(date +%s) - start )) s; $tests_line$summary"
    [ "$rc" -ne 0 ] && { status=1; tail -40 "$log"; }
    rm -f "$log"
  done
done
exit $status
