"""The peer of cutlet_host_bench's block reduction and histogram: the same kernels in
numba-cuda, run by numba's CUDA simulator (NUMBA_ENABLE_CUDASIM=1) on the CPU. The simulator
has no warp shuffles, so its block reduction adds the warps' values in shared memory.

Prints each kernel's throughput in GB/s of input read, as cutlet_host_bench reports its own,
after checking the result. The simulator runs a Python thread per CUDA thread, so the input
is small (2^16 elements by default); its throughput does not depend on the size.

    pip install numba
    python3 bench/numba_cudasim.py [elements]
"""
import os
import sys
import time

os.environ["NUMBA_ENABLE_CUDASIM"] = "1"

import numpy as np  # noqa: E402
from numba import cuda, float32, uint32  # noqa: E402

BLOCK = 256
GRID = 4


@cuda.jit
def block_reduce(out, x, n):
    # The simulator has no warp shuffles: the warps' sums go through shared memory, halving
    # the active threads between barriers (the same additions, one barrier a step).
    sums = cuda.shared.array(BLOCK, float32)
    tid = cuda.threadIdx.x
    acc = float32(0.0)
    i = cuda.blockIdx.x * BLOCK + tid
    while i < n:
        acc += x[i]
        i += cuda.gridDim.x * BLOCK
    sums[tid] = acc
    cuda.syncthreads()
    d = BLOCK // 2
    while d > 0:
        if tid < d:
            sums[tid] += sums[tid + d]
        cuda.syncthreads()
        d //= 2
    if tid == 0:
        cuda.atomic.add(out, 0, sums[0])


@cuda.jit
def histogram(hist, x, n):
    bins = cuda.shared.array(256, uint32)
    tid = cuda.threadIdx.x
    bins[tid] = 0
    cuda.syncthreads()
    i = cuda.blockIdx.x * BLOCK + tid
    while i < n:
        cuda.atomic.add(bins, x[i] & 255, 1)
        i += cuda.gridDim.x * BLOCK
    cuda.syncthreads()
    cuda.atomic.add(hist, tid, bins[tid])


def timed(run):
    run()  # warm-up (and the check's result)
    t0 = time.perf_counter()
    run()
    return time.perf_counter() - t0


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1 << 16
    rng = np.random.default_rng(3)
    x = rng.uniform(-1, 1, n).astype(np.float32)
    out = np.zeros(1, np.float32)

    def reduce_run():
        out[0] = 0
        block_reduce[GRID, BLOCK](out, x, n)

    s = timed(reduce_run)
    assert abs(out[0] - x.sum(dtype=np.float64)) < 1e-3 * n / 1000, (out[0], x.sum())
    print(f"numba_cudasim_block_reduce  elements={n}  seconds={s:.3f}  GB/s={4.0 * n / s / 1e9:.6f}")

    xs = rng.integers(0, 2**32, n, dtype=np.uint32)
    hist = np.zeros(256, np.uint32)

    def histogram_run():
        hist[:] = 0
        histogram[GRID, BLOCK](hist, xs, n)

    s = timed(histogram_run)
    assert (hist == np.bincount(xs & 255, minlength=256)).all()
    print(f"numba_cudasim_histogram     elements={n}  seconds={s:.3f}  GB/s={4.0 * n / s / 1e9:.6f}")


if __name__ == "__main__":
    main()
