#!/usr/bin/env python3
"""Peer figures for BM_tile_attention (bench/tile_attention_bench.cpp): attention forward with
PyTorch's scaled_dot_product_attention on its FlashAttention-2 and cuDNN backends, bf16,
B=4 H=32 S=4096, D 64 and 128, causal and not. GPU time from CUDA events around each call,
after warm-up; the median of the repeats. TFLOP/s counts 4 * B * H * S^2 * D, halved for
causal, as the cutlet benchmark does.

    python3 bench/peers/attention_peer.py [--reps 20] [--warmup 5]
"""
import argparse
import statistics

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

B, H, S = 4, 32, 4096
BACKENDS = [("FA2", SDPBackend.FLASH_ATTENTION), ("cuDNN", SDPBackend.CUDNN_ATTENTION)]


def time_ms(fn, reps, warmup):
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop))
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=5)
    args = ap.parse_args()
    print(f"{torch.cuda.get_device_name()}, torch {torch.__version__}, cuDNN {torch.backends.cudnn.version()}")
    gen = torch.Generator(device="cuda").manual_seed(0)
    for d in (64, 128):
        # [B, H, S, D], contiguous: the layout of the cutlet benchmark.
        q, k, v = (torch.rand(B, H, S, d, device="cuda", generator=gen, dtype=torch.float32).mul_(2).sub_(1).bfloat16()
                   for _ in range(3))
        for causal in (False, True):
            flops = 4.0 * B * H * S * S * d * (0.5 if causal else 1.0)
            ref = None
            for name, backend in BACKENDS:
                try:
                    with sdpa_kernel(backend):
                        run = lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal)
                        out = run()
                        ms = time_ms(run, args.reps, args.warmup)
                except RuntimeError as e:  # backend not available for this shape / build
                    print(f"D={d:3d} {'causal' if causal else 'full  '} {name:5s}: unavailable ({str(e).splitlines()[0]})")
                    continue
                if ref is None:
                    ref = out.float()
                    diff = ""
                else:
                    diff = f", max |diff| vs {BACKENDS[0][0]} {(out.float() - ref).abs().max().item():.2e}"
                print(f"D={d:3d} {'causal' if causal else 'full  '} {name:5s}: {ms:7.3f} ms  "
                      f"{flops / (ms * 1e-3) / 1e12:6.1f} TFLOP/s{diff}")


if __name__ == "__main__":
    main()
