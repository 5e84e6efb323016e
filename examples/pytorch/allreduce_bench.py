#!/usr/bin/env python3
"""dist.all_reduce time and bus bandwidth for one size: --iters back-to-back calls on a bf16
tensor of --bytes, timed with CUDA events. Run it with torchrun:

    torchrun --nproc_per_node 8 allreduce_bench.py --bytes 256M
"""

import argparse
import os

import torch
import torch.distributed as dist


def size(text):
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    return int(text[:-1]) * units[text[-1].upper()] if text[-1].upper() in units else int(text)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--bytes", type=size, default=256 << 20)
    p.add_argument("--iters", type=int, default=20)
    p.add_argument("--warmup", type=int, default=5)
    args = p.parse_args()

    local_rank = int(os.environ["LOCAL_RANK"])
    device = torch.device("cuda", local_rank)
    torch.cuda.set_device(device)
    dist.init_process_group("nccl", device_id=device)
    world = dist.get_world_size()
    x = torch.ones(args.bytes // 2, dtype=torch.bfloat16, device=device)
    for _ in range(args.warmup):
        dist.all_reduce(x)
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(args.iters):
        dist.all_reduce(x)
    end.record()
    end.synchronize()
    us = start.elapsed_time(end) * 1e3 / args.iters
    algbw = args.bytes / (us / 1e6) / 1e9
    busbw = algbw * 2 * (world - 1) / world
    if dist.get_rank() == 0:
        print(f"all_reduce {args.bytes} bytes on {world} ranks: {us:.2f} us  "
              f"algbw {algbw:.1f} GB/s  busbw {busbw:.1f} GB/s")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
