"""A training loop fed by a DataLoader with worker processes and pinned memory: the workers (forked
processes that never touch CUDA) must stay out of the simulation. Prints RESULT lines."""

import torch
from torch.utils.data import DataLoader, TensorDataset

dataset = TensorDataset(torch.randn(256, 64), torch.randn(256, 1))
loader = DataLoader(dataset, batch_size=32, num_workers=2, pin_memory=True)
model = torch.nn.Linear(64, 1).cuda()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
batches = 0
for x, y in loader:
    x, y = x.cuda(non_blocking=True), y.cuda(non_blocking=True)
    torch.nn.functional.mse_loss(model(x), y).backward()
    optimizer.step()
    optimizer.zero_grad()
    batches += 1
torch.cuda.synchronize()
print(f"RESULT batches {batches}", flush=True)
