#!/usr/bin/env bash
# Runs the GPU test suite under compute-sanitizer's four tools, one group of test suites at a
# time (the whole suite under memcheck takes longer than one sitting should), and prints one
# line per tool and group. Exits non-zero if any run reports an error or a test fails.
#
#   scripts/gpu_sanitize.sh <cutlet_gpu_tests> [tool ...]     (tools: memcheck racecheck synccheck initcheck)
#
# LOGDIR keeps each run's whole log there. EXTRA passes more options to the tool (say "--print-limit 20").
# EXCLUDE leaves more tests out of every group (a gtest pattern list, "A.*:B.c").
# Failed driver calls are not reported: the suite makes them on purpose (refused tensor maps,
# out-of-memory and invalid-handle tests) and checks the errors itself.
# CAP (seconds per run, default 600) bounds each run; a run cut off counts as a failure. Left
# out: the tests that fault on purpose (fault isolation, asserts, out-of-memory, the bounds
# check's death test, which hangs under the tools), and the autotuner tests whose checks are
# about which configuration is fastest (the tools' instrumentation changes the timings).
# The tools run side by side (the GPU has room for four processes); SERIAL=1 runs them
# one after another.
set -uo pipefail
tests="${1:?usage: scripts/gpu_sanitize.sh <cutlet_gpu_tests> [tool ...]}"
shift
tools=("$@")
[ ${#tools[@]} -eq 0 ] && tools=(memcheck racecheck synccheck initcheck)
sanitizer="${COMPUTE_SANITIZER:-/usr/local/cuda/bin/compute-sanitizer}"
cap="${CAP:-600}"
# Tests whose kernels trap, assert or fault on purpose (what the sanitizer would report).
faulting="FaultIsolation*:AutotuneFault*:DiagnosticsGpu.*:OutOfMemoryGpu.*:ViewGpu.OutOfBoundsIndexIsReported"
[ -n "${EXCLUDE:-}" ] && faulting+=":$EXCLUDE"
timing="AutotuneGpu.PicksTheObviousBestAndSkipsFailingConfigsWithReasons:AutotuneGpu.PersistedResultIsReusedByAnotherTunerWithoutTrials"
# Tests the tools cannot run:
# - the tests running the wgmma kernel whose 128x256 accumulator is held by one warpgroup
#   (255 registers, accumulators spilled around the MMAs): memcheck and synccheck stop it with
#   CUDA_ERROR_INVALID_PC having reported no error, while it is right without the tools (the
#   same tests check it), its mma.sync build (as many registers) passes under memcheck, and
#   so do wgmma kernels that spill nothing;
# - the disk-cache test that starts child processes of the suite: under the tools its first
#   child never ends.
untooled="AutotuneTileGpu.BlockSizesWarpsAndStagesWithoutFailedCandidates:AutotuneTileGpu.WidestCandidateAloneIsRight"
untooled+=":DiskCacheGpu.SecondProcessLaunchesFromTheDisk"
language="KernelGpu.*:MemoryGpu.*:AtomicGpu.*:WarpGpu.*:MathGpu.*:VectorGpu.*:ViewGpu.*:HalfCastGpu.*"
runtime="Buffer.*:Device.*:DeviceMemoryResource.*:Event.*:Graph.*:GreenContext.*:Launch.*:LaunchExtended.*"
runtime+=":ManagedMemory.*:MemoryPool.*:Module.*:Occupancy.*:Peer.*:PinnedMemory.*:Program.*:Stream.*:DLPack.*:Cub.*"
runtime+=":TensorMapGpu.*:TmaGpu.*"
jit="Autotune*:DiskCache*:SpecializationRanges*:ConstParamGpu.*:StructParamGpu.*:DeviceFunction*:CallFreeMathGpu.*"
fuzz="KernelFuzzGpu.*"
# Groups: 0 algorithms, 1 tile, 2 language, 3 runtime, 4 JIT machinery, 5 fuzzed kernels, 6 every
# suite none of those names (so that a new suite is never left out).
groups=("Algorithms*" "Tile*" "$language:-$faulting" "$runtime:-$faulting" "$jit:-$faulting:$timing:$untooled" "$fuzz"
        "-Algorithms*:Tile*:$language:$runtime:$jit:$fuzz:$faulting:$timing:$untooled")
# ONLY_GROUPS picks groups by index, so that the sweep can be spread over several sittings.
if [ -n "${ONLY_GROUPS:-}" ]; then
  picked=()
  for i in $ONLY_GROUPS; do picked+=("${groups[$i]}"); done
  groups=("${picked[@]}")
fi
# The fuzzed kernels: a hundred by default (CUTLET_FUZZ_COUNT overrides).
export CUTLET_FUZZ_COUNT="${CUTLET_FUZZ_COUNT:-100}"

# One tool over every group; its lines (and the tail of a failing run's log) on stdout.
run_tool() {
  local tool=$1 status=0
  for filter in "${groups[@]}"; do
    local log start rc summary tests_line
    log=$(mktemp)
    start=$(date +%s)
    # Each tool's runs get their own kernel cache, so that side-by-side runs never share one.
    CUTLET_CACHE_DIR="${TMPDIR:-/tmp}/cutlet-sanitize-cache-$tool" timeout "$cap" "$sanitizer" --tool "$tool" \
      --error-exitcode 99 --report-api-errors no ${EXTRA:-} "$tests" --gtest_filter="$filter" --gtest_brief=1 > "$log" 2>&1
    rc=$?
    summary=$(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$log" | tail -1 | sed 's/=* *//')
    tests_line=$(grep -E '^\[  (PASSED|FAILED) ' "$log" | tr '\n' ' ')
    echo "$tool '$filter': exit $rc, $(( $(date +%s) - start )) s; $tests_line$summary"
    [ "$rc" -ne 0 ] && { status=1; tail -40 "$log"; }
    if [ -n "${LOGDIR:-}" ]; then mkdir -p "$LOGDIR" && mv "$log" "$LOGDIR/$tool-$(echo "$filter" | tr -c 'A-Za-z0-9' '_' | cut -c1-40).log"; else rm -f "$log"; fi
  done
  return $status
}

status=0
if [ "${SERIAL:-0}" = 1 ]; then
  for tool in "${tools[@]}"; do run_tool "$tool" || status=1; done
else
  outputs=() pids=()
  for tool in "${tools[@]}"; do
    out=$(mktemp)
    outputs+=("$out")
    run_tool "$tool" > "$out" 2>&1 &
    pids+=($!)
  done
  for i in "${!pids[@]}"; do
    wait "${pids[$i]}" || status=1
    cat "${outputs[$i]}"
    rm -f "${outputs[$i]}"
  done
fi
exit $status
