"""torch.cuda.graph of a small MLP forward, replayed with g.replay() (tests/e2e_graphs)."""

import time

import torch

WARMUP, REPLAYS = 3, 10

model = torch.nn.Sequential(
    torch.nn.Linear(1024, 4096), torch.nn.GELU(), torch.nn.Linear(4096, 1024)
).cuda().half()
static_x = torch.randn(64, 1024, device="cuda", dtype=torch.half)

side = torch.cuda.Stream()
side.wait_stream(torch.cuda.current_stream())
with torch.cuda.stream(side), torch.no_grad():
    for _ in range(WARMUP):
        model(static_x)
torch.cuda.current_stream().wait_stream(side)

g = torch.cuda.CUDAGraph()
with torch.no_grad(), torch.cuda.graph(g):
    static_y = model(static_x)
torch.cuda.synchronize()

start = torch.cuda.Event(enable_timing=True)
end = torch.cuda.Event(enable_timing=True)
t0 = time.perf_counter()
start.record()
for _ in range(REPLAYS):
    g.replay()
end.record()
t1 = time.perf_counter()
end.synchronize()
print(f"RESULT replay_device_ms {start.elapsed_time(end) / REPLAYS:.6f}")
print(f"RESULT replay_host_us {(t1 - t0) * 1e6 / REPLAYS:.3f}")

with torch.no_grad():
    t0 = time.perf_counter()
    for _ in range(REPLAYS):
        model(static_x)
    t1 = time.perf_counter()
torch.cuda.synchronize()
print(f"RESULT eager_host_us {(t1 - t0) * 1e6 / REPLAYS:.3f}")
print(f"RESULT output_shape {'x'.join(map(str, static_y.shape))}")
