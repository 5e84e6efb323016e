"""torch.distributed's object collectives and DDP's start-up checks read collective results
back on the host: prints what each rank received (RESULT lines for the test)."""

import os


def result(name, value):
    """One line per write: ranks print into the same pipe."""
    os.write(1, f"RESULT {name} {value}\n".encode())


import torch
import torch.distributed as dist
import torch.nn as nn

local_rank = int(os.environ["LOCAL_RANK"])
device = torch.device("cuda", local_rank)
torch.cuda.set_device(device)
dist.init_process_group("nccl", device_id=device)
rank, world = dist.get_rank(), dist.get_world_size()

# Objects of different sizes: all_gather_object pads to the largest pickle.
gathered = [None] * world
dist.all_gather_object(gathered, {"rank": rank, "name": "r" * (rank + 1) * 100})
ok = all(g == {"rank": r, "name": "r" * (r + 1) * 100} for r, g in enumerate(gathered))
result(f"gather_ok_{rank}", f"{int(ok)}")

objects = [{"config": "from rank 0", "lr": 3e-4}, list(range(50))] if rank == 0 else [None, None]
dist.broadcast_object_list(objects, src=0)
ok = objects == [{"config": "from rank 0", "lr": 3e-4}, list(range(50))]
result(f"broadcast_ok_{rank}", f"{int(ok)}")

# A tensor all-reduce read back on the host. Its input comes from the host (a copy carries real
# bytes; a fill kernel such as torch.full would not: kernels compute nothing under Seer).
t = torch.tensor([float(rank + 1)] * 4, device=device)
dist.all_reduce(t)
result(f"allreduce_{rank}", f"{t[0].item():g}")

# DDP: verify_params_across_processes and the parameter broadcast, then two steps (the bucket
# rebuild after the first one reads broadcast indices back too).
model = nn.parallel.DistributedDataParallel(
    nn.Sequential(nn.Linear(64, 256), nn.ReLU(), nn.Linear(256, 64)).to(device),
    device_ids=[local_rank],
)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(2):
    optimizer.zero_grad()
    model(torch.randn(32, 64, device=device)).sum().backward()
    optimizer.step()
torch.cuda.synchronize()
result(f"ddp_steps_{rank}", f"2")
dist.destroy_process_group()
