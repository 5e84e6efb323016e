#!/usr/bin/env python3
"""Inference loop of a small model compiled with torch.compile(mode="reduce-overhead").

"reduce-overhead" makes Inductor record the compiled forward into a CUDA graph (its cudagraph
trees): the first call compiles and runs the Triton kernels one by one, the second records the
graph, and every later call is one graph replay instead of a launch per kernel. Each iteration is
timed with CUDA events around the call (the first ms figure: GPU time), and on the host up to the
return of the call (enqueue) and up to the end event's completion (host):

    iter 5: 0.173 ms  (enqueue 0.012 ms, host 0.176 ms)

The first iteration's host time includes the compilation; replays enqueue one graph launch.

--model mlp is a stack of Linear/GELU/LayerNorm blocks; --model transformer a pre-norm decoder
(attention with scaled_dot_product_attention and an MLP per layer). --mode eager runs the same
loop without torch.compile, for comparison. Run it with, e.g.

    python infer_compiled.py --model transformer --layers 4 --dim 512 --iters 20
"""

import argparse
import time

import torch
import torch.nn as nn
import torch.nn.functional as F


class MlpBlock(nn.Module):
    def __init__(self, dim, hidden):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.up = nn.Linear(dim, hidden)
        self.down = nn.Linear(hidden, dim)

    def forward(self, x):
        return x + self.down(F.gelu(self.up(self.norm(x))))


class DecoderBlock(nn.Module):
    def __init__(self, dim, heads, hidden):
        super().__init__()
        self.heads = heads
        self.attn_norm = nn.LayerNorm(dim)
        self.qkv = nn.Linear(dim, 3 * dim, bias=False)
        self.proj = nn.Linear(dim, dim, bias=False)
        self.mlp = MlpBlock(dim, hidden)

    def forward(self, x):
        batch, seq, dim = x.shape
        q, k, v = self.qkv(self.attn_norm(x)).view(batch, seq, 3, self.heads, -1).unbind(2)
        out = F.scaled_dot_product_attention(
            q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), is_causal=True
        )
        x = x + self.proj(out.transpose(1, 2).reshape(batch, seq, dim))
        return self.mlp(x)


def build_model(args):
    hidden = args.hidden or 4 * args.dim
    if args.model == "mlp":
        blocks = [MlpBlock(args.dim, hidden) for _ in range(args.layers)]
    else:
        blocks = [DecoderBlock(args.dim, args.heads, hidden) for _ in range(args.layers)]
    return nn.Sequential(*blocks, nn.LayerNorm(args.dim))


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--model", default="transformer", choices=["mlp", "transformer"])
    p.add_argument("--layers", type=int, default=4)
    p.add_argument("--dim", type=int, default=512)
    p.add_argument("--hidden", type=int, help="MLP hidden size (default 4 x --dim)")
    p.add_argument("--heads", type=int, default=8)
    p.add_argument("--batch-size", type=int, default=8)
    p.add_argument("--seq-len", type=int, default=128, help="tokens per sequence (transformer)")
    p.add_argument("--iters", type=int, default=20)
    p.add_argument("--warmup", type=int, default=3, help="iterations left out of the summary")
    p.add_argument("--dtype", default="bf16", choices=["bf16", "fp16", "fp32"])
    p.add_argument(
        "--mode",
        default="reduce-overhead",
        choices=[
            "reduce-overhead", "default", "max-autotune", "max-autotune-no-cudagraphs", "eager"
        ],
        help="torch.compile mode, or eager (no torch.compile)",
    )
    p.add_argument("--seed", type=int, default=0)
    return p.parse_args()


def main():
    args = parse_args()
    if args.dim % args.heads:
        raise SystemExit(f"--dim {args.dim} is not a multiple of --heads {args.heads}")
    torch.manual_seed(args.seed)
    device = torch.device("cuda")
    dtype = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32}[args.dtype]
    model = build_model(args).to(device=device, dtype=dtype).eval()
    compiled = model if args.mode == "eager" else torch.compile(model, mode=args.mode)
    shape = (args.batch_size, args.dim)
    if args.model == "transformer":
        shape = (args.batch_size, args.seq_len, args.dim)
    x = torch.randn(shape, device=device, dtype=dtype)
    n_params = sum(p.numel() for p in model.parameters())
    print(
        f"model {args.model}: {args.layers} layers, dim {args.dim}, {n_params / 1e6:.2f} M "
        f"parameters; input {tuple(shape)} {args.dtype}; mode {args.mode}",
        flush=True,
    )

    times = []
    with torch.inference_mode():
        for i in range(args.iters):
            # Tells cudagraph trees that the previous iteration's outputs are no longer used, so
            # the next call may replay over them.
            if args.mode != "eager":
                torch.compiler.cudagraph_mark_step_begin()
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            t0 = time.perf_counter()
            start.record()
            y = compiled(x)
            end.record()
            enqueue_ms = (time.perf_counter() - t0) * 1e3
            end.synchronize()
            host_ms = (time.perf_counter() - t0) * 1e3
            ms = start.elapsed_time(end)
            times.append(ms)
            print(
                f"iter {i}: {ms:.3f} ms  (enqueue {enqueue_ms:.3f} ms, host {host_ms:.3f} ms)",
                flush=True,
            )
    steady = times[args.warmup:] if len(times) > args.warmup else times[-1:]
    print(
        f"first iteration {times[0]:.3f} ms; after {args.warmup} warm-up iterations: "
        f"mean {sum(steady) / len(steady):.3f} ms, min {min(steady):.3f} ms, "
        f"max {max(steady):.3f} ms; output {tuple(y.shape)}",
        flush=True,
    )


if __name__ == "__main__":
    main()
