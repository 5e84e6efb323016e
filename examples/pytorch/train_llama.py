#!/usr/bin/env python3
"""Trains a Llama-style decoder on synthetic tokens, like TorchTitan does it.

RMSNorm, rotary embeddings, grouped-query attention (scaled_dot_product_attention), SwiGLU MLP.
The model is built on the meta device, parallelised, then materialised on the GPU. Parallelism
by flags: --ddp, --fsdp (FSDP2 fully_shard), --tp N (tensor parallel), --pp N (pipeline), and
--fsdp --tp N on a 2-D mesh. bf16: FSDP2 MixedPrecisionPolicy (bf16 params, fp32 reduce), else
autocast. --compile compiles each transformer block with torch.compile (after tensor parallelism
and activation checkpointing, before FSDP, as TorchTitan does); the first step then includes the
compilation. Run it with torchrun, e.g.

    torchrun --nproc_per_node 8 train_llama.py --model llama3-8b --fsdp --steps 10 --compile
"""

import argparse
import math
import os
import time
from contextlib import nullcontext
from dataclasses import dataclass, replace

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.distributed.tensor import DTensor


@dataclass
class ModelArgs:
    dim: int
    n_layers: int
    n_heads: int
    n_kv_heads: int
    vocab_size: int
    ffn_dim: int
    norm_eps: float = 1e-5
    rope_theta: float = 500000.0


MODELS = {
    "tiny": ModelArgs(dim=256, n_layers=4, n_heads=8, n_kv_heads=4, vocab_size=8192, ffn_dim=768),
    "llama3-1b": ModelArgs(
        dim=2048, n_layers=16, n_heads=32, n_kv_heads=8, vocab_size=128256, ffn_dim=8192
    ),
    "llama3-8b": ModelArgs(
        dim=4096, n_layers=32, n_heads=32, n_kv_heads=8, vocab_size=128256, ffn_dim=14336
    ),
    "llama3-70b": ModelArgs(
        dim=8192, n_layers=80, n_heads=64, n_kv_heads=8, vocab_size=128256, ffn_dim=28672
    ),
}


class RMSNorm(nn.Module):
    def __init__(self, dim, eps):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        x32 = x.float()
        normed = x32 * torch.rsqrt(x32.pow(2).mean(-1, keepdim=True) + self.eps)
        return normed.type_as(x) * self.weight

    def reset_parameters(self):
        nn.init.ones_(self.weight)


def rope_tables(head_dim, seq_len, theta, device):
    freqs = 1.0 / (theta ** (torch.arange(0, head_dim, 2, device=device).float() / head_dim))
    angles = torch.outer(torch.arange(seq_len, device=device).float(), freqs)
    return torch.cos(angles), torch.sin(angles)


def apply_rope(x, cos, sin):
    # x: (batch, seq, heads, head_dim); rotates each (even, odd) pair of features.
    x1, x2 = x.float()[..., 0::2], x.float()[..., 1::2]
    cos, sin = cos[None, :, None, :], sin[None, :, None, :]
    rotated = torch.stack((x1 * cos - x2 * sin, x1 * sin + x2 * cos), dim=-1).flatten(-2)
    return rotated.type_as(x)


class Attention(nn.Module):
    def __init__(self, a: ModelArgs):
        super().__init__()
        self.head_dim = a.dim // a.n_heads
        self.wq = nn.Linear(a.dim, a.n_heads * self.head_dim, bias=False)
        self.wk = nn.Linear(a.dim, a.n_kv_heads * self.head_dim, bias=False)
        self.wv = nn.Linear(a.dim, a.n_kv_heads * self.head_dim, bias=False)
        self.wo = nn.Linear(a.n_heads * self.head_dim, a.dim, bias=False)

    def forward(self, x, cos, sin):
        batch, seq, _ = x.shape
        # -1 heads: under tensor parallelism each rank holds a slice of the heads.
        q = self.wq(x).view(batch, seq, -1, self.head_dim)
        k = self.wk(x).view(batch, seq, -1, self.head_dim)
        v = self.wv(x).view(batch, seq, -1, self.head_dim)
        q, k = apply_rope(q, cos, sin), apply_rope(k, cos, sin)
        repeat = q.shape[2] // k.shape[2]
        k = k.repeat_interleave(repeat, dim=2)
        v = v.repeat_interleave(repeat, dim=2)
        out = F.scaled_dot_product_attention(
            q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), is_causal=True
        )
        return self.wo(out.transpose(1, 2).reshape(batch, seq, -1))


class FeedForward(nn.Module):
    def __init__(self, a: ModelArgs):
        super().__init__()
        self.w1 = nn.Linear(a.dim, a.ffn_dim, bias=False)
        self.w2 = nn.Linear(a.ffn_dim, a.dim, bias=False)
        self.w3 = nn.Linear(a.dim, a.ffn_dim, bias=False)

    def forward(self, x):
        return self.w2(F.silu(self.w1(x)) * self.w3(x))


class TransformerBlock(nn.Module):
    def __init__(self, a: ModelArgs):
        super().__init__()
        self.attention_norm = RMSNorm(a.dim, a.norm_eps)
        self.attention = Attention(a)
        self.ffn_norm = RMSNorm(a.dim, a.norm_eps)
        self.feed_forward = FeedForward(a)

    def forward(self, x, cos, sin):
        h = x + self.attention(self.attention_norm(x), cos, sin)
        return h + self.feed_forward(self.ffn_norm(h))


class Transformer(nn.Module):
    """The whole model, or one pipeline stage of it (the parts it does not hold are None)."""

    def __init__(self, a: ModelArgs, seq_len: int):
        super().__init__()
        self.args = a
        self.seq_len = seq_len
        self.compiled_blocks = False
        self.tok_embeddings = nn.Embedding(a.vocab_size, a.dim)
        self.layers = nn.ModuleDict({str(i): TransformerBlock(a) for i in range(a.n_layers)})
        self.norm = RMSNorm(a.dim, a.norm_eps)
        self.output = nn.Linear(a.dim, a.vocab_size, bias=False)
        cos, sin = rope_tables(a.dim // a.n_heads, seq_len, a.rope_theta, None)
        self.register_buffer("rope_cos", cos, persistent=False)
        self.register_buffer("rope_sin", sin, persistent=False)

    def forward(self, tokens):
        h = self.tok_embeddings(tokens) if self.tok_embeddings is not None else tokens
        if self.compiled_blocks and h._base is not None:
            # Under tensor parallelism the embedding's output is a view of its all-reduce's
            # result (a tensor subclass); a compiled block given such a view fails in backward
            # (PyTorch 2.15: "'Tensor' object has no attribute '_local_tensor'"). A copy is not
            # a view.
            h = h.clone()
        for layer in self.layers.values():
            h = layer(h, self.rope_cos, self.rope_sin)
        h = self.norm(h) if self.norm is not None else h
        return self.output(h).float() if self.output is not None else h

    @torch.no_grad()
    def init_weights(self, device):
        a = self.args
        cos, sin = rope_tables(a.dim // a.n_heads, self.seq_len, a.rope_theta, device)
        self.rope_cos.copy_(cos)
        self.rope_sin.copy_(sin)
        if self.tok_embeddings is not None:
            nn.init.normal_(self.tok_embeddings.weight)
        depth_std = 0.02 / math.sqrt(2 * a.n_layers)
        for layer in self.layers.values():
            layer.attention_norm.reset_parameters()
            layer.ffn_norm.reset_parameters()
            for w in (layer.attention.wq, layer.attention.wk, layer.attention.wv):
                nn.init.trunc_normal_(w.weight, std=0.02)
            for w in (layer.attention.wo, layer.feed_forward.w2, layer.feed_forward.w3):
                nn.init.trunc_normal_(w.weight, std=depth_std)
            nn.init.trunc_normal_(layer.feed_forward.w1.weight, std=0.02)
        if self.norm is not None:
            self.norm.reset_parameters()
        if self.output is not None:
            bound = 3 / math.sqrt(a.dim)
            nn.init.trunc_normal_(self.output.weight, std=a.dim**-0.5, a=-bound, b=bound)


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--model", default="tiny", choices=sorted(MODELS))
    p.add_argument("--layers", type=int, help="cut the model to this many layers")
    p.add_argument("--seq-len", type=int, default=2048)
    p.add_argument("--batch-size", type=int, default=1, help="sequences per data-parallel rank")
    p.add_argument("--steps", type=int, default=10)
    p.add_argument("--lr", type=float, default=3e-4)
    p.add_argument("--ddp", action="store_true", help="DistributedDataParallel")
    p.add_argument("--fsdp", action="store_true", help="FSDP2 fully_shard")
    p.add_argument("--tp", type=int, default=1, help="tensor-parallel degree")
    p.add_argument("--pp", type=int, default=1, help="pipeline-parallel degree")
    p.add_argument("--pp-schedule", default="1f1b", choices=["gpipe", "1f1b"])
    p.add_argument("--microbatches", type=int, help="per pipeline step (default: 2 x --pp)")
    p.add_argument("--ac", action="store_true", help="activation checkpointing of every block")
    p.add_argument("--compile", action="store_true", help="torch.compile each transformer block")
    p.add_argument("--peak-tflops", type=float, default=989.0, help="bf16 dense peak for MFU")
    p.add_argument("--device", default="cuda", choices=["cuda", "cpu"])
    p.add_argument("--seed", type=int, default=0)
    return p.parse_args()


def build_mesh(args, world):
    from torch.distributed.device_mesh import init_device_mesh

    if world % (args.tp * args.pp):
        raise SystemExit(f"world size {world} is not a multiple of --tp {args.tp} x --pp {args.pp}")
    dp = world // (args.tp * args.pp)
    if dp > 1 and not (args.ddp or args.fsdp):
        raise SystemExit(f"{dp} data-parallel replicas: choose --ddp or --fsdp")
    if args.ddp and (args.tp > 1 or args.pp > 1):
        raise SystemExit("--ddp combines with neither --tp nor --pp here; use --fsdp")
    return init_device_mesh(args.device, (args.pp, dp, args.tp), mesh_dim_names=("pp", "dp", "tp"))


def apply_tp(model, tp_mesh):
    from torch.distributed.tensor import Replicate
    from torch.distributed.tensor.parallel import (
        ColwiseParallel,
        RowwiseParallel,
        parallelize_module,
    )

    # Embedding rows and output columns split over the ranks; activations stay replicated.
    outer = {}
    if model.tok_embeddings is not None:
        outer["tok_embeddings"] = RowwiseParallel(input_layouts=Replicate())
    if model.output is not None:
        outer["output"] = ColwiseParallel(output_layouts=Replicate())
    parallelize_module(model, tp_mesh, outer)

    plan = {
        "attention.wq": ColwiseParallel(),
        "attention.wk": ColwiseParallel(),
        "attention.wv": ColwiseParallel(),
        "attention.wo": RowwiseParallel(),
        "feed_forward.w1": ColwiseParallel(),
        "feed_forward.w3": ColwiseParallel(),
        "feed_forward.w2": RowwiseParallel(),
    }
    for layer in model.layers.values():
        parallelize_module(layer, tp_mesh, plan)


def apply_ac(model):
    from torch.distributed.algorithms._checkpoint.checkpoint_wrapper import checkpoint_wrapper

    for name, layer in model.layers.items():
        model.layers[name] = checkpoint_wrapper(layer, preserve_rng_state=False)


def apply_compile(model):
    """torch.compile of each block (the blocks are alike: Dynamo reuses one compiled graph for
    all of them); embeddings, final norm, output and loss stay eager."""
    for name, layer in model.layers.items():
        model.layers[name] = torch.compile(layer, fullgraph=True)
    model.compiled_blocks = True


def apply_fsdp(model, dp_mesh):
    from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard

    mp = MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.float32)
    for layer in model.layers.values():
        fully_shard(layer, mesh=dp_mesh, mp_policy=mp)
    fully_shard(model, mesh=dp_mesh, mp_policy=mp)


def pipeline_stage_module(model, stage, stages):
    """Keeps this stage's share of the layers; the first stage keeps the embeddings, the last
    the final norm and the output projection."""
    n = len(model.layers)
    first, last = stage * n // stages, (stage + 1) * n // stages
    for i in list(model.layers.keys()):
        if not first <= int(i) < last:
            del model.layers[i]
    if stage > 0:
        model.tok_embeddings = None
    if stage < stages - 1:
        model.norm = None
        model.output = None
    return model


def flops_per_token(a: ModelArgs, params_no_embedding, seq_len):
    # 6 N per token for the dense weights (forward + backward) plus attention's scores and
    # values: 12 x layers x heads x head_dim x seq_len (PaLM appendix B; TorchTitan).
    return 6 * params_no_embedding + 12 * a.n_layers * a.n_heads * (a.dim // a.n_heads) * seq_len


def main():
    args = parse_args()
    a = MODELS[args.model]
    if args.layers:
        a = replace(a, n_layers=args.layers)
    world = int(os.environ.get("WORLD_SIZE", "1"))
    rank = int(os.environ.get("RANK", "0"))
    local_rank = int(os.environ.get("LOCAL_RANK", "0"))
    cuda = args.device == "cuda"
    if cuda:
        torch.cuda.set_device(local_rank)
        device = torch.device("cuda", local_rank)
    else:
        device = torch.device("cpu")
    distributed = world > 1
    if distributed:
        dist.init_process_group(
            "nccl" if cuda else "gloo", device_id=device if cuda else None
        )
    if not distributed and (args.ddp or args.fsdp or args.tp > 1 or args.pp > 1):
        raise SystemExit("--ddp, --fsdp, --tp and --pp need several ranks: run under torchrun")
    mesh = build_mesh(args, world) if distributed else None
    dp_size = world // (args.tp * args.pp)
    dp_rank = mesh["dp"].get_local_rank() if mesh is not None else 0
    pp_rank = mesh["pp"].get_local_rank() if mesh is not None else 0
    # One seed for the weights on every rank (DTensor's random ops need it); data per replica.
    torch.manual_seed(args.seed)
    data = torch.Generator(device=device).manual_seed(args.seed + 1 + dp_rank)

    with torch.device("meta"):
        model = Transformer(a, args.seq_len)
    n_params = sum(p.numel() for p in model.parameters())
    n_embedding = model.tok_embeddings.weight.numel()
    if args.pp > 1:
        model = pipeline_stage_module(model, pp_rank, args.pp)
    if args.tp > 1:
        apply_tp(model, mesh["tp"])
    if args.ac:
        apply_ac(model)
    if args.compile:
        apply_compile(model)
    if args.fsdp:
        apply_fsdp(model, mesh["dp"])
    model.to_empty(device=device)
    model.init_weights(device)
    if args.ddp:
        from torch.nn.parallel import DistributedDataParallel

        model = DistributedDataParallel(model, device_ids=[local_rank] if cuda else None)
    # Under tensor parallelism alone the norms stay plain tensors: the fused kernel takes
    # DTensors and tensors in separate groups.
    params = list(model.parameters())
    groups = [g for g in (
        [p for p in params if isinstance(p, DTensor)],
        [p for p in params if not isinstance(p, DTensor)],
    ) if g]
    optimizer = torch.optim.AdamW(
        [{"params": g} for g in groups], lr=args.lr, betas=(0.9, 0.95), weight_decay=0.1,
        fused=True,
    )
    # FSDP2 casts to bf16 itself; without it, autocast (as TorchTitan does for DDP and TP).
    amp = nullcontext() if args.fsdp else torch.autocast(args.device, dtype=torch.bfloat16)

    def loss_fn(logits, targets):
        return F.cross_entropy(logits.flatten(0, 1), targets.flatten(0, 1))

    schedule = None
    microbatches = args.microbatches or 2 * args.pp
    if args.pp > 1:
        from torch.distributed.pipelining import PipelineStage, Schedule1F1B, ScheduleGPipe

        if args.batch_size % microbatches:
            raise SystemExit(f"--batch-size {args.batch_size} is not a multiple of {microbatches}")
        mb = args.batch_size // microbatches
        hidden = torch.bfloat16 if args.fsdp else torch.float32
        first, last = pp_rank == 0, pp_rank == args.pp - 1
        example_in = (
            torch.empty(mb, args.seq_len, dtype=torch.long, device="meta")
            if first
            else torch.empty(mb, args.seq_len, a.dim, dtype=hidden, device="meta", requires_grad=True)
        )
        example_out = (
            torch.empty(mb, args.seq_len, a.vocab_size, dtype=torch.float32, device="meta")
            if last
            else torch.empty(mb, args.seq_len, a.dim, dtype=hidden, device="meta")
        ).requires_grad_(True)
        stage = PipelineStage(
            model, pp_rank, args.pp, device, input_args=example_in, output_args=example_out,
            group=mesh["pp"].get_group(),
        )
        kind = ScheduleGPipe if args.pp_schedule == "gpipe" else Schedule1F1B
        schedule = kind(stage, n_microbatches=microbatches, loss_fn=loss_fn)

    last_stage_reporter = world - world // args.pp if args.pp > 1 else -1
    tokens_per_step = dp_size * args.batch_size * args.seq_len
    flops = flops_per_token(a, n_params - n_embedding, args.seq_len)
    if rank == 0:
        print(
            f"model {args.model}: {a.n_layers} layers, {n_params / 1e9:.3f} B parameters; "
            f"world {world} (dp {dp_size}, tp {args.tp}, pp {args.pp}); "
            f"{'DDP ' if args.ddp else ''}{'FSDP2 ' if args.fsdp else ''}"
            f"{'AC ' if args.ac else ''}{'compiled ' if args.compile else ''}"
            f"seq {args.seq_len}, batch {args.batch_size}/dp rank",
            flush=True,
        )

    for step in range(args.steps):
        inputs = torch.randint(
            0, a.vocab_size, (args.batch_size, args.seq_len + 1), device=device, generator=data
        )
        x, y = inputs[:, :-1], inputs[:, 1:]
        if cuda:
            torch.cuda.nvtx.range_push(f"step {step}")
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
        t0 = time.perf_counter()
        optimizer.zero_grad(set_to_none=True)
        loss = None
        with amp:
            if schedule is not None:
                losses = []
                if pp_rank == 0:
                    schedule.step(x)
                elif pp_rank == args.pp - 1:
                    schedule.step(target=y, losses=losses)
                    loss = torch.stack(losses).mean()
                else:
                    schedule.step()
            else:
                loss = loss_fn(model(x), y)
                loss.backward()
        if not args.fsdp and args.tp == 1 and args.pp == 1:
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        if cuda:
            end.record()
            torch.cuda.synchronize()
            torch.cuda.nvtx.range_pop()
        wall_ms = (time.perf_counter() - t0) * 1e3
        step_ms = start.elapsed_time(end) if cuda else wall_ms
        tokens_per_gpu_s = tokens_per_step / world / (step_ms / 1e3)
        mfu = 100 * tokens_per_gpu_s * flops / (args.peak_tflops * 1e12)
        peak_gib = torch.cuda.max_memory_allocated() / 2**30 if cuda else 0.0
        # Rank 0 reports; under pipelining the last stage's first rank reports the loss too.
        if rank == 0 or (rank == last_stage_reporter and loss is not None):
            shown = f"{loss.item():.4f}" if loss is not None else "-"
            print(
                f"rank {rank} step {step}: loss {shown}  step {step_ms:.2f} ms  "
                f"(perf_counter {wall_ms:.2f} ms)  {tokens_per_gpu_s:,.0f} tokens/s/GPU  "
                f"MFU {mfu:.1f}%  max memory {peak_gib:.2f} GiB",
                flush=True,
            )
    if distributed:
        dist.destroy_process_group()


if __name__ == "__main__":
    main()
