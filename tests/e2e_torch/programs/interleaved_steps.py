"""Collectives on two streams (like FSDP's all-gathers and reduce-scatters) whose submissions
interleave differently from step to step, with host work between steps that varies too: the
merged sequence of collectives does not repeat within the run, and a quarter or more of each
stream's intervals differ from the last step's, yet each stream's own sequence repeats every
step, so the report must find the steps from one stream (tests/e2e_torch/models_test.cpp)."""

import os
import time

import torch
import torch.distributed as dist

STEPS = 8
dist.init_process_group("nccl")
torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
second = dist.new_group(list(range(dist.get_world_size())))
stream_a, stream_b = torch.cuda.Stream(), torch.cuda.Stream()
a = [torch.ones(i << 16, device="cuda") for i in range(1, 9)]
b = [torch.ones(i << 16, device="cuda") for i in (9, 10)]
tiny = torch.zeros(1, device="cuda")
tops = []
for step in range(STEPS):
    tops.append(time.perf_counter())
    for i, x in enumerate(a):
        with torch.cuda.stream(stream_a):
            dist.all_reduce(x)
        # b[0] and b[1] follow a different a[] each step of three.
        for j, y in enumerate(b):
            if i == step % 3 + 3 * j + 1:
                with torch.cuda.stream(stream_b):
                    dist.all_reduce(y, group=second)
    for _ in range(1 + 40 * (step % 3)):
        tiny.add_(1)
tops.append(time.perf_counter())
torch.cuda.synchronize()
print(f"RESULT steps {STEPS}")
# Seer's virtual time: the mean host time per step after the first.
print(f"RESULT step_ms {(tops[-1] - tops[1]) / (STEPS - 1) * 1e3:.4f}")
dist.destroy_process_group()
