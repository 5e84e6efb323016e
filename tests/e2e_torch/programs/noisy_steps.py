"""Twelve all-reduces of different sizes per step, no NVTX, and host work between steps that
varies from step to step (a few or many small launches, like an optimizer and logging): the
report must still find the steps from the recurring collectives
(tests/e2e_torch/models_test.cpp)."""

import os

import torch
import torch.distributed as dist

STEPS = 8
dist.init_process_group("nccl")
torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
buffers = [torch.ones(i << 18, device="cuda") for i in range(1, 13)]
tiny = torch.zeros(1, device="cuda")
for step in range(STEPS):
    for b in buffers:
        dist.all_reduce(b)
    for _ in range(1 + 40 * (step % 3)):
        tiny.add_(1)
torch.cuda.synchronize()
print(f"RESULT steps {STEPS}")
dist.destroy_process_group()
