"""Times the same bf16 GEMM alone and while an all-gather runs beside it (2 ranks, NCCL).

An 8 GiB-per-rank all-gather starts first; a long elementwise add on the compute stream then
keeps the GEMMs back until it has started on both ranks; the GEMMs, timed with CUDA events,
run while it is still going. After it ends, the same GEMMs run alone. Prints RESULT lines
(tests/e2e_torch/interference_test.cpp)."""

import os

import torch
import torch.distributed as dist

REPS = 10
M, N, K = 1408, 1536, 8192

dist.init_process_group("nccl")
rank = dist.get_rank()
torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
a = torch.randn(M, K, device="cuda", dtype=torch.bfloat16)
b = torch.randn(K, N, device="cuda", dtype=torch.bfloat16)
x = torch.randn(256 << 20, device="cuda", dtype=torch.bfloat16)
shard = torch.empty(4 << 30, device="cuda", dtype=torch.bfloat16)
gathered = torch.empty(2 * shard.numel(), device="cuda", dtype=torch.bfloat16)


def gemm_ns():
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    torch.mm(a, b)  # keeps the stream busy: the start event completes when the timed GEMMs begin
    start.record()
    for _ in range(REPS):
        torch.mm(a, b)
    end.record()
    end.synchronize()
    return round(start.elapsed_time(end) * 1e6 / REPS)


torch.mm(a, b)
dist.barrier()
torch.cuda.synchronize()
work = dist.all_gather_into_tensor(gathered, shard, async_op=True)
x.add_(1.0)  # ~0.3 ms on the compute stream while the all-gather gets going
beside = gemm_ns()
work.wait()
torch.cuda.synchronize()
alone = gemm_ns()
print(f"RESULT gemm_beside_ns {beside}")
print(f"RESULT gemm_alone_ns {alone}")
dist.destroy_process_group()
