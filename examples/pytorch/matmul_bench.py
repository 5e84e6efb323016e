#!/usr/bin/env python3
"""bf16 matrix multiply throughput: times --iters back-to-back torch.matmul calls of M x K by
K x N with CUDA events and prints TFLOP/s."""

import argparse

import torch


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--m", type=int, default=8192)
    p.add_argument("--n", type=int, default=8192)
    p.add_argument("--k", type=int, default=8192)
    p.add_argument("--iters", type=int, default=20)
    p.add_argument("--warmup", type=int, default=3)
    args = p.parse_args()

    a = torch.randn(args.m, args.k, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(args.k, args.n, device="cuda", dtype=torch.bfloat16)
    for _ in range(args.warmup):
        torch.matmul(a, b)
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(args.iters):
        torch.matmul(a, b)
    end.record()
    end.synchronize()
    ms = start.elapsed_time(end) / args.iters
    tflops = 2 * args.m * args.n * args.k / (ms / 1e3) / 1e12
    print(f"{torch.cuda.get_device_name()}: bf16 {args.m}x{args.n}x{args.k} "
          f"{ms * 1e3:.2f} us  {tflops:.1f} TFLOP/s")


if __name__ == "__main__":
    main()
