"""torch.profiler (CUDA synchronization events on) around an all_reduce and a
torch.cuda.synchronize() on each rank of a NCCL process group; prints what key_averages()
reports for the NCCL kernel (RESULT lines) and exports each rank's Chrome trace to
argv[1]/rank<R>.json."""

import os
import sys

import torch
import torch.distributed as dist
from torch._C._profiler import _ExperimentalConfig
from torch.profiler import ProfilerActivity, profile


def result(name, value):
    """One line per write: ranks print into the same pipe."""
    os.write(1, f"RESULT {name} {value}\n".encode())


def device_total(e):
    for name in ("device_time_total", "cuda_time_total"):
        if hasattr(e, name):
            return getattr(e, name)
    return 0.0


local_rank = int(os.environ["LOCAL_RANK"])
device = torch.device("cuda", local_rank)
torch.cuda.set_device(device)
dist.init_process_group("nccl", device_id=device)
rank = dist.get_rank()

t = torch.ones(4 * 1024 * 1024, device=device)  # 16 MiB of float32
dist.all_reduce(t)  # outside the profiled region
torch.cuda.synchronize()
config = _ExperimentalConfig(enable_cuda_sync_events=True)
with profile(
    activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], experimental_config=config
) as prof:
    # Asynchronous: on ProcessGroupNCCL's own stream, which waits for the current one.
    dist.all_reduce(t, async_op=True).wait()
    torch.cuda.synchronize()

for e in prof.key_averages():
    if e.key.startswith("ncclDevKernel"):
        result(f"nccl_name_{rank}", e.key)
        result(f"nccl_count_{rank}", e.count)
        result(f"nccl_device_us_{rank}", f"{device_total(e):.3f}")
prof.export_chrome_trace(f"{sys.argv[1]}/rank{rank}.json")
result(f"exported_{rank}", 1)
dist.destroy_process_group()
