"""NCCL inside torch.cuda.graph on 2 ranks: the captured all-reduce runs at each replay."""

import torch
import torch.distributed as dist

dist.init_process_group("nccl")
rank = dist.get_rank()
torch.cuda.set_device(rank)
x = torch.ones(1 << 20, device="cuda")
lin = torch.nn.Linear(1024, 1024, device="cuda")
inp = torch.randn(256, 1024, device="cuda")

s = torch.cuda.Stream()
s.wait_stream(torch.cuda.current_stream())
with torch.cuda.stream(s):
    for _ in range(2):
        dist.all_reduce(x)
torch.cuda.current_stream().wait_stream(s)
torch.cuda.synchronize()

g = torch.cuda.CUDAGraph()
with torch.cuda.graph(g):
    y = torch.relu(inp) * 2
    dist.all_reduce(x)
    z = y + 1

start = torch.cuda.Event(enable_timing=True)
end = torch.cuda.Event(enable_timing=True)
start.record()
for _ in range(5):
    g.replay()
end.record()
end.synchronize()
print(f"rank {rank}: 5 replays of [relu, mul, all_reduce 4 MiB, add]: {start.elapsed_time(end):.3f} ms")
dist.destroy_process_group()
