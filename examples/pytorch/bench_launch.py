"""Host time per call of cutlet_torch.scaled_add against the same elementwise op in PyTorch.

cutlet_torch.scaled_add(out, x, y, a) and torch.add(y, x, alpha=a, out=out) on tensors of one
size, in batches of calls timed on the host; the GPU is drained before and after each batch,
outside the timed region, so queued work neither blocks the calls nor piles up, and the two
alternate batch by batch so that both see the same conditions. Prints the median over batches
of the microseconds per call and the ratio cutlet / torch (the acceptance bound is 1.2;
--max-ratio makes the script exit 1 above it), and, for reference, the row softmax against
torch.softmax.

PYTHONPATH=<the extension's build folder> python bench_launch.py [--n 65536] [--dtype float32]
    [--batches 200] [--calls 256] [--max-ratio 1.2]
"""

import argparse
import functools
import statistics
import sys
import time

import torch

import cutlet_torch


def batch_us(call, calls):
    """Host microseconds per call over one batch of `calls` calls."""
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(calls):
        call()
    elapsed = time.perf_counter() - start
    torch.cuda.synchronize()
    return elapsed / calls * 1e6


def compare(ours, theirs, batches, calls):
    """Medians (us per call) of `ours` and `theirs`, timed in alternating batches."""
    for _ in range(3):  # warm up: compiles, loads, fills caches
        batch_us(ours, calls)
        batch_us(theirs, calls)
    a, b = [], []
    for _ in range(batches):
        a.append(batch_us(ours, calls))
        b.append(batch_us(theirs, calls))
    return statistics.median(a), statistics.median(b)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=1 << 16, help="elements per tensor (small: the GPU work stays below the host's)")
    parser.add_argument("--dtype", default="float32", choices=["float32", "float16", "bfloat16"])
    parser.add_argument("--batches", type=int, default=200)
    parser.add_argument("--calls", type=int, default=256, help="calls per batch")
    parser.add_argument("--max-ratio", type=float, default=None, help="exit 1 when cutlet / torch exceeds this")
    args = parser.parse_args()
    if not torch.cuda.is_available():
        print("skipped: torch sees no CUDA device")
        return 0

    dtype = getattr(torch, args.dtype)
    x = torch.randn(args.n, device="cuda").to(dtype)
    y = torch.randn(args.n, device="cuda").to(dtype)
    out = torch.empty_like(x)
    if not cutlet_torch.uses_exchange_api(x):
        print("warning: this PyTorch has no DLPack C exchange API (PyTorch 2.10 and later have it); calls go through __dlpack__")

    ours = functools.partial(cutlet_torch.scaled_add, out, x, y, 0.5)
    theirs = functools.partial(torch.add, y, x, alpha=0.5, out=out)
    c, t = compare(ours, theirs, args.batches, args.calls)
    ratio = c / t
    print(f"{args.n} {args.dtype} elements, median of {args.batches} batches of {args.calls} calls, host time per call:")
    print(f"  cutlet_torch.scaled_add(out, x, y, a)       {c:7.2f} us")
    print(f"  torch.add(y, x, alpha=a, out=out)           {t:7.2f} us")
    print(f"  ratio                                       {ratio:7.2f}  (acceptance: below 1.2)")

    rows = max(1, args.n // 1024)
    xs = torch.randn(rows, 1000, device="cuda").to(dtype)
    outs = torch.empty_like(xs)
    c, t = compare(functools.partial(cutlet_torch.softmax, outs, xs), functools.partial(torch.softmax, xs, 1),
                   args.batches // 4 or 1, args.calls)
    print(f"  cutlet_torch.softmax(out, x), {rows}x1000      {c:7.2f} us")
    print(f"  torch.softmax(x, 1) (allocates its output)  {t:7.2f} us  (ratio {c / t:.2f}, for reference)")

    if args.max_ratio is not None and ratio > args.max_ratio:
        print(f"FAILED: cutlet_torch.scaled_add costs {ratio:.2f} times torch.add's host time, above {args.max_ratio}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
