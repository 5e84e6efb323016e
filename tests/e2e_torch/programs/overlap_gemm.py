"""Times the same bf16 GEMM while an all-gather runs beside it and alone (2 ranks, NCCL).

GEMMs are queued on a stream of their own, then an 8 GiB-per-rank all-gather starts on NCCL's
stream; the ten GEMMs timed with CUDA events come after five that give the all-gather time to
start on both ranks. Then the other way round: the all-gather starts, the host asks whether it
is complete (work.is_completed(): a cudaEventQuery, as PyTorch's caching allocator makes for the
tensors of collectives in flight), and only then queues the GEMMs, which must still run beside
it. After it ends, the same GEMMs run alone. Prints RESULT lines
(tests/e2e_torch/interference_test.cpp)."""

import os

import torch
import torch.distributed as dist

REPS, LEAD = 10, 5
M, N, K = 1408, 1536, 8192

dist.init_process_group("nccl")
torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
a = torch.randn(M, K, device="cuda", dtype=torch.bfloat16)
b = torch.randn(K, N, device="cuda", dtype=torch.bfloat16)
c = torch.empty(M, N, device="cuda", dtype=torch.bfloat16)
shard = torch.empty(4 << 30, device="cuda", dtype=torch.bfloat16)
gathered = torch.empty(2 * shard.numel(), device="cuda", dtype=torch.bfloat16)
compute = torch.cuda.Stream()


def queue_gemms():
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    with torch.cuda.stream(compute):
        for _ in range(LEAD):
            torch.mm(a, b, out=c)
        start.record()
        for _ in range(REPS):
            torch.mm(a, b, out=c)
        end.record()
    return start, end


def per_gemm_ns(events):
    start, end = events
    end.synchronize()
    return round(start.elapsed_time(end) * 1e6 / REPS)


torch.mm(a, b, out=c)
dist.barrier()
torch.cuda.synchronize()
events = queue_gemms()
work = dist.all_gather_into_tensor(gathered, shard, async_op=True)
beside = per_gemm_ns(events)
work.wait()
torch.cuda.synchronize()
dist.barrier()
torch.cuda.synchronize()
work = dist.all_gather_into_tensor(gathered, shard, async_op=True)
completed_at_once = work.is_completed()
after = per_gemm_ns(queue_gemms())
work.wait()
torch.cuda.synchronize()
alone = per_gemm_ns(queue_gemms())
print(f"RESULT gemm_beside_ns {beside}")
print(f"RESULT gemm_alone_ns {alone}")
print(f"RESULT gemm_after_query_ns {after}")
print(f"RESULT completed_at_once {int(completed_at_once)}")
dist.destroy_process_group()
